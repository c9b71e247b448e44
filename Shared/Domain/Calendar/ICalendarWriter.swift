import Foundation

/// Writes a household calendar as an RFC 5545 `VCALENDAR`.
///
/// Single timed entries are written in UTC. Recurring timed entries outside UTC are written with
/// `TZID` and a `VTIMEZONE`, because a reader expanding a weekly 18:00 in UTC would move it by
/// an hour at every daylight-saving change. All-day entries are `VALUE=DATE` (end exclusive).
/// The output depends only on the entries (`DTSTAMP` is the entry's last change), so the same
/// calendar always produces the same bytes.
public struct ICalendarWriter: Sendable {
    public let productId: String
    public let calendarName: String
    public let uidDomain: String

    public init(productId: String = "-//Hearth//Household Calendar 1.0//EN", calendarName: String, uidDomain: String = "hearth") {
        self.productId = productId
        self.calendarName = calendarName
        self.uidDomain = uidDomain
    }

    /// The stable `UID` of an entry.
    public func uid(of entry: CalendarEntry) -> String { "\(entry.id.uuidString.lowercased())@\(uidDomain)" }

    public func write(_ entries: [CalendarEntry]) -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:\(ICalendarFormat.escapeText(productId))", "CALSCALE:GREGORIAN",
                     "METHOD:PUBLISH", "X-WR-CALNAME:\(ICalendarFormat.escapeText(calendarName))"]
        let zoned = entries.filter(Self.usesZone)
        let zones = Dictionary(grouping: zoned, by: { $0.timeZone.identifier })
        for name in zones.keys.sorted() {
            let group = zones[name]!
            let earliest = group.map(\.start).min()!
            lines += VTimeZoneWriter.lines(for: group[0].timeZone, from: earliest)
        }
        for entry in entries.sorted(by: { ($0.start, $0.id.uuidString) < ($1.start, $1.id.uuidString) }) {
            lines += event(entry)
        }
        lines.append("END:VCALENDAR")
        return lines.map(ICalendarFormat.fold).joined()
    }

    static func usesZone(_ entry: CalendarEntry) -> Bool {
        !entry.allDay && entry.rule != nil && entry.timeZone.identifier != "UTC" && entry.timeZone.identifier != "GMT"
    }

    func event(_ entry: CalendarEntry) -> [String] {
        var lines = ["BEGIN:VEVENT", "UID:\(uid(of: entry))", "DTSTAMP:\(ICalendarFormat.utcDateTime(entry.updatedAt))",
                     "SEQUENCE:\(entry.sequence)"]
        if entry.allDay {
            let first = LocalTime.components(of: entry.start, in: entry.timeZone).day
            var last = LocalTime.components(of: entry.end, in: entry.timeZone).day
            if last <= first { last = first.adding(days: 1) }
            lines.append("DTSTART;VALUE=DATE:\(ICalendarFormat.date(first))")
            lines.append("DTEND;VALUE=DATE:\(ICalendarFormat.date(last))")
        } else if Self.usesZone(entry) {
            let zone = entry.timeZone
            let start = LocalTime.components(of: entry.start, in: zone), end = LocalTime.components(of: entry.end, in: zone)
            lines.append("DTSTART;TZID=\(zone.identifier):\(ICalendarFormat.localDateTime(start.day, secondsOfDay: start.secondsOfDay))")
            lines.append("DTEND;TZID=\(zone.identifier):\(ICalendarFormat.localDateTime(end.day, secondsOfDay: end.secondsOfDay))")
        } else {
            lines.append("DTSTART:\(ICalendarFormat.utcDateTime(entry.start))")
            lines.append("DTEND:\(ICalendarFormat.utcDateTime(entry.end))")
        }
        if let rule = entry.rule { lines.append("RRULE:\(rule.text(allDay: entry.allDay, timeZone: entry.timeZone))") }
        lines.append("SUMMARY:\(ICalendarFormat.escapeText(entry.title))")
        if let location = entry.location, !location.isEmpty { lines.append("LOCATION:\(ICalendarFormat.escapeText(location))") }
        lines.append("CATEGORIES:\(ICalendarFormat.escapeText(entry.kind.uppercased()))")
        lines.append("END:VEVENT")
        return lines
    }
}

/// A `VTIMEZONE` built from the zone's actual transitions: one `STANDARD` or `DAYLIGHT`
/// sub-component per transition from a year before the earliest entry to twenty years after,
/// each with its own `DTSTART`, so no rule has to be inferred from Foundation's data.
enum VTimeZoneWriter {
    static func lines(for zone: TimeZone, from earliest: Date) -> [String] {
        var lines = ["BEGIN:VTIMEZONE", "TZID:\(zone.identifier)"]
        let start = earliest.addingTimeInterval(-366 * 86_400)
        let end = earliest.addingTimeInterval(20 * 366 * 86_400)
        var components: [[String]] = []
        // The offset in force at the start, so readers have a base even without transitions.
        let baseOffset = zone.secondsFromGMT(for: start)
        components.append(component(
            kind: zone.isDaylightSavingTime(for: start) ? "DAYLIGHT" : "STANDARD", at: start, offsetFrom: baseOffset, offsetTo: baseOffset, zone: zone))
        var cursor = start
        while let transition = zone.nextDaylightSavingTimeTransition(after: cursor), transition < end, components.count < 200 {
            let before = zone.secondsFromGMT(for: transition.addingTimeInterval(-1))
            let after = zone.secondsFromGMT(for: transition)
            components.append(component(
                kind: zone.isDaylightSavingTime(for: transition) ? "DAYLIGHT" : "STANDARD", at: transition, offsetFrom: before, offsetTo: after, zone: zone))
            cursor = transition
        }
        for component in components { lines += component }
        lines.append("END:VTIMEZONE")
        return lines
    }

    static func component(kind: String, at instant: Date, offsetFrom: Int, offsetTo: Int, zone: TimeZone) -> [String] {
        // DTSTART of an observance is the local time before the transition (in the old offset).
        let local = instant.addingTimeInterval(TimeInterval(offsetFrom))
        let (day, seconds) = LocalTime.components(of: local, in: TimeZone(identifier: "UTC")!)
        return ["BEGIN:\(kind)", "DTSTART:\(ICalendarFormat.localDateTime(day, secondsOfDay: seconds))",
                "TZOFFSETFROM:\(offset(offsetFrom))", "TZOFFSETTO:\(offset(offsetTo))", "END:\(kind)"]
    }

    static func offset(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let value = abs(seconds)
        return sign + String(format: "%02d%02d", value / 3600, value % 3600 / 60)
    }
}
