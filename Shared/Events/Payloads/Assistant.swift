import Foundation

/// A person of the household as the assistant sees them: whom a reminder, a chore or a message
/// may be for. `userId` is set for members who sign in (adults), nil for children.
public struct AssistantMember: Codable, Sendable, Equatable, Hashable {
    public var memberId: UUID
    public var userId: UUID?
    public var name: String
    public var role: String

    enum CodingKeys: String, CodingKey {
        case memberId = "member_id"
        case userId = "user_id"
        case name, role
    }

    public init(memberId: UUID, userId: UUID?, name: String, role: String) {
        self.memberId = memberId
        self.userId = userId
        self.name = name
        self.role = role
    }
}

/// `assistant.message_requested` v1: a user wrote to the household assistant. Published by the
/// gateway on `assist.requests` (the orchestrator's intake, so one claim table runs it exactly
/// once), keyed by the run id; the answer streams as an ordinary run on `assist.events`.
///
/// Like `assist.requested`, it carries what the gateway read for the user (members, the chats
/// they may search, the profile) so the run needs no read of another service's tables. The text
/// is PII-redacted before it is published.
public struct AssistantMessageRequested: EventPayload {
    public static let eventType = "assistant.message_requested"
    public static let version = 1
    public static let topic = Topic.assistRequests
    public static let privacy = PayloadPrivacy(
        personal: [
            "text": .user("user_id", erased: .string("")),
            "time_zone": .user("user_id", erased: .string("")),
            "members[].name": .household("household_id", erased: .string("")),
            "profile": .household("household_id", erased: .array([])),
        ],
        notPersonal: [
            "run_id", "conversation_id", "user_id", "household_id", "requested_at", "chat_ids",
            "members[].member_id", "members[].user_id", "members[].role",
        ])

    public var runId: UUID
    public var conversationId: UUID
    public var userId: UUID
    public var householdId: UUID
    public var text: String
    /// IANA zone in which "tomorrow at 7" is meant.
    public var timeZone: String
    public var requestedAt: Date
    public var members: [AssistantMember]
    /// The chats the user belongs to: the only messages the run may retrieve.
    public var chatIds: [UUID]
    /// The household profile as short lines ("Sam: allergy sesame (confirmed)").
    public var profile: [String]

    public var aggregateKey: String { runId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case runId = "run_id"
        case conversationId = "conversation_id"
        case userId = "user_id"
        case householdId = "household_id"
        case text
        case timeZone = "time_zone"
        case requestedAt = "requested_at"
        case members
        case chatIds = "chat_ids"
        case profile
    }

    public init(
        runId: UUID, conversationId: UUID, userId: UUID, householdId: UUID, text: String, timeZone: String, requestedAt: Date,
        members: [AssistantMember], chatIds: [UUID], profile: [String]
    ) {
        self.runId = runId
        self.conversationId = conversationId
        self.userId = userId
        self.householdId = householdId
        self.text = text
        self.timeZone = timeZone
        self.requestedAt = requestedAt
        self.members = members
        self.chatIds = chatIds
        self.profile = profile
    }
}

/// One earlier exchange of a conversation with the assistant, as the next message carries it.
public struct ConversationTurn: Codable, Sendable, Equatable {
    /// What the user asked (PII-redacted, as it was published).
    public var question: String
    /// What the assistant answered; empty when that run gave no answer.
    public var answer: String

    public init(question: String, answer: String) {
        self.question = question
        self.answer = answer
    }
}

/// `assistant.message_requested` v2: v1 plus `history`, the conversation's recent turns (oldest
/// first, within a budget of characters), so the run reads "and on Sunday?" in context. The
/// gateway reads them from its `assistant_turns` and the runs' answers when the message arrives.
public struct AssistantMessageRequestedV2: EventPayload {
    public static let eventType = AssistantMessageRequested.eventType
    public static let version = 2
    public static let topic = Topic.assistRequests
    public static let privacy = PayloadPrivacy(
        personal: [
            "text": .user("user_id", erased: .string("")),
            "time_zone": .user("user_id", erased: .string("")),
            "members[].name": .household("household_id", erased: .string("")),
            "profile": .household("household_id", erased: .array([])),
            // Earlier runs' answers: sealed with this run's key, so they age out with it.
            "history": .run("run_id", erased: .array([])),
        ],
        notPersonal: [
            "run_id", "conversation_id", "user_id", "household_id", "requested_at", "chat_ids",
            "members[].member_id", "members[].user_id", "members[].role",
        ])

