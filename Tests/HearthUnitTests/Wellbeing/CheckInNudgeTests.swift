import Foundation
import HearthDomain
import Testing

/// The check-in nudge: the days each cadence names, the window's opening, and no nudge after a
/// check-in or once the day's window has closed.
@Suite struct CheckInNudgeTests {
    static let paris = TimeZone(identifier: "Europe/Paris")!

    /// 2026-03-16 is a Monday; `hour` is Paris local time (UTC+1 in March before the 29th).
    static func at(_ day: Int, _ hour: Int, _ minute: Int = 0) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = paris
        return calendar.date(from: DateComponents(year: 2026, month: 3, day: day, hour: hour, minute: minute))!
    }

    static let window = try! DeliveryWindow.parse(start: "09:00", end: "21:00", timeZone: "Europe/Paris")

    @Test func aDailyNudgeWaitsForTheWindowToOpen() {
        #expect(CheckInNudge.due(cadence: .daily, window: Self.window, now: Self.at(16, 7), lastCheckIn: nil) == .init(day: "2026-03-16", at: Self.at(16, 9)))
        #expect(CheckInNudge.due(cadence: .daily, window: Self.window, now: Self.at(16, 13, 30), lastCheckIn: nil)?.at == Self.at(16, 13, 30))
        #expect(CheckInNudge.due(cadence: .daily, window: Self.window, now: Self.at(16, 22), lastCheckIn: nil) == nil, "the day's window has closed")
    }

    @Test func aCheckInTheSameDayCancelsIt() {
        #expect(CheckInNudge.due(cadence: .daily, window: Self.window, now: Self.at(16, 10), lastCheckIn: Self.at(16, 0, 30)) == nil)
        #expect(CheckInNudge.due(cadence: .daily, window: Self.window, now: Self.at(16, 10), lastCheckIn: Self.at(15, 23)) != nil)
    }

    @Test func eachCadenceNamesItsDays() {
        let days = (16...22).map { day in
            WellbeingReminderCadence.allCases.map { CheckInNudge.due(cadence: $0, window: Self.window, now: Self.at(day, 8), lastCheckIn: nil) != nil }
        }
        let index = Dictionary(uniqueKeysWithValues: WellbeingReminderCadence.allCases.enumerated().map { ($1, $0) })
        #expect(days.map { $0[index[.daily]!] } == [true, true, true, true, true, true, true])
        #expect(days.map { $0[index[.weekdays]!] } == [true, true, true, true, true, false, false])
        #expect(days.map { $0[index[.weekly]!] } == [true, false, false, false, false, false, false])
        #expect(days.map { $0[index[.off]!] } == [false, false, false, false, false, false, false])
    }

    @Test func aWindowAcrossMidnightNudgesAtItsEveningOpening() throws {
        let night = try DeliveryWindow.parse(start: "22:00", end: "02:00", timeZone: "Europe/Paris")
        #expect(CheckInNudge.due(cadence: .daily, window: night, now: Self.at(16, 12), lastCheckIn: nil)?.at == Self.at(16, 22))
        #expect(CheckInNudge.due(cadence: .daily, window: night, now: Self.at(17, 1), lastCheckIn: nil)?.at == Self.at(17, 1), "still open from the evening before")
    }
}
