import Foundation

/// One chat message as an extractor reads it.
public struct ProfileMessage: Sendable, Hashable {
    public var messageId: UUID
    public var chatId: UUID
    public var householdId: UUID
    public var text: String
    /// Who wrote it; first-person statements are about them.
    public var speaker: String
    /// The household's member names (and the speaker); every fact's subject is one of them.
    public var members: [String]

    public init(messageId: UUID, chatId: UUID, householdId: UUID, text: String, speaker: String, members: [String]) {
        self.messageId = messageId
        self.chatId = chatId
        self.householdId = householdId
        self.text = text
        self.speaker = speaker
        self.members = members
    }
}

/// The facts read from one message and who read them: `rules`, or `provider:model`.
public struct ProfileFactReading: Sendable, Hashable {
    public var facts: [ExtractedProfileFact]
    public var extractor: String

    public init(facts: [ExtractedProfileFact], extractor: String) {
        self.facts = facts
        self.extractor = extractor
    }
}

/// Something that reads profile facts out of chat messages: the rules, or a model with the rules
/// behind it. Throws only when the calling task is cancelled.
public protocol ProfileFactSource: Sendable {
    func read(_ message: ProfileMessage) async throws -> ProfileFactReading
}

extension ProfileFactExtractor: ProfileFactSource {
    public static let extractorName = "rules"

    public func read(_ message: ProfileMessage) async throws -> ProfileFactReading {
        ProfileFactReading(
            facts: extract(text: message.text, speaker: message.speaker, members: message.members), extractor: Self.extractorName)
    }
}
