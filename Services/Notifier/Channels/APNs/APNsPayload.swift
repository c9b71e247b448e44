import Foundation

/// The JSON body of one push: `aps.alert` (title, body), badge, sound, thread id, and Hearth's
/// own keys beside `aps`. APNs refuses bodies over 4 KB, so a long body (then title) is cut,
/// on a character boundary, with an ellipsis, until the whole document fits.
public struct APNsPayload: Sendable, Equatable {
    public static let maximumBytes = 4096

    public var title: String
    public var body: String?
    public var badge: Int?
    public var sound: String?
    public var threadId: String?
    /// The app's notification category: which actions the notification offers (an allergen
    /// check-in's "All fine" / "Report a reaction").
    public var category: String?
    /// Extra top-level string keys for the app (`reminder_id`, `notification_id`).
    public var custom: [String: String]
    /// A badge-only push: `aps` holds the badge alone, no alert and no sound.
    public var silent = false

    public init(
        title: String, body: String?, badge: Int? = nil, sound: String? = "default", threadId: String? = nil, category: String? = nil,
        custom: [String: String] = [:]
    ) {
        self.title = title
        self.body = body
        self.badge = badge
        self.sound = sound
        self.threadId = threadId
        self.category = category
        self.custom = custom
    }

    /// A badge-only push: the app's badge changes, nothing is shown or heard.
    public static func silent(badge: Int, custom: [String: String] = [:]) -> APNsPayload {
        var payload = APNsPayload(title: "", body: nil, badge: badge, sound: nil, custom: custom)
        payload.silent = true
        return payload
    }

    private struct Document: Encodable {
        struct Aps: Encodable {
            struct Alert: Encodable {
                var title: String
                var body: String?
            }
            var alert: Alert?
            var badge: Int?
            var sound: String?
            var threadId: String?
            var category: String?

            enum CodingKeys: String, CodingKey {
                case alert, badge, sound
                case threadId = "thread-id"
                case category
            }
        }
        var aps: Aps
        var custom: [String: String]

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(aps, forKey: Key(stringValue: "aps"))
            for (key, value) in custom where key != "aps" {
                try container.encode(value, forKey: Key(stringValue: key))
            }
        }
    }

    private func document(title: String, body: String?) -> Document {
        Document(
            aps: .init(
                alert: silent ? nil : .init(title: title, body: body), badge: badge, sound: silent ? nil : sound, threadId: silent ? nil : threadId,
                category: silent ? nil : category),
            custom: custom)
    }

    private static func encode(_ document: Document) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(document)
    }

    /// The body as sent, at most `maximumBytes` long.
    public func encoded() throws -> Data {
        var title = self.title
        var body = self.body
        var data = try Self.encode(document(title: title, body: body))
        while data.count > Self.maximumBytes {
            let excess = data.count - Self.maximumBytes
            if let current = body, !current.isEmpty {
                body = Self.shortened(current, by: excess)
            } else if !title.isEmpty {
                title = Self.shortened(title, by: excess)
            } else {
                throw APNsPayloadTooLarge(bytes: data.count)
            }
            data = try Self.encode(document(title: title, body: body))
        }
        return data
    }

    /// Drops at least `excess` bytes (plus room for the ellipsis) from the end of `text`.
    static func shortened(_ text: String, by excess: Int) -> String {
        var kept = Substring(text)
        var dropped = 0
        let ellipsis = "…"
        let target = excess + ellipsis.utf8.count
        while dropped < target, let last = kept.last {
            // Escaped characters take more room in JSON than in UTF-8; counting the escaped
            // form keeps the loop from needing many rounds.
            dropped += String(last).utf8.count + (last == "\"" || last == "\\" ? 1 : 0)
            kept = kept.dropLast()
        }
        return kept.isEmpty ? "" : String(kept) + ellipsis
    }
}

public struct APNsPayloadTooLarge: Error, CustomStringConvertible {
    public let bytes: Int
    public var description: String { "APNs payload is \(bytes) bytes even without title and body" }
}
