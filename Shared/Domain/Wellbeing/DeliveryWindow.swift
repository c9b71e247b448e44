import Foundation

/// Why a delivery window was refused, naming the JSON field at fault.
public enum DeliveryWindowError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `start` or `end` is not a 24-hour `HH:mm` time ("25:00", "7:5x", "7:05").
    case badTime(field: Field, value: String)
    /// `time_zone` is not an IANA zone `TimeZone(identifier:)` knows.
    case unknownTimeZone(value: String)
    /// `start` equals `end`. Refused rather than read as "always open": a user who means "any
    /// time" should say 00:00–23:59, and an accidental empty window must not silence reminders.
    case sameStartAndEnd

    public enum Field: String, Sendable, Equatable, CaseIterable {
        case start
        case end
        case timeZone = "time_zone"
    }

    /// The field to point at in an API error; `end` for an empty window, set against `start`.
    public var field: Field {
        switch self {
        case .badTime(let field, _): return field
        case .unknownTimeZone: return .timeZone
        case .sameStartAndEnd: return .end
        }
    }

    public var reason: String {
        switch self {
        case .badTime(_, let value): return "\"\(value)\" is not a time as HH:mm (00:00 to 23:59)"
        case .unknownTimeZone(let value): return "\"\(value)\" is not a known IANA time zone"
        case .sameStartAndEnd: return "start and end are the same"
        }
    }

    public var description: String { "\(field.rawValue): \(reason)" }
}

/// The daily stretch of local wall-clock time in which wellbeing reminders may be delivered.
///
/// `start` is inside the window and `end` is not. A window whose start is later than its end runs
/// over midnight (22:00–07:00). Times are read on the wall clock of `timeZone`, so the window
/// follows DST: on a spring-forward day a start the clock skips opens at the first instant after
/// the gap (if the window still has minutes left then), and on a fall-back day a start the clock
/// shows twice opens at the first of the two. Encoded as `{"start": "08:00", "end": "21:00",
/// "time_zone": "Europe/Paris"}`.
public struct DeliveryWindow: Codable, Sendable, Hashable {
    public static let defaultStart = "08:00"
    public static let defaultEnd = "21:00"

    /// `HH:mm`, as given.
    public let start: String
    /// `HH:mm`, as given.
    public let end: String
    /// The IANA identifier, as given.
    public let timeZone: String
    public let zone: TimeZone
    let startMinute: Int
    let endMinute: Int

    public init(start: String, end: String, timeZone: String) throws(DeliveryWindowError) {
        guard let startMinute = Self.minuteOfDay(start) else { throw .badTime(field: .start, value: start) }
        guard let endMinute = Self.minuteOfDay(end) else { throw .badTime(field: .end, value: end) }
        guard !timeZone.isEmpty, let zone = TimeZone(identifier: timeZone) else { throw .unknownTimeZone(value: timeZone) }
        guard startMinute != endMinute else { throw .sameStartAndEnd }
        self.start = start
        self.end = end
        self.timeZone = timeZone
        self.zone = zone
        self.startMinute = startMinute
        self.endMinute = endMinute
    }

    public static func parse(start: String, end: String, timeZone: String) throws(DeliveryWindowError) -> DeliveryWindow {
        try DeliveryWindow(start: start, end: end, timeZone: timeZone)
    }

    /// 08:00–21:00 in `zone`.
    public static func standard(in zone: TimeZone) -> DeliveryWindow {
        DeliveryWindow(checkedStart: 8 * 60, end: 21 * 60, zone: zone)
    }

    private init(checkedStart: Int, end: Int, zone: TimeZone) {
        self.start = Self.clockText(checkedStart)
        self.end = Self.clockText(end)
        self.timeZone = zone.identifier
        self.zone = zone
        self.startMinute = checkedStart
        self.endMinute = end
    }

    public var crossesMidnight: Bool { startMinute > endMinute }

    /// Whether the wall clock in the zone reads a time inside the window at `instant`.
    public func contains(_ instant: Date) -> Bool {
        let wall = WellbeingClock.wallSeconds(instant, in: zone)
        let seconds = wall - WellbeingClock.floorDiv(wall, WellbeingClock.secondsPerDay) * WellbeingClock.secondsPerDay
        return isInside(minute: seconds / 60)
    }

