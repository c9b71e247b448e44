import Foundation

/// When the wellbeing space nudges a user to check in: once on each day their reminder cadence
/// names (`daily`; `weekdays` Monday to Friday; `weekly` on Mondays), at the opening of their
/// delivery window that day (or at once when it is open), and only while they have not checked in
/// that day (this week, for `weekly`). A day whose window has closed gets none: a nudge never waits
/// overnight to land the next morning on top of that day's own.
public enum CheckInNudge {
    public struct Due: Sendable, Equatable {
        /// `YYYY-MM-DD` in the window's zone: one nudge per user and day.
        public var day: String
        public var at: Date

        public init(day: String, at: Date) {
            self.day = day
            self.at = at
        }
    }

    public static func due(cadence: WellbeingReminderCadence, window: DeliveryWindow, now: Date, lastCheckIn: Date?) -> Due? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = window.zone
        let weekday = calendar.component(.weekday, from: now)  // 1 = Sunday
        switch cadence {
        case .off: return nil
        case .daily: break
        case .weekdays: guard (2...6).contains(weekday) else { return nil }
        case .weekly: guard weekday == 2 else { return nil }
        }
        let today = calendar.startOfDay(for: now)
        // A weekly nudge falls on Monday, so "this week so far" is today as well.
        if let lastCheckIn, lastCheckIn >= today { return nil }
        let at = window.nextOpening(atOrAfter: now)
        guard calendar.isDate(at, inSameDayAs: now) else { return nil }
        return Due(day: CalendarDay(now, in: window.zone).isoDate, at: at)
    }
}
