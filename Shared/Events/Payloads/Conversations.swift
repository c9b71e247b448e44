import Foundation

/// `chat.created` v1: a household chat and the users who may read and write it. Keyed by chat,
/// like every chat event, so a chat's events stay in order.
public struct ChatCreated: EventPayload {
    public static let eventType = "chat.created"
    public static let version = 1
    public static let topic = Topic.chats
    public static let privacy = PayloadPrivacy(
        personal: ["title": .household("household_id")],
        notPersonal: ["chat_id", "household_id", "member_ids", "created_by"])

    public var chatId: UUID
    public var householdId: UUID
    public var title: String?
    /// User ids; the creator is always one of them.
    public var memberIds: [UUID]
    public var createdBy: UUID

    public var aggregateKey: String { chatId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case chatId = "chat_id"
        case householdId = "household_id"
        case title
        case memberIds = "member_ids"
        case createdBy = "created_by"
    }

    public init(chatId: UUID, householdId: UUID, title: String?, memberIds: [UUID], createdBy: UUID) {
        self.chatId = chatId
        self.householdId = householdId
        self.title = title
        self.memberIds = memberIds
        self.createdBy = createdBy
    }
}

/// `chat.message_sent` v1: one message. `message_id` is derived from chat, author and
/// `client_id`, so a retried send names the same message and is applied once.
public struct ChatMessageSent: EventPayload {
    public static let eventType = "chat.message_sent"
    public static let version = 1
    public static let topic = Topic.chats
    public static let privacy = PayloadPrivacy(
        personal: [
            "author_name": .user("author_id", erased: .string("deleted user")),
            "text": .user("author_id", erased: .string("")),
        ],
        notPersonal: ["message_id", "chat_id", "household_id", "author_id", "client_id"])

    public var messageId: UUID
    public var chatId: UUID
    public var householdId: UUID
    public var authorId: UUID
    /// The author's display name when sent: extraction reads "I" as this person.
    public var authorName: String
    public var text: String
    public var clientId: String

    public var aggregateKey: String { chatId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case messageId = "message_id"
        case chatId = "chat_id"
        case householdId = "household_id"
        case authorId = "author_id"
        case authorName = "author_name"
        case text
        case clientId = "client_id"
    }

    public init(messageId: UUID, chatId: UUID, householdId: UUID, authorId: UUID, authorName: String, text: String, clientId: String) {
        self.messageId = messageId
        self.chatId = chatId
        self.householdId = householdId
        self.authorId = authorId
        self.authorName = authorName
        self.text = text
        self.clientId = clientId
    }
}

/// `chat.media_shared` v1: a message carrying an image (JPEG or PNG, stored by the gateway in
/// `chat_media` before this is published: the event names it by id and SHA-256, never the bytes),
/// with an optional caption. The message id is derived like a text message's, from chat, author
/// and `client_id`.
public struct ChatMediaShared: EventPayload {
    public static let eventType = "chat.media_shared"
    public static let version = 1
    public static let topic = Topic.chats
    public static let privacy = PayloadPrivacy(
        personal: [
            "author_name": .user("author_id", erased: .string("deleted user")),
            "caption": .user("author_id", erased: .string("")),
        ],
        notPersonal: [
            "message_id", "chat_id", "household_id", "author_id", "client_id", "media_id", "media_type", "media_size", "media_width",
            "media_height", "sha256",
        ])

    public var messageId: UUID
    public var chatId: UUID
    public var householdId: UUID
    public var authorId: UUID
    public var authorName: String
    public var caption: String
    public var clientId: String
    public var mediaId: UUID
    /// `image/jpeg` or `image/png`.
    public var mediaType: String
    /// Bytes of the original.
    public var mediaSize: Int
    public var mediaWidth: Int
    public var mediaHeight: Int
    public var sha256: String

    public var aggregateKey: String { chatId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case messageId = "message_id"
        case chatId = "chat_id"
        case householdId = "household_id"
        case authorId = "author_id"
        case authorName = "author_name"
        case caption
        case clientId = "client_id"
        case mediaId = "media_id"
        case mediaType = "media_type"
        case mediaSize = "media_size"
        case mediaWidth = "media_width"
        case mediaHeight = "media_height"
        case sha256
    }

