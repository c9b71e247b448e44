import Foundation

/// RFC 3339 UTC timestamps with millisecond precision, the one time format on the wire.
/// Times are kept to the millisecond everywhere (the wire format's precision), so a time survives
/// encoding and decoding unchanged.
public enum Timestamp {
    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
    private static let plainStyle = Date.ISO8601FormatStyle(timeZone: .gmt)

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

    /// Accepts RFC 3339 with or without fractional seconds, with `Z` or a numeric offset.
    public static func parse(_ text: String) -> Date? {
        if let date = try? style.parse(text) { return rounded(date) }
        if let date = try? plainStyle.parse(text) { return rounded(date) }
        return nil
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