    public var runId: UUID
    public var conversationId: UUID
    public var userId: UUID
    public var householdId: UUID
    public var text: String
    public var timeZone: String
    public var requestedAt: Date
    public var members: [AssistantMember]
    public var chatIds: [UUID]
    public var profile: [String]
    public var history: [ConversationTurn]

    public var aggregateKey: String { runId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case runId = "run_id"
        case conversationId = "conversation_id"
        case userId = "user_id"
        case householdId = "household_id"
        case text
        case timeZone = "time_zone"
        case requestedAt = "requested_at"
        case members
        case chatIds = "chat_ids"
        case profile, history
    }

    public init(
        runId: UUID, conversationId: UUID, userId: UUID, householdId: UUID, text: String, timeZone: String, requestedAt: Date,
        members: [AssistantMember], chatIds: [UUID], profile: [String], history: [ConversationTurn]
    ) {
        self.runId = runId
        self.conversationId = conversationId
        self.userId = userId
        self.householdId = householdId
        self.text = text
        self.timeZone = timeZone
        self.requestedAt = requestedAt
        self.members = members
        self.chatIds = chatIds
        self.profile = profile
        self.history = history
    }

    /// v1 → v2: a v1 message carried no history (each message stood alone).
    public static let upcasterFromV1 = Upcaster(eventType: eventType, fromVersion: 1) { payload in
        guard case .object(var fields) = payload else { return payload }
        if fields["history"] == nil { fields["history"] = .array([]) }
        return .object(fields)
    }
}

/// The chat message a contextual action is about (`POST /v1/chats/{id}/messages/{mid}/assist`),
/// with the thread around it as the gateway read it when the action was asked for: the run needs
/// no access to the chats' tables, and what it summarised is what the user saw.
public struct MessageFocus: Codable, Sendable, Equatable {
    public var chatId: UUID
    public var messageId: UUID
    /// `summarize`, `related` or `remind` (`MessageAction`).
    public var action: String
    /// Oldest first, the focused message among them; each text PII-redacted.
    public var thread: [FocusedMessage]

    public init(chatId: UUID, messageId: UUID, action: String, thread: [FocusedMessage]) {
        self.chatId = chatId
        self.messageId = messageId
        self.action = action
        self.thread = thread
    }

    enum CodingKeys: String, CodingKey {
        case chatId = "chat_id"
        case messageId = "message_id"
        case action, thread
    }
}

public struct FocusedMessage: Codable, Sendable, Equatable {
    public var messageId: UUID
    public var authorName: String
    public var text: String
    public var sentAt: Date

    public init(messageId: UUID, authorName: String, text: String, sentAt: Date) {
        self.messageId = messageId
        self.authorName = authorName
        self.text = text
        self.sentAt = sentAt
    }

    enum CodingKeys: String, CodingKey {
        case messageId = "message_id"
        case authorName = "author_name"
        case text
        case sentAt = "sent_at"
    }
}

/// `assistant.message_requested` v3: v2 plus `focus`, set when the run is a contextual action on
/// a chat message (summarise its thread, find related messages, suggest a reminder) rather than a
/// message typed to the assistant; `text` is then the action's question as the conversation
/// lists it.
public struct AssistantMessageRequestedV3: EventPayload {
    public static let eventType = AssistantMessageRequested.eventType
    public static let version = 3
    public static let topic = Topic.assistRequests
    public static let privacy = PayloadPrivacy(
        personal: [
            "text": .user("user_id", erased: .string("")),
            "time_zone": .user("user_id", erased: .string("")),
            "members[].name": .household("household_id", erased: .string("")),
            "profile": .household("household_id", erased: .array([])),
            "history": .run("run_id", erased: .array([])),
            // Other people's messages, copied for this run only: sealed with its key, they age out with it.
            "focus.thread": .run("run_id", erased: .array([])),
        ],
        notPersonal: [
            "run_id", "conversation_id", "user_id", "household_id", "requested_at", "chat_ids",
            "members[].member_id", "members[].user_id", "members[].role",
            "focus.chat_id", "focus.message_id", "focus.action",
        ])

    public var runId: UUID
    public var conversationId: UUID
    public var userId: UUID
    public var householdId: UUID
    public var text: String
    public var timeZone: String
    public var requestedAt: Date
    public var members: [AssistantMember]
    public var chatIds: [UUID]
    public var profile: [String]
    public var history: [ConversationTurn]
    public var focus: MessageFocus?

    public var aggregateKey: String { runId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case runId = "run_id"
        case conversationId = "conversation_id"
        case userId = "user_id"
        case householdId = "household_id"
        case text
        case timeZone = "time_zone"
        case requestedAt = "requested_at"
        case members
        case chatIds = "chat_ids"
        case profile, history, focus
    }

