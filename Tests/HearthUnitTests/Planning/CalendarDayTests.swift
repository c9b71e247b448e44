import Foundation
import HearthDomain
import Testing

@Suite struct CalendarDayTests {
    @Test func parsesAndFormatsIsoDates() {
        #expect(CalendarDay(isoDate: "2025-03-03")?.isoDate == "2025-03-03")
        for bad in ["2025-3-3", "2025-02-29", "2025-13-01", "20250303", "2025-03-03T00:00", "", "２０２５-03-03"] {
            #expect(CalendarDay(isoDate: bad) == nil, "\(bad)")
        }
        #expect(CalendarDay(isoDate: "2024-02-29") != nil)
    }

    @Test func countsDaysAndWeekdays() {
        let day = CalendarDay(isoDate: "2025-03-03")!
        #expect(day.weekday == .monday)
        #expect(day.adding(days: 6).weekday == .sunday)
        #expect(CalendarDay(isoDate: "2024-02-28")!.adding(days: 1).isoDate == "2024-02-29")
        #expect(CalendarDay(isoDate: "2024-12-31")!.adding(days: 1).isoDate == "2025-01-01")
        #expect(CalendarDay(isoDate: "1970-01-01")!.daysSinceEpoch == 0)
        #expect(CalendarDay(isoDate: "1969-12-31")!.weekday == .wednesday)
        for offset in stride(from: -800_000, through: 800_000, by: 997) {
            #expect(CalendarDay(daysSinceEpoch: offset).daysSinceEpoch == offset)
        }
    }

    @Test func readsTheLocalDayOfAnInstant() {
        let instant = Date(timeIntervalSince1970: 1_741_003_200)  // 2025-03-03T12:00:00Z
        #expect(CalendarDay(instant, in: TimeZone(identifier: "UTC")!).isoDate == "2025-03-03")
        #expect(CalendarDay(instant, in: TimeZone(identifier: "Pacific/Kiritimati")!).isoDate == "2025-03-04")
    }
}
