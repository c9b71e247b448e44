import Foundation

/// A wall-clock time of day (`HH:MM`, 24-hour), as users state quiet hours.
public struct LocalClockTime: Sendable, Equatable, CustomStringConvertible {
    public let hour: Int
    public let minute: Int

    public init?(hour: Int, minute: Int) {
        guard (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        self.hour = hour
        self.minute = minute
    }

    /// Parses `HH:MM` (exactly two digits each).
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let hour = Int(parts[0]), let minute = Int(parts[1])
        else { return nil }
        self.init(hour: hour, minute: minute)
    }

    public var minutesIntoDay: Int { hour * 60 + minute }

    public var description: String {
        (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }
}

/// Local ISO 8601 date-times as events carry them (`2026-03-03T18:00:00`, optionally with
/// `Z` or a `±HH:MM` offset), turned into instants.
public enum LocalDateTime {
    /// The instant `text` names: its own offset when it has one, else read as wall-clock time in
    /// `zone`. A wall-clock time that does not exist (the hour skipped by a DST change) moves
    /// forward to the first that does, as `Calendar` does.
    public static func instant(_ text: String, in zone: TimeZone) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count >= 16 else { return nil }
        let dateTimeEnd = trimmed.index(trimmed.startIndex, offsetBy: 19, limitedBy: trimmed.endIndex) ?? trimmed.endIndex
        let head = String(trimmed[..<dateTimeEnd])
        var rest = String(trimmed[dateTimeEnd...])
        // `HH:MM` without seconds: the 17th character onwards is the offset, if any.
        var local = head
        if head.count == 19, head[head.index(head.startIndex, offsetBy: 16)] != ":" {
            local = String(head.prefix(16))
            rest = String(trimmed.dropFirst(16))
        }
        // Fractional seconds are dropped: reminders are to the second.
        if rest.hasPrefix(".") {
            rest = String(rest.drop(while: { $0 == "." || $0.isNumber }))
        }
        guard let components = components(local) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        if rest.isEmpty {
            calendar.timeZone = zone
        } else {
            guard let offset = offsetSeconds(rest), let fixed = TimeZone(secondsFromGMT: offset) else { return nil }
            calendar.timeZone = fixed
        }
        return calendar.date(from: components)
    }

    private static func components(_ text: String) -> DateComponents? {
        let chars = Array(text)
        guard chars.count == 16 || chars.count == 19, chars[4] == "-", chars[7] == "-", chars[10] == "T" || chars[10] == " ",
              chars[13] == ":", chars.count == 16 || chars[16] == ":"
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            let slice = chars[range]
            guard slice.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int(String(slice))
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16)
        else { return nil }
        let second = chars.count == 19 ? number(17..<19) : 0
        guard let second, (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute),
              (0...59).contains(second)
        else { return nil }
        // Reject days the month does not have (Calendar would roll 31 April over to 1 May).
        var probe = Calendar(identifier: .gregorian)
        probe.timeZone = .gmt
        guard let first = probe.date(from: DateComponents(year: year, month: month, day: 1)),
              let days = probe.range(of: .day, in: .month, for: first), days.contains(day)
        else { return nil }
        return DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// `Z`, `+HH:MM`, `-HH:MM` or `+HHMM` → seconds east of UTC.
    private static func offsetSeconds(_ text: String) -> Int? {
        if text == "Z" || text == "z" { return 0 }
        guard let sign = text.first, sign == "+" || sign == "-" else { return nil }
        let digits = text.dropFirst().filter { $0 != ":" }
        guard digits.count == 4, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let hours = Int(digits.prefix(2)), let minutes = Int(digits.suffix(2)), hours <= 18, minutes < 60
        else { return nil }
        let seconds = hours * 3600 + minutes * 60
        return sign == "-" ? -seconds : seconds
    }
}
