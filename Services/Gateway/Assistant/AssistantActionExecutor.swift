import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime
import HearthStore
import Logging
import PostgresNIO

/// Carries out a confirmed action: publishes the event its tool stands for (the same events the
/// API's own endpoints publish, so the notifier, calendar and chats treat it like any other),
/// then `assistant.action_executed` for the audit log.
///
/// Effect ids are derived from the action id, so confirming twice (a retry, or two members at
/// once) names the same reminder, entry, message or chore, and every consumer keeps one.
struct AssistantActionExecutor: Sendable {
    let publisher: EventPublisher
    let chats: ChatReadModel
    let client: PostgresClient
    let logger: Logger

    static let effectNamespace = UUID(uuidString: "6B1F9F4E-2C55-4D8B-9A57-3E0C1D2A7B10")!

    struct Effect: Sendable {
        var type: String
        var id: UUID
        var position: EventPosition
    }

    /// Thrown for stored arguments the tool cannot use: the orchestrator wrote them, so this is
    /// a defect, reported as a 422 rather than a crash.
    struct UnusableArguments: Error {
        let field: String
    }

    /// Thrown when someone the action names is no longer of the household (they left, were
    /// removed, or the member was taken off since it was proposed): nothing is done.
    struct NoLongerInHousehold: Error {
        let field: String
    }

    /// The people an action names, checked against the household now, not when it was proposed:
    /// the one it acts for, a reminder's member, a message's recipient.
    func checkPeople(of action: StoredAssistantAction) async throws {
        let arguments = Arguments(action.arguments)
        guard try await isUser(action.proposedFor, of: action.householdId) else { throw NoLongerInHousehold(field: "user_id") }
        switch action.tool {
        case "set_reminder":
            if let member = try arguments.optionalUUID("member_id") {
                let rows = try await client.query(
                    "SELECT 1::int FROM household_members WHERE member_id = \(member) AND household_id = \(action.householdId)", logger: logger)
                var found = false
                for try await _ in rows.decode(Int.self) { found = true }
                guard found else { throw NoLongerInHousehold(field: "arguments.member_id") }
            }
        case "send_message":
            guard try await isUser(try arguments.uuid("recipient_user_id"), of: action.householdId) else {
                throw NoLongerInHousehold(field: "arguments.recipient_user_id")
            }
        default:
            break
        }
    }

    private func isUser(_ user: UUID, of household: UUID) async throws -> Bool {
        let rows = try await client.query(
            "SELECT 1::int FROM user_households WHERE user_id = \(user) AND household_id = \(household)", logger: logger)
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }

    func execute(_ action: StoredAssistantAction, confirmedBy user: UUID, correlationId: String) async throws -> Effect {
        try await checkPeople(of: action)
        let arguments = Arguments(action.arguments)
        func effectId(_ kind: String) -> UUID {
            NameBasedUUID.make(namespace: Self.effectNamespace, name: "\(kind)/\(action.actionId.uuidString.lowercased())")
        }
        let effect: (type: String, id: UUID)
        switch action.tool {
        case "set_reminder":
            let reminder = ReminderRequested(
                reminderId: effectId("reminder"), userId: action.proposedFor, householdId: action.householdId,
                memberId: try arguments.optionalUUID("member_id"), title: try arguments.string("title"), body: nil,
                dueAt: try arguments.date("at"), urgent: false, channels: nil, source: "assistant")
            _ = try await publisher.publish(reminder, correlationId: correlationId)
            effect = (ReminderRequested.eventType, reminder.reminderId)
        case "create_calendar_event":
            let entry = CalendarEntryState(
                title: try arguments.string("title"), start: try arguments.date("start"), end: try arguments.date("end"),
                allDay: arguments.bool("all_day"), timeZone: try arguments.string("time_zone"), kind: .adhoc, memberIds: [],
                location: nil, rrule: nil)
            let created = CalendarEventCreated(
                eventId: effectId("calendar"), householdId: action.householdId, createdBy: user, entry: entry, sequence: 0)
            _ = try await publisher.publish(created, correlationId: correlationId)
            effect = (CalendarEventCreated.eventType, created.eventId)
        case "add_chore":
            let chore = try arguments.string("chore")
            let assignee: String
            if let name = arguments.optionalString("assignee") { assignee = name } else { assignee = try await displayName(action.proposedFor) }
            let scheduled = ChoreScheduled(
                occurrenceId: effectId("chore"), householdId: action.householdId, userId: action.proposedFor, runId: action.runId,
                chore: chore, choreId: Self.slug(chore), assignee: assignee, at: try arguments.string("at"), date: try arguments.string("date"),
                minutes: arguments.int("minutes") ?? 15, timeZone: arguments.optionalString("time_zone"))
            _ = try await publisher.publish(scheduled, correlationId: correlationId)
            effect = (ChoreScheduled.eventType, scheduled.occurrenceId)
        case "send_message":
            let recipient = try arguments.uuid("recipient_user_id")
            let text = try arguments.string("text")
            let chatId = try await directChat(between: action.proposedFor, and: recipient, household: action.householdId, action: action, correlationId: correlationId)
            let message = ChatMessageSent(
                messageId: effectId("message"), chatId: chatId, householdId: action.householdId, authorId: action.proposedFor,
                authorName: try await displayName(action.proposedFor), text: text,
                clientId: "assistant-\(action.actionId.uuidString.lowercased())")
            _ = try await publisher.publish(message, correlationId: correlationId)
            effect = (ChatMessageSent.eventType, message.messageId)
        default:
            throw UnusableArguments(field: "tool")
        }
        let position = try await publisher.publish(
            AssistantActionExecuted(
                actionId: action.actionId, householdId: action.householdId, tool: action.tool, confirmedBy: user,
                effectType: effect.type, effectId: effect.id),
            correlationId: correlationId)
        return Effect(type: effect.type, id: effect.id, position: position)
    }

