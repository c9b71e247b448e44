import Foundation

/// A time field a client sent that cannot be used; `field` names it for the 400.
public struct CalendarInputError: Error, Equatable, Sendable {
    public let field: String
    public let message: String
    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }
}

/// Reads the `start`/`end`/`all_day`/`time_zone`/`rrule` of an entry as a client writes them.
///
/// Timed entries take RFC 3339 with an offset (`2026-03-03T18:00:00+01:00`, `…Z`) or a local
/// date-time (`2026-03-03T18:00`) meant in `time_zone`. All-day entries take dates; their `end`
/// is exclusive and defaults to the day after `start`.
public struct CalendarTimeInput: Sendable {
    public let start: Date
    public let end: Date
    public let allDay: Bool
    public let timeZone: TimeZone
    public let rule: RecurrenceRule?

    /// The years an entry may start in. Family calendars need neither the year 1 nor 9999, and
    /// each bound keeps arithmetic on the entry (its end, its recurrences) inside the years
    /// `CalendarDay` and Foundation's calendar handle.
    public static let supportedYears = 1900...2999

    /// The longest single occurrence Hearth accepts.
    public static let maxDuration: TimeInterval = 31 * 86_400

    public init(start startText: String, end endText: String?, allDay: Bool, timeZone zoneName: String?, rrule: String?) throws(CalendarInputError) {
        let zoneName = zoneName ?? "UTC"
        guard let zone = LocalTime.zone(named: zoneName) else {
            throw CalendarInputError(field: "time_zone", message: "time_zone \"\(zoneName)\" is not a known IANA time zone")
        }
        if allDay {
            guard let first = CalendarDay(isoDate: startText) else {
                throw CalendarInputError(field: "start", message: "start of an all-day event must be a YYYY-MM-DD date")
            }
            var last = first.adding(days: 1)
            if let endText {
                guard let day = CalendarDay(isoDate: endText) else {
                    throw CalendarInputError(field: "end", message: "end of an all-day event must be a YYYY-MM-DD date (exclusive)")
                }
                last = day
            }
            start = LocalTime.instant(day: first, secondsOfDay: 0, in: zone)
            end = LocalTime.instant(day: last, secondsOfDay: 0, in: zone)
        } else {
            guard let parsedStart = Self.parseDateTime(startText, in: zone) else {
                throw CalendarInputError(field: "start", message: "start must be an RFC 3339 date-time, or YYYY-MM-DDTHH:MM[:SS] in time_zone")
            }
            guard let endText else { throw CalendarInputError(field: "end", message: "end is required for an event that is not all-day") }
            guard let parsedEnd = Self.parseDateTime(endText, in: zone) else {
                throw CalendarInputError(field: "end", message: "end must be an RFC 3339 date-time, or YYYY-MM-DDTHH:MM[:SS] in time_zone")
            }
            start = parsedStart
            end = parsedEnd
        }
        guard Self.supportedYears.contains(CalendarDay(start, in: zone).year) else {
            throw CalendarInputError(
                field: "start", message: "start must be in the years \(Self.supportedYears.lowerBound) to \(Self.supportedYears.upperBound)")
        }
        guard end > start else { throw CalendarInputError(field: "end", message: "end must be after start") }
        guard end.timeIntervalSince(start) <= Self.maxDuration else {
            throw CalendarInputError(field: "end", message: "an event may last at most 31 days")
        }
        self.allDay = allDay
        self.timeZone = zone
        if let rrule {
            do {
                rule = try RecurrenceRule.parse(rrule)
            } catch {
                throw CalendarInputError(field: "rrule", message: error.message)
            }
        } else {
            rule = nil
        }
    }

    /// RFC 3339 with an offset, or a local date-time in `zone`.
    public static func parseDateTime(_ text: String, in zone: TimeZone) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 16, bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t") || bytes[10] == UInt8(ascii: " "),
              let day = CalendarDay(isoDate: String(decoding: bytes[0..<10], as: UTF8.self))
        else { return nil }
        var index = 11
        func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<(index + count)] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            index += count
            return value
        }
        guard let hour = digits(2), hour < 24, index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
        index += 1
        guard let minute = digits(2), minute < 60 else { return nil }
        var second = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
            index += 1
            guard let value = digits(2), value < 60 else { return nil }
            second = value
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                while index < bytes.count, (48...57).contains(bytes[index]) { index += 1 }
            }
        }
        let secondsOfDay = hour * 3600 + minute * 60 + second
        if index == bytes.count { return LocalTime.instant(day: day, secondsOfDay: secondsOfDay, in: zone) }
        let utcSeconds = day.daysSinceEpoch * 86_400 + secondsOfDay
        if bytes[index] == UInt8(ascii: "Z") || bytes[index] == UInt8(ascii: "z") {
            guard index + 1 == bytes.count else { return nil }
            return Date(timeIntervalSince1970: TimeInterval(utcSeconds))
        }
        guard bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") else { return nil }
        let sign = bytes[index] == UInt8(ascii: "+") ? 1 : -1
        index += 1
        guard let offsetHours = digits(2), offsetHours <= 18, index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
        index += 1
        guard let offsetMinutes = digits(2), offsetMinutes < 60, index == bytes.count else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(utcSeconds - sign * (offsetHours * 3600 + offsetMinutes * 60)))
    }
}