    public init(
        messageId: UUID, chatId: UUID, householdId: UUID, authorId: UUID, authorName: String, caption: String, clientId: String, mediaId: UUID,
        mediaType: String, mediaSize: Int, mediaWidth: Int, mediaHeight: Int, sha256: String
    ) {
        self.messageId = messageId
        self.chatId = chatId
        self.householdId = householdId
        self.authorId = authorId
        self.authorName = authorName
        self.caption = caption
        self.clientId = clientId
        self.mediaId = mediaId
        self.mediaType = mediaType
        self.mediaSize = mediaSize
        self.mediaWidth = mediaWidth
        self.mediaHeight = mediaHeight
        self.sha256 = sha256
    }
}

/// `chat.read` v1: a member has read a chat up to and including a message.
public struct ChatRead: EventPayload {
    public static let eventType = "chat.read"
    public static let version = 1
    public static let topic = Topic.chats
    public static let privacy = PayloadPrivacy.nothingPersonal(["chat_id", "user_id", "up_to"])

    public var chatId: UUID
    public var userId: UUID
    public var upTo: UUID

    public var aggregateKey: String { chatId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case chatId = "chat_id"
        case userId = "user_id"
        case upTo = "up_to"
    }

    public init(chatId: UUID, userId: UUID, upTo: UUID) {
        self.chatId = chatId
        self.userId = userId
        self.upTo = upTo
    }
}

/// `profile.fact_extracted` v1: a fact about a household member read from a message, with its
/// provenance. Keyed by household so that a household's facts, confirmations and rejections
/// are applied in order. `fact_id` is derived from the message and the fact, so extracting the
/// same message again names the same fact.
public struct ProfileFactExtracted: EventPayload {
    public static let eventType = "profile.fact_extracted"
    public static let version = 1
    public static let topic = Topic.profile
    public static let privacy = PayloadPrivacy(
        personal: [
            "subject": .household("household_id", erased: .string("")),
            "value": .household("household_id", erased: .string("")),
            "quoted_span": .household("household_id", erased: .string("")),
        ],
        notPersonal: [
            "fact_id", "household_id", "member_id", "kind", "polarity", "confidence", "message_id", "chat_id", "extractor",
        ])

    public var factId: UUID
    public var householdId: UUID
    /// The household member the fact is about; nil when the subject is a user who is not a
    /// planned-for member.
    public var memberId: UUID?
    public var subject: String
    /// `allergy`, `intolerance`, `diet`, `injury`, `goal`, `preference`, `dislike`, `schedule`.
    public var kind: String
    public var value: String
    /// `add` or `remove`.
    public var polarity: String
    public var confidence: Double
    public var messageId: UUID
    public var chatId: UUID
    public var quotedSpan: String
    /// `rules` or a model name.
    public var extractor: String

    public var aggregateKey: String { householdId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case factId = "fact_id"
        case householdId = "household_id"
        case memberId = "member_id"
        case subject, kind, value, polarity, confidence
        case messageId = "message_id"
        case chatId = "chat_id"
        case quotedSpan = "quoted_span"
        case extractor
    }

    public init(
        factId: UUID, householdId: UUID, memberId: UUID?, subject: String, kind: String, value: String, polarity: String,
        confidence: Double, messageId: UUID, chatId: UUID, quotedSpan: String, extractor: String
    ) {
        self.factId = factId
        self.householdId = householdId
        self.memberId = memberId
        self.subject = subject
        self.kind = kind
        self.value = value
        self.polarity = polarity
        self.confidence = confidence
        self.messageId = messageId
        self.chatId = chatId
        self.quotedSpan = quotedSpan
        self.extractor = extractor
    }
}

/// `profile.fact_extracted` v2: v1 plus `unknown_subject`, true when the fact is about someone
/// named who is nobody in the household yet ("Sam is allergic to sesame" with no Sam): it is kept
/// under the name as written, constrains nothing, and waits for the household to link it to a
/// member (`profile.fact_linked`). v1 facts were all about members or the speaker.
public struct ProfileFactExtractedV2: EventPayload {
    public static let eventType = ProfileFactExtracted.eventType
    public static let version = 2
    public static let topic = Topic.profile
    public static let privacy = PayloadPrivacy(
        personal: [
            "subject": .household("household_id", erased: .string("")),
            "value": .household("household_id", erased: .string("")),
            "quoted_span": .household("household_id", erased: .string("")),
        ],
        notPersonal: [
            "fact_id", "household_id", "member_id", "kind", "polarity", "confidence", "message_id", "chat_id", "extractor",
            "unknown_subject",
        ])