    public init(
        runId: UUID, conversationId: UUID, userId: UUID, householdId: UUID, text: String, timeZone: String, requestedAt: Date,
        members: [AssistantMember], chatIds: [UUID], profile: [String], history: [ConversationTurn], focus: MessageFocus? = nil
    ) {
        self.runId = runId
        self.conversationId = conversationId
        self.userId = userId
        self.householdId = householdId
        self.text = text
        self.timeZone = timeZone
        self.requestedAt = requestedAt
        self.members = members
        self.chatIds = chatIds
        self.profile = profile
        self.history = history
        self.focus = focus
    }

    /// v2 → v3: every v2 message was typed to the assistant; it has no focus.
    public static let upcasterFromV2 = Upcaster(eventType: eventType, fromVersion: 2) { payload in payload }
}

/// `assistant.action_proposed` v1: the assistant wants to call a tool (`create_calendar_event`,
/// `set_reminder`, `send_message`, `add_chore`). Nothing happens until a household member confirms
/// it; it lapses 24 hours after `proposed_at`. Keyed by the action id, so its decision follows it
/// in order.
public struct AssistantActionProposed: EventPayload {
    public static let eventType = "assistant.action_proposed"
    public static let version = 1
    public static let topic = Topic.assistant
    public static let privacy = PayloadPrivacy(
        personal: [
            "arguments": .household("household_id", erased: .object([:])),
            "summary": .household("household_id", erased: .string("")),
        ],
        notPersonal: ["action_id", "run_id", "conversation_id", "household_id", "user_id", "tool", "proposed_at", "expires_at"])

    public var actionId: UUID
    public var runId: UUID
    public var conversationId: UUID
    public var householdId: UUID
    /// Who asked the assistant.
    public var userId: UUID
    public var tool: String
    /// The tool's arguments, as the tool's schema names them.
    public var arguments: JSONValue
    /// One line for the confirmation dialog.
    public var summary: String
    public var proposedAt: Date
    public var expiresAt: Date

    public var aggregateKey: String { actionId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case actionId = "action_id"
        case runId = "run_id"
        case conversationId = "conversation_id"
        case householdId = "household_id"
        case userId = "user_id"
        case tool, arguments, summary
        case proposedAt = "proposed_at"
        case expiresAt = "expires_at"
    }

    public init(
        actionId: UUID, runId: UUID, conversationId: UUID, householdId: UUID, userId: UUID, tool: String, arguments: JSONValue,
        summary: String, proposedAt: Date, expiresAt: Date
    ) {
        self.actionId = actionId
        self.runId = runId
        self.conversationId = conversationId
        self.householdId = householdId
        self.userId = userId
        self.tool = tool
        self.arguments = arguments
        self.summary = summary
        self.proposedAt = proposedAt
        self.expiresAt = expiresAt
    }
}

/// A name in a proposed action that matches several people ("Sam"): the action waits for a
/// member to choose one (`PATCH /v1/assistant/actions/{id}`) before it can be confirmed.
public struct ActionChoice: Codable, Sendable, Equatable {
    public struct Option: Codable, Sendable, Equatable {
        public var memberId: UUID
        public var name: String

        public init(memberId: UUID, name: String) {
            self.memberId = memberId
            self.name = name
        }

        enum CodingKeys: String, CodingKey {
            case memberId = "member_id"
            case name
        }
    }

    /// The tool argument the name was written in (`member`, `assignee`, `recipient`).
    public var argument: String
    /// The name as written.
    public var written: String
    public var options: [Option]

    public init(argument: String, written: String, options: [Option]) {
        self.argument = argument
        self.written = written
        self.options = options
    }
}

/// `assistant.action_proposed` v2: v1 plus `choice`, set when a name in the arguments matches
/// several people: the arguments then hold the first of them provisionally, and the action cannot
/// be confirmed until a member has chosen (`assistant.action_edited`).
public struct AssistantActionProposedV2: EventPayload {
    public static let eventType = AssistantActionProposed.eventType
    public static let version = 2
    public static let topic = Topic.assistant
    public static let privacy = PayloadPrivacy(
        personal: [
            "arguments": .household("household_id", erased: .object([:])),
            "summary": .household("household_id", erased: .string("")),
            "choice": .household("household_id"),
        ],
        notPersonal: ["action_id", "run_id", "conversation_id", "household_id", "user_id", "tool", "proposed_at", "expires_at"])

    public var actionId: UUID
    public var runId: UUID
    public var conversationId: UUID
    public var householdId: UUID
    /// Who asked the assistant.
    public var userId: UUID
    public var tool: String
    public var arguments: JSONValue
    public var summary: String
    public var proposedAt: Date
    public var expiresAt: Date
    public var choice: ActionChoice?

