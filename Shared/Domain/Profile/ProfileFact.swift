import Foundation

/// What a profile fact is about. The raw values are the wire names used in events and the API.
public enum ProfileFactKind: String, Codable, Sendable, CaseIterable, Hashable {
    case allergy, intolerance, diet, injury, goal, preference, dislike, schedule

    /// Kinds that restrict what meal planning may serve.
    public var constrainsMeals: Bool { self == .allergy || self == .intolerance }
}

/// Whether a message states a fact (`add`) or says a specific fact is not, or no longer, true.
public enum ProfileFactPolarity: String, Codable, Sendable, Hashable {
    case add, remove
}

/// One fact read from a message, before it is tied to member ids and events.
public struct ExtractedProfileFact: Sendable, Hashable, Codable {
    public var kind: ProfileFactKind
    /// A member's name exactly as the household spells it.
    public var subject: String
    /// Canonical allergen keys for allergies and intolerances, otherwise a short lower-case phrase.
    public var value: String
    public var polarity: ProfileFactPolarity
    /// 0...1: how directly the message states it.
    public var confidence: Double
    /// The part of the message the fact was read from, as written.
    public var quotedSpan: String

    public init(
        kind: ProfileFactKind, subject: String, value: String, polarity: ProfileFactPolarity, confidence: Double,
        quotedSpan: String
    ) {
        self.kind = kind
        self.subject = subject
        self.value = value
        self.polarity = polarity
        self.confidence = confidence
        self.quotedSpan = quotedSpan
    }
}