    public var factId: UUID
    public var householdId: UUID
    /// The member the fact is about; nil for the speaker when they are not a planned-for member,
    /// and for an unknown subject.
    public var memberId: UUID?
    public var subject: String
    public var kind: String
    public var value: String
    public var polarity: String
    public var confidence: Double
    public var messageId: UUID
    public var chatId: UUID
    public var quotedSpan: String
    public var extractor: String
    public var unknownSubject: Bool

    public var aggregateKey: String { householdId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case factId = "fact_id"
        case householdId = "household_id"
        case memberId = "member_id"
        case subject, kind, value, polarity, confidence
        case messageId = "message_id"
        case chatId = "chat_id"
        case quotedSpan = "quoted_span"
        case extractor
        case unknownSubject = "unknown_subject"
    }

    public init(
        factId: UUID, householdId: UUID, memberId: UUID?, subject: String, kind: String, value: String, polarity: String,
        confidence: Double, messageId: UUID, chatId: UUID, quotedSpan: String, extractor: String, unknownSubject: Bool
    ) {
        self.factId = factId
        self.householdId = householdId
        self.memberId = memberId
        self.subject = subject
        self.kind = kind
        self.value = value
        self.polarity = polarity
        self.confidence = confidence
        self.messageId = messageId
        self.chatId = chatId
        self.quotedSpan = quotedSpan
        self.extractor = extractor
        self.unknownSubject = unknownSubject
    }

    /// v1 → v2: every v1 fact named a member or the speaker.
    public static let upcasterFromV1 = Upcaster(eventType: eventType, fromVersion: 1) { payload in
        guard case .object(var fields) = payload else { return payload }
        if fields["unknown_subject"] == nil { fields["unknown_subject"] = .bool(false) }
        return .object(fields)
    }
}

/// `profile.fact_linked` v1: a household member said who an unknown subject is: the fact is now
/// about `member_id` (named `subject`), and constrains plans from now on if it is a safety fact
/// (an allergy or intolerance being added) that was not rejected.
public struct ProfileFactLinked: EventPayload {
    public static let eventType = "profile.fact_linked"
    public static let version = 1
    public static let topic = Topic.profile
    public static let privacy = PayloadPrivacy(
        personal: ["subject": .household("household_id", erased: .string(""))],
        notPersonal: ["fact_id", "household_id", "member_id", "linked_by"])

    public var factId: UUID
    public var householdId: UUID
    public var memberId: UUID
    /// The member's name, which the fact's subject becomes.
    public var subject: String
    public var linkedBy: UUID

    public var aggregateKey: String { householdId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case factId = "fact_id"
        case householdId = "household_id"
        case memberId = "member_id"
        case subject
        case linkedBy = "linked_by"
    }

    public init(factId: UUID, householdId: UUID, memberId: UUID, subject: String, linkedBy: UUID) {
        self.factId = factId
        self.householdId = householdId
        self.memberId = memberId
        self.subject = subject
        self.linkedBy = linkedBy
    }
}

/// `profile.fact_confirmed` v1: a household member vouched for an extracted fact.
public struct ProfileFactConfirmed: EventPayload {
    public static let eventType = "profile.fact_confirmed"
    public static let version = 1
    public static let topic = Topic.profile
    public static let privacy = PayloadPrivacy.nothingPersonal(["fact_id", "household_id", "confirmed_by"])

    public var factId: UUID
    public var householdId: UUID
    public var confirmedBy: UUID

    public var aggregateKey: String { householdId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case factId = "fact_id"
        case householdId = "household_id"
        case confirmedBy = "confirmed_by"
    }

    public init(factId: UUID, householdId: UUID, confirmedBy: UUID) {
        self.factId = factId
        self.householdId = householdId
        self.confirmedBy = confirmedBy
    }
}

/// `profile.fact_rejected` v1: a household member said an extracted fact is wrong.
public struct ProfileFactRejected: EventPayload {
    public static let eventType = "profile.fact_rejected"
    public static let version = 1
    public static let topic = Topic.profile
    public static let privacy = PayloadPrivacy.nothingPersonal(["fact_id", "household_id", "rejected_by"])

    public var factId: UUID
    public var householdId: UUID
    public var rejectedBy: UUID

    public var aggregateKey: String { householdId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case factId = "fact_id"
        case householdId = "household_id"
        case rejectedBy = "rejected_by"
    }

    public init(factId: UUID, householdId: UUID, rejectedBy: UUID) {
        self.factId = factId
        self.householdId = householdId
        self.rejectedBy = rejectedBy
    }
}
