import Foundation

/// RFC 3339 UTC timestamps with millisecond precision, the one time format on the wire.
public enum Timestamp {
    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
    private static let plainStyle = Date.ISO8601FormatStyle(timeZone: .gmt)

    public static func format(_ date: Date) -> String {
        date.formatted(style)
    }

    /// Accepts RFC 3339 with or without fractional seconds, with `Z` or a numeric offset.
    public static func parse(_ text: String) -> Date? {
        if let date = try? style.parse(text) { return date }
        if let date = try? plainStyle.parse(text) { return date }
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