    /// `instant` when it is inside the window, else the earliest later instant that is.
    ///
    /// The window can only open where the wall clock reaches `start` or where the zone's offset
    /// changes (a spring-forward gap jumping over `start`, or a fall-back landing inside the
    /// window), so those are the only candidates looked at.
    public func nextOpening(atOrAfter instant: Date) -> Date {
        if contains(instant) { return instant }
        let base = WellbeingClock.seconds(instant)
        let today = WellbeingClock.day(instant, in: zone)
        var candidates: [Int] = []
        // Three days ahead covers a start skipped by a gap tomorrow.
        for day in (today - 1)...(today + 3) {
            candidates += occurrences(ofWallSecond: day * WellbeingClock.secondsPerDay + startMinute * 60)
        }
        candidates += offsetChanges(from: base, to: base + 4 * WellbeingClock.secondsPerDay)
        let time = instant.timeIntervalSince1970
        let opening = candidates
            .filter { TimeInterval($0) > time && contains(Date(timeIntervalSince1970: TimeInterval($0))) }
            .min()
        if let opening { return Date(timeIntervalSince1970: TimeInterval(opening)) }
        // Unreachable for real zones; a plain reading of tomorrow's start keeps the result total.
        let wall = (today + 1) * WellbeingClock.secondsPerDay + startMinute * 60
        return Date(timeIntervalSince1970: TimeInterval(wall - WellbeingClock.offset(atSecond: wall, in: zone)))
    }

    // MARK: Codable

    enum CodingKeys: String, CodingKey {
        case start, end
        case timeZone = "time_zone"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let start = try container.decode(String.self, forKey: .start)
        let end = try container.decode(String.self, forKey: .end)
        let timeZone = try container.decode(String.self, forKey: .timeZone)
        do {
            self = try DeliveryWindow(start: start, end: end, timeZone: timeZone)
        } catch {
            let key: CodingKeys = switch error.field {
            case .start: .start
            case .end: .end
            case .timeZone: .timeZone
            }
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(start, forKey: .start)
        try container.encode(end, forKey: .end)
        try container.encode(timeZone, forKey: .timeZone)
    }

    // MARK: Internals

    func isInside(minute: Int) -> Bool {
        startMinute < endMinute ? (minute >= startMinute && minute < endMinute) : (minute >= startMinute || minute < endMinute)
    }

    /// Exactly two digits, a colon, exactly two digits (`LocalClockTime`, as quiet hours read
    /// them): the form the settings screen sends, so anything else is more likely a bug than a preference.
    static func minuteOfDay(_ text: String) -> Int? {
        LocalClockTime(text)?.minutesIntoDay
    }

    static func clockText(_ minuteOfDay: Int) -> String {
        LocalClockTime(hour: minuteOfDay / 60, minute: minuteOfDay % 60)!.description
    }

    /// Every instant (whole seconds) whose wall-clock reading is `wall`: none in a spring-forward
    /// gap, two in a fall-back overlap. Offsets are sampled a day and a half either side, which
    /// catches any offset in force near `wall` since no zone changes offset twice in that time.
    func occurrences(ofWallSecond wall: Int) -> [Int] {
        var offsets: Set<Int> = []
        for hours in stride(from: -36, through: 36, by: 12) {
            offsets.insert(WellbeingClock.offset(atSecond: wall + hours * 3600, in: zone))
        }
        return offsets
            .map { wall - $0 }
            .filter { WellbeingClock.wallSeconds(Date(timeIntervalSince1970: TimeInterval($0)), in: zone) == wall }
            .sorted()
    }

    /// The first second of each offset change in `from..<to`, found by hourly sampling and then
    /// bisection (offsets never change twice within an hour).
    func offsetChanges(from: Int, to: Int) -> [Int] {
        var changes: [Int] = []
        var cursor = from
        var currentOffset = WellbeingClock.offset(atSecond: from, in: zone)
        while cursor < to {
            let next = min(cursor + 3600, to)
            let nextOffset = WellbeingClock.offset(atSecond: next, in: zone)
            if nextOffset != currentOffset {
                var low = cursor, high = next
                while high - low > 1 {
                    let middle = low + (high - low) / 2
                    if WellbeingClock.offset(atSecond: middle, in: zone) == currentOffset { low = middle } else { high = middle }
                }
                changes.append(high)
                currentOffset = nextOffset
            }
            cursor = next
        }
        return changes
    }
}
