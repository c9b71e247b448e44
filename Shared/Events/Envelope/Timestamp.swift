import Foundation

/// RFC 3339 UTC timestamps with millisecond precision, the one time format on the wire.
/// Times are kept to the millisecond everywhere (the wire format's precision), so a time survives
/// encoding and decoding unchanged.
public enum Timestamp {
    /// The same instant, rounded to whole milliseconds.
    public static func rounded(_ date: Date) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds(date)) / 1000)
    }

    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`, written by hand: this runs for every event and log line.
    public static func format(_ date: Date) -> String {
        let total = milliseconds(date)
        let millis = Int((total % 1000 + 1000) % 1000)
        var seconds = time_t((total - Int64(millis)) / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var bytes = [UInt8]()
        bytes.reserveCapacity(24)
        func put(_ value: Int, digits: Int) {
            var divisor = 1
            for _ in 1..<digits { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        put(Int(parts.tm_year) + 1900, digits: 4); bytes.append(UInt8(ascii: "-"))
        put(Int(parts.tm_mon) + 1, digits: 2); bytes.append(UInt8(ascii: "-"))
        put(Int(parts.tm_mday), digits: 2); bytes.append(UInt8(ascii: "T"))
        put(Int(parts.tm_hour), digits: 2); bytes.append(UInt8(ascii: ":"))
        put(Int(parts.tm_min), digits: 2); bytes.append(UInt8(ascii: ":"))
        put(Int(parts.tm_sec), digits: 2); bytes.append(UInt8(ascii: "."))
        put(millis, digits: 3); bytes.append(UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads RFC 3339: `YYYY-MM-DDTHH:MM:SS`, an optional fraction of 1 to 9 digits, then `Z` or
    /// an offset `±HH:MM` (the letters may be lower case). Every field must be in range: a client
    /// that writes 25:00 or a 13th month gets an error, not a time moved to the next day.
    public static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes -> Date? in
            guard bytes.count >= 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
                  bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
                  bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
            else { return nil }
            func number(_ from: Int, _ count: Int) -> Int? {
                guard from + count <= bytes.count else { return nil }
                var value = 0
                for index in from..<(from + count) {
                    let digit = Int(bytes[index]) - 48
                    guard (0...9).contains(digit) else { return nil }
                    value = value * 10 + digit
                }
                return value
            }
            guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
                  let minute = number(14, 2), let second = number(17, 2),
                  (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour < 24, minute < 60, second < 60
            else { return nil }
            var index = 19
            var millis = 0
            if bytes[index] == UInt8(ascii: ".") {
                // 1 to 9 digits, rounded to the millisecond like `rounded`.
                var digits = 0
                while index + 1 + digits < bytes.count, (48...57).contains(bytes[index + 1 + digits]) { digits += 1 }
                guard (1...9).contains(digits), let fraction = number(index + 1, digits) else { return nil }
                var scale = 1
                for _ in 0..<digits { scale *= 10 }
                millis = Int((Double(fraction) * 1000 / Double(scale)).rounded())
                index += 1 + digits
            }
            guard index < bytes.count else { return nil }
            var offsetSeconds = 0
            switch bytes[index] {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                guard index + 1 == bytes.count else { return nil }
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                guard index + 6 == bytes.count, bytes[index + 3] == UInt8(ascii: ":"),
                      let offsetHours = number(index + 1, 2), let offsetMinutes = number(index + 4, 2), offsetHours < 24, offsetMinutes < 60
                else { return nil }
                offsetSeconds = (offsetHours * 3600 + offsetMinutes * 60) * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
            default:
                return nil
            }
            let days = daysSinceEpoch(year: year, month: month, day: day)
            let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second - offsetSeconds)
            return Date(timeIntervalSince1970: Double(seconds * 1000 + Int64(millis)) / 1000)
        }
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

extension JSONEncoder {
    /// The encoder every event and API body goes through: snake_case keys come from explicit
    /// coding keys, dates are RFC 3339 UTC.
    public static func hearth() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.format(date))
        }
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }
}

extension JSONDecoder {
    public static func hearth() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = Timestamp.parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an RFC 3339 time: \(text)")
            }
            return date
        }
        return decoder
    }
}
