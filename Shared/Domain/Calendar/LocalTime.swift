import Foundation

/// Wall-clock time in a zone, to and from instants. Recurrences step through local days and
/// keep the local time of day, so a weekly 18:00 stays at 18:00 across daylight-saving changes.
public enum LocalTime {
    static func calendar(_ timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    /// The instant of `day` at `secondsOfDay` local time. In a daylight-saving gap the time is
    /// pushed forward, as calendar applications do.
    public static func instant(day: CalendarDay, secondsOfDay: Int, in timeZone: TimeZone) -> Date {
        let components = DateComponents(
            year: day.year, month: day.month, day: day.day,
            hour: secondsOfDay / 3600, minute: secondsOfDay % 3600 / 60, second: secondsOfDay % 60)
        return calendar(timeZone).date(from: components)
            ?? Date(timeIntervalSince1970: TimeInterval(day.daysSinceEpoch * 86_400 + secondsOfDay) - TimeInterval(timeZone.secondsFromGMT()))
    }

    /// The local day and seconds since local midnight of `date`.
    public static func components(of date: Date, in timeZone: TimeZone) -> (day: CalendarDay, secondsOfDay: Int) {
        let parts = calendar(timeZone).dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        // Any year: an instant past 9999 (stored before entries were bounded) must not stop the process.
        let day = CalendarDay(anyYear: parts.year!, month: parts.month!, day: parts.day!)
        return (day, parts.hour! * 3600 + parts.minute! * 60 + parts.second!)
    }

    /// Parses an IANA zone name; nil for anything Foundation does not know.
    public static func zone(named name: String) -> TimeZone? {
        guard !name.isEmpty, name.count <= 64 else { return nil }
        if name == "UTC" || name == "Etc/UTC" || name == "GMT" { return TimeZone(identifier: "UTC") }
        // Foundation also accepts abbreviations ("EST") and offsets; only region names are IANA ids.
        guard TimeZone.knownTimeZoneIdentifiers.contains(name) else { return nil }
        return TimeZone(identifier: name)
    }
}
