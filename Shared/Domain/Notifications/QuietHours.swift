import Foundation

/// A user's quiet hours: a daily window of local wall-clock time in which non-urgent reminders
/// wait. A window whose start is later than its end runs over midnight (22:00–07:00).
public struct QuietHours: Sendable, Equatable {
    public let start: LocalClockTime
    public let end: LocalClockTime

    /// Nil when the two are equal: an empty window (and "all day" is not a delivery window).
    public init?(start: LocalClockTime, end: LocalClockTime) {
        guard start != end else { return nil }
        self.start = start
        self.end = end
    }

    public init?(start: String?, end: String?) {
        guard let start, let end, let from = LocalClockTime(start), let to = LocalClockTime(end) else { return nil }
        self.init(start: from, end: to)
    }

    /// When `instant` falls inside the window (as seen in `zone`), the instant the window ends;
    /// nil when it is outside.
    public func windowEnd(containing instant: Date, in zone: TimeZone) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: instant)
        guard let hour = parts.hour, let minute = parts.minute else { return nil }
        let now = hour * 60 + minute
        let from = start.minutesIntoDay, to = end.minutesIntoDay
        let inside: Bool
        let endsTomorrow: Bool
        if from < to {
            inside = now >= from && now < to
            endsTomorrow = false
        } else {
            inside = now >= from || now < to
            endsTomorrow = now >= from
        }
        guard inside else { return nil }
        guard let today = calendar.date(from: DateComponents(year: parts.year, month: parts.month, day: parts.day)),
              let day = endsTomorrow ? calendar.date(byAdding: .day, value: 1, to: today) : today
        else { return nil }
        let dayParts = calendar.dateComponents([.year, .month, .day], from: day)
        // A window end that a DST change skipped resolves to the next existing minute.
        return calendar.date(from: DateComponents(
            year: dayParts.year, month: dayParts.month, day: dayParts.day, hour: end.hour, minute: end.minute))
    }
}

/// When a due reminder goes out: now, unless the user's quiet hours hold it back.
public enum DeliveryTiming {
    public enum Decision: Sendable, Equatable {
        /// Send now; `latenessMs` is how far past its due time (or the quiet window it waited
        /// out) it is.
        case sendNow(latenessMs: Int64)
        /// Inside quiet hours: wait until the window ends.
        case deferUntil(Date)
    }

    /// `deferredUntil` is the end of a quiet window the reminder already waited for: lateness is
    /// measured from there, and the window is not entered again (a clock at exactly its end).
    public static func decide(
        dueAt: Date, now: Date, urgent: Bool, quietHours: QuietHours?, zone: TimeZone, deferredUntil: Date? = nil
    ) -> Decision {
        if !urgent, let quietHours, let end = quietHours.windowEnd(containing: now, in: zone), end > now {
            return .deferUntil(end)
        }
        let reference = max(dueAt, deferredUntil ?? dueAt)
        let lateness = max(0, Int64((now.timeIntervalSince(reference) * 1000).rounded()))
        return .sendNow(latenessMs: lateness)
    }

    /// The zone a user's reminders are timed in: their notification setting, else their profile,
    /// else UTC. Unknown names count as absent.
    public static func zone(setting: String?, profile: String?) -> TimeZone {
        for name in [setting, profile] {
            if let name, !name.isEmpty, let zone = TimeZone(identifier: name) { return zone }
        }
        return .gmt
    }
}