    /// The chat of exactly these two users, or a new one (its id derived from the action, so a
    /// retried confirmation creates it once).
    private func directChat(between author: UUID, and recipient: UUID, household: UUID, action: StoredAssistantAction, correlationId: String) async throws -> UUID {
        let rows = try await client.query(
            """
            SELECT c.chat_id FROM chats c
            WHERE c.household_id = \(household)
              AND (SELECT array_agg(m.user_id ORDER BY m.user_id) FROM chat_members m WHERE m.chat_id = c.chat_id)
                  = (SELECT array_agg(u ORDER BY u) FROM unnest(ARRAY[\(author), \(recipient)]::uuid[]) AS u)
            ORDER BY c.created_at, c.chat_id LIMIT 1
            """, logger: logger)
        for try await chat in rows.decode(UUID.self) { return chat }
        let created = ChatCreated(
            chatId: NameBasedUUID.make(namespace: Self.effectNamespace, name: "chat/\(action.actionId.uuidString.lowercased())"),
            householdId: household, title: nil, memberIds: [author, recipient], createdBy: author)
        _ = try await publisher.publish(created, correlationId: correlationId)
        return created.chatId
    }

    private func displayName(_ user: UUID) async throws -> String {
        try await chats.displayName(of: user) ?? "someone"
    }

    /// "Water the plants" → "water-the-plants": the chore's id as the chore planner writes them.
    static func slug(_ text: String) -> String {
        text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).joined(separator: "-")
    }

    /// Typed reads of the stored arguments object.
    struct Arguments {
        let fields: [String: JSONValue]

        init(_ value: JSONValue) {
            if case .object(let fields) = value { self.fields = fields } else { fields = [:] }
        }

        func optionalString(_ name: String) -> String? {
            if case .string(let text)? = fields[name] { return text }
            return nil
        }

        func string(_ name: String) throws -> String {
            guard let text = optionalString(name), !text.isEmpty else { throw UnusableArguments(field: name) }
            return text
        }

        func date(_ name: String) throws -> Date {
            guard let date = Timestamp.parse(try string(name)) else { throw UnusableArguments(field: name) }
            return date
        }

        func uuid(_ name: String) throws -> UUID {
            guard let id = UUID(uuidString: try string(name)) else { throw UnusableArguments(field: name) }
            return id
        }

        func optionalUUID(_ name: String) throws -> UUID? {
            guard fields[name] != nil else { return nil }
            return try uuid(name)
        }

        func bool(_ name: String) -> Bool {
            if case .bool(let value)? = fields[name] { return value }
            return false
        }

        func int(_ name: String) -> Int? {
            if case .number(let value)? = fields[name] { return Int(value) }
            return nil
        }
    }
}
