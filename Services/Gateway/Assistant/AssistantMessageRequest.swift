import Foundation
import HearthDomain
import HearthRuntime

/// Body of `POST /v1/assistant/messages`. Read as strings and checked here, so every 400 names
/// its field.
struct AssistantMessageRequest: Decodable {
    var text: String
    var conversationId: String?
    var timeZone: String?

    enum CodingKeys: String, CodingKey {
        case text
        case conversationId = "conversation_id"
        case timeZone = "time_zone"
    }

    static let maxTextLength = 2000

    struct Validated: Sendable {
        var text: String
        var conversationId: UUID?
        var timeZone: TimeZone?
    }

    func validated() throws -> Validated {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw APIError.invalid("text", "text must not be empty") }
        guard text.unicodeScalars.count <= Self.maxTextLength else { throw APIError.invalid("text", "text must be at most \(Self.maxTextLength) characters") }
        var conversation: UUID?
        if let conversationId {
            guard let id = UUID(uuidString: conversationId) else { throw APIError.invalid("conversation_id", "conversation_id must be a UUID") }
            conversation = id
        }
        var zone: TimeZone?
        if let timeZone {
            guard let parsed = LocalTime.zone(named: timeZone) else {
                throw APIError.invalid("time_zone", "time_zone must be an IANA time zone name, e.g. Europe/London")
            }
            zone = parsed
        }
        return Validated(text: text, conversationId: conversation, timeZone: zone)
    }
}