    public var aggregateKey: String { actionId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case actionId = "action_id"
        case runId = "run_id"
        case conversationId = "conversation_id"
        case householdId = "household_id"
        case userId = "user_id"
        case tool, arguments, summary
        case proposedAt = "proposed_at"
        case expiresAt = "expires_at"
        case choice
    }

    public init(
        actionId: UUID, runId: UUID, conversationId: UUID, householdId: UUID, userId: UUID, tool: String, arguments: JSONValue,
        summary: String, proposedAt: Date, expiresAt: Date, choice: ActionChoice?
    ) {
        self.actionId = actionId
        self.runId = runId
        self.conversationId = conversationId
        self.householdId = householdId
        self.userId = userId
        self.tool = tool
        self.arguments = arguments
        self.summary = summary
        self.proposedAt = proposedAt
        self.expiresAt = expiresAt
        self.choice = choice
    }

    /// v1 → v2: a v1 proposal never waited for a choice.
    public static let upcasterFromV1 = Upcaster(eventType: eventType, fromVersion: 1) { payload in
        guard case .object(var fields) = payload else { return payload }
        if fields["choice"] == nil { fields["choice"] = .null }
        return .object(fields)
    }
}

/// `assistant.action_edited` v1: a household member changed a proposed action's arguments before
/// deciding on it (the arguments and summary are rebuilt and checked as a model's tool call is);
/// any pending choice is settled. The proposal as first made stays in the audit log beside what
/// was confirmed. Keyed by the action, in order with its proposal and decision.
public struct AssistantActionEdited: EventPayload {
    public static let eventType = "assistant.action_edited"
    public static let version = 1
    public static let topic = Topic.assistant
    public static let privacy = PayloadPrivacy(
        personal: [
            "arguments": .household("household_id", erased: .object([:])),
            "summary": .household("household_id", erased: .string("")),
        ],
        notPersonal: ["action_id", "household_id", "edited_by"])

    public var actionId: UUID
    public var householdId: UUID
    public var editedBy: UUID
    public var arguments: JSONValue
    public var summary: String

    public var aggregateKey: String { actionId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case actionId = "action_id"
        case householdId = "household_id"
        case editedBy = "edited_by"
        case arguments, summary
    }

    public init(actionId: UUID, householdId: UUID, editedBy: UUID, arguments: JSONValue, summary: String) {
        self.actionId = actionId
        self.householdId = householdId
        self.editedBy = editedBy
        self.arguments = arguments
        self.summary = summary
    }
}

/// `assistant.action_rejected` v1: a household member said no to a proposed action.
public struct AssistantActionRejected: EventPayload {
    public static let eventType = "assistant.action_rejected"
    public static let version = 1
    public static let topic = Topic.assistant
    public static let privacy = PayloadPrivacy.nothingPersonal(["action_id", "household_id", "rejected_by"])

    public var actionId: UUID
    public var householdId: UUID
    public var rejectedBy: UUID

    public var aggregateKey: String { actionId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case actionId = "action_id"
        case householdId = "household_id"
        case rejectedBy = "rejected_by"
    }

    public init(actionId: UUID, householdId: UUID, rejectedBy: UUID) {
        self.actionId = actionId
        self.householdId = householdId
        self.rejectedBy = rejectedBy
    }
}

/// `assistant.action_executed` v1: a member confirmed a proposed action and its effect was
/// published (`effect_type` with `effect_id`: the reminder, calendar event, chat message or chore
/// occurrence it created). The audit log's record of who confirmed what.
public struct AssistantActionExecuted: EventPayload {
    public static let eventType = "assistant.action_executed"
    public static let version = 1
    public static let topic = Topic.assistant
    public static let privacy = PayloadPrivacy.nothingPersonal(["action_id", "household_id", "tool", "confirmed_by", "effect_type", "effect_id"])

    public var actionId: UUID
    public var householdId: UUID
    public var tool: String
    public var confirmedBy: UUID
    public var effectType: String
    public var effectId: UUID

    public var aggregateKey: String { actionId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case actionId = "action_id"
        case householdId = "household_id"
        case tool
        case confirmedBy = "confirmed_by"
        case effectType = "effect_type"
        case effectId = "effect_id"
    }

    public init(actionId: UUID, householdId: UUID, tool: String, confirmedBy: UUID, effectType: String, effectId: UUID) {
        self.actionId = actionId
        self.householdId = householdId
        self.tool = tool
        self.confirmedBy = confirmedBy
        self.effectType = effectType
        self.effectId = effectId
    }
}
