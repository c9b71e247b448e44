import Foundation

/// Why a recurrence rule was refused; the message is safe to show a client.
public struct RecurrenceRuleError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The subset of RFC 5545 `RRULE` Hearth understands: `FREQ` DAILY, WEEKLY or MONTHLY with
/// `INTERVAL`, `BYDAY` (ordinals only for MONTHLY), and at most one of `COUNT` and `UNTIL`.
/// Anything else is refused rather than half-understood, because the same rule is expanded
/// here, in the iCalendar feed's readers and by Google, and they must all agree.
public struct RecurrenceRule: Equatable, Sendable {
    public enum Frequency: String, Sendable { case daily = "DAILY", weekly = "WEEKLY", monthly = "MONTHLY" }

    /// A `BYDAY` entry: `TU`, or with an ordinal within the month, `2TU` or `-1FR`.
    public struct DayRule: Equatable, Sendable {
        public let ordinal: Int?
        public let weekday: Weekday
    }

    /// The end of a rule, as written: a date (all-day entries), a UTC instant, or a local
    /// date-time meant in the entry's zone.
    public enum Until: Equatable, Sendable {
        case date(CalendarDay)
        case instant(Date)
        case local(CalendarDay, secondsOfDay: Int)
    }

    public let frequency: Frequency
    public let interval: Int
    public let byDay: [DayRule]
    public let count: Int?
    public let until: Until?

    static let weekdayCodes = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
    static let maxCount = 1000
    static let maxInterval = 1000

    public init(frequency: Frequency, interval: Int = 1, byDay: [DayRule] = [], count: Int? = nil, until: Until? = nil) {
        self.frequency = frequency
        self.interval = interval
        self.byDay = byDay
        self.count = count
        self.until = until
    }

