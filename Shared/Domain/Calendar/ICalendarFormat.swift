import Foundation

/// The value syntaxes of RFC 5545 that Hearth writes: dates, date-times, escaped TEXT and folded
/// content lines.
public enum ICalendarFormat {
    /// `20260303`.
    public static func date(_ day: CalendarDay) -> String {
        String(format: "%04d%02d%02d", day.year, day.month, day.day)
    }

    /// `20260303T170000Z`.
    public static func utcDateTime(_ date: Date) -> String {
        let (day, seconds) = LocalTime.components(of: date, in: TimeZone(identifier: "UTC")!)
        return localDateTime(day, secondsOfDay: seconds) + "Z"
    }

    /// `20260303T180000` (floating; used with a `TZID`).
    public static func localDateTime(_ day: CalendarDay, secondsOfDay: Int) -> String {
        date(day) + String(format: "T%02d%02d%02d", secondsOfDay / 3600, secondsOfDay % 3600 / 60, secondsOfDay % 60)
    }

    /// TEXT escaping (§3.3.11): backslash, semicolon and comma get a backslash, line breaks become
    /// `\n`. Other control characters are not allowed in TEXT and are dropped.
    public static func escapeText(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case ";": escaped += "\\;"
            case ",": escaped += "\\,"
            case "\r": escaped += "\\n"
            case "\n": if !previousWasCR { escaped += "\\n" }
            case "\t": escaped.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F { break }
                escaped.unicodeScalars.append(scalar)
            }
            previousWasCR = scalar == "\r"
        }
        return escaped
    }

    /// Folds one content line (§3.1): no physical line longer than 75 octets, continuation lines
    /// start with a space, and a break never falls inside a UTF-8 sequence. Ends with CRLF.
    public static func fold(_ line: String) -> String {
        var output = ""
        var lineOctets = 0
        var limit = 75
        for scalar in line.unicodeScalars {
            let size = UTF8.width(scalar)
            if lineOctets + size > limit {
                output += "\r\n "
                lineOctets = 1
                limit = 75
            }
            output.unicodeScalars.append(scalar)
            lineOctets += size
        }
        return output + "\r\n"
    }
}