    /// Parses `FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10` (an `RRULE:` prefix is allowed).
    public static func parse(_ text: String) throws(RecurrenceRuleError) -> RecurrenceRule {
        var body = text.trimmingCharacters(in: .whitespaces)
        if body.uppercased().hasPrefix("RRULE:") { body = String(body.dropFirst(6)) }
        guard !body.isEmpty else { throw RecurrenceRuleError("rrule is empty") }
        var parts: [String: String] = [:]
        for part in body.split(separator: ";", omittingEmptySubsequences: false) {
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2, !pair[0].isEmpty, !pair[1].isEmpty else {
                throw RecurrenceRuleError("rrule part \"\(part)\" is not NAME=VALUE")
            }
            let name = pair[0].uppercased()
            guard parts[name] == nil else { throw RecurrenceRuleError("rrule names \(name) twice") }
            parts[name] = pair[1].uppercased()
        }
        let supported: Set<String> = ["FREQ", "INTERVAL", "BYDAY", "COUNT", "UNTIL", "WKST"]
        if let unknown = parts.keys.sorted().first(where: { !supported.contains($0) }) {
            throw RecurrenceRuleError("rrule part \(unknown) is not supported (FREQ, INTERVAL, BYDAY, COUNT, UNTIL)")
        }
        guard let freqText = parts["FREQ"] else { throw RecurrenceRuleError("rrule needs FREQ") }
        guard let frequency = Frequency(rawValue: freqText) else {
            throw RecurrenceRuleError("rrule FREQ must be DAILY, WEEKLY or MONTHLY, not \(freqText)")
        }
        if let start = parts["WKST"], start != "MO" { throw RecurrenceRuleError("rrule WKST other than MO is not supported") }
        var interval = 1
        if let text = parts["INTERVAL"] {
            guard let value = Int(text), (1...maxInterval).contains(value) else {
                throw RecurrenceRuleError("rrule INTERVAL must be a whole number from 1 to \(maxInterval)")
            }
            interval = value
        }
        var count: Int?
        if let text = parts["COUNT"] {
            guard let value = Int(text), (1...maxCount).contains(value) else {
                throw RecurrenceRuleError("rrule COUNT must be a whole number from 1 to \(maxCount)")
            }
            count = value
        }
        var until: Until?
        if let text = parts["UNTIL"] {
            guard count == nil else { throw RecurrenceRuleError("rrule may have COUNT or UNTIL, not both") }
            guard let value = parseUntil(text) else {
                throw RecurrenceRuleError("rrule UNTIL must be YYYYMMDD or YYYYMMDDTHHMMSS[Z]")
            }
            until = value
        }
        var byDay: [DayRule] = []
        if let text = parts["BYDAY"] {
            for item in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard item.count >= 2, let index = weekdayCodes.firstIndex(of: String(item.suffix(2))) else {
                    throw RecurrenceRuleError("rrule BYDAY entry \"\(item)\" is not a weekday (MO … SU)")
                }
                let prefix = item.dropLast(2)
                var ordinal: Int?
                if !prefix.isEmpty {
                    guard frequency == .monthly else {
                        throw RecurrenceRuleError("rrule BYDAY ordinals like \(item) need FREQ=MONTHLY")
                    }
                    guard let value = Int(prefix), value != 0, (-5...5).contains(value) else {
                        throw RecurrenceRuleError("rrule BYDAY ordinal in \"\(item)\" must be 1…5 or -1…-5")
                    }
                    ordinal = value
                }
                let rule = DayRule(ordinal: ordinal, weekday: Weekday(rawValue: index)!)
                if !byDay.contains(rule) { byDay.append(rule) }
            }
        }
        return RecurrenceRule(frequency: frequency, interval: interval, byDay: byDay, count: count, until: until)
    }

    private static func parseUntil(_ text: String) -> Until? {
        let digits = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= digits.count else { return nil }
            var value = 0
            for byte in digits[range] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(4..<6), let dayNumber = number(6..<8),
              let day = CalendarDay(year: year, month: month, day: dayNumber)
        else { return nil }
        if digits.count == 8 { return .date(day) }
        guard digits.count == 15 || digits.count == 16, digits[8] == UInt8(ascii: "T"),
              let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15),
              hour < 24, minute < 60, second < 60
        else { return nil }
        let seconds = hour * 3600 + minute * 60 + second
        if digits.count == 16 {
            guard digits[15] == UInt8(ascii: "Z") else { return nil }
            return .instant(Date(timeIntervalSince1970: TimeInterval(day.daysSinceEpoch * 86_400 + seconds)))
        }
        return .local(day, secondsOfDay: seconds)
    }

    /// The rule as Hearth writes it (feeds, Google, events): canonical part order, `UNTIL` in
    /// the form RFC 5545 wants beside the `DTSTART` it accompanies — a date for all-day entries,
    /// else a UTC time.
    public func text(allDay: Bool, timeZone: TimeZone) -> String {
        var parts = ["FREQ=\(frequency.rawValue)"]
        if interval != 1 { parts.append("INTERVAL=\(interval)") }
        if !byDay.isEmpty {
            parts.append("BYDAY=" + byDay.map { "\($0.ordinal.map(String.init) ?? "")\(Self.weekdayCodes[$0.weekday.rawValue])" }.joined(separator: ","))
        }
        if let count { parts.append("COUNT=\(count)") }
        if until != nil {
            if allDay {
                parts.append("UNTIL=" + ICalendarFormat.date(untilDay(in: timeZone)))
            } else {
                parts.append("UNTIL=" + ICalendarFormat.utcDateTime(untilInstant(in: timeZone)))
            }
        }
        return parts.joined(separator: ";")
    }

    /// The last local day the rule may produce, for all-day entries.
    func untilDay(in timeZone: TimeZone) -> CalendarDay {
        switch until {
        case .date(let day), .local(let day, _): day
        case .instant(let date): CalendarDay(date, in: timeZone)
        case nil: CalendarDay(year: 9999, month: 12, day: 31)!
        }
    }

    /// The last instant an occurrence may start at, for timed entries. A date `UNTIL` includes
    /// the whole of that local day.
    func untilInstant(in timeZone: TimeZone) -> Date {
        switch until {
        case .instant(let date): date
        case .local(let day, let seconds): LocalTime.instant(day: day, secondsOfDay: seconds, in: timeZone)
        case .date(let day): LocalTime.instant(day: day.adding(days: 1), secondsOfDay: 0, in: timeZone).addingTimeInterval(-1)
        case nil: .distantFuture
        }
    }
}
