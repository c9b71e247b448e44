import Foundation
import HearthAssist
import HearthDomain
import HearthEvents
import HearthRuntime
import HearthStore
import HTTPTypes
import Hummingbird

/// The household assistant: `POST /v1/assistant/messages` (streamed like an assist run; with a
/// `conversation_id` it goes on a conversation, whose recent turns travel with it),
/// `GET /v1/assistant/conversations` and `…/{id}`, `GET /v1/assistant/actions`,
/// `POST /v1/assistant/actions/{id}/confirm|reject`, `GET /v1/assistant/audit`, and the contextual
/// actions on a chat message, `POST /v1/chats/{id}/messages/{mid}/assist {"action"}` (each a
/// streamed assistant turn of its own conversation).
///
/// The assistant never acts by itself: every tool call arrives as a proposed action, and only a
/// user of the household confirming it here makes it happen. Users of a household are its adults
/// (children do not sign in), so any of them may decide, as for profile facts.
struct AssistantRoutes: Sendable {
    /// The assist slice's own producer: the request is one message the stream waits on.
    let context: AssistantContextReader
    let actions: AssistantActionReadModel
    let conversations: AssistantConversationReadModel
    let executor: AssistantActionExecutor
    let membership: MembershipReadModel
    let chats: ChatReadModel
    let consistency: ReadConsistency
    /// Starts each message's run: the same follower, monthly quota and stream as plans (every
    /// assistant message is a model run).
    let launcher: RunLauncher
    let redactor = PIIRedactor()

    static let projection = AssistantActionsProjection().name
    /// How long a decision waits for an action proposed moments ago to be projected.
    static let projectionWait = Duration.seconds(3)
    static let conversationHeader = HTTPField.Name("X-Conversation-Id")!
    /// How much of a chat a contextual action reads around its message.
    static let threadBefore = 24
    static let threadAfter = 5

    struct Decision: ResponseEncodable {
        var actionId: String
        var status: String
        var effectType: String?
        var effectId: String?
        var position: String
        enum CodingKeys: String, CodingKey {
            case actionId = "action_id"
            case status
            case effectType = "effect_type"
            case effectId = "effect_id"
            case position
        }
    }

    struct ActionList: ResponseEncodable {
        var actions: [AssistantActionView]
    }

    struct AuditLog: ResponseEncodable {
        var entries: [AssistantAuditEntry]
    }

    struct ConversationList: ResponseEncodable {
        var conversations: [ConversationSummaryView]
        /// Pass as `before` for the next page; nil on the last.
        var nextBefore: String?
        enum CodingKeys: String, CodingKey {
            case conversations
            case nextBefore = "next_before"
        }
    }

    struct Conversation: ResponseEncodable {
        var conversationId: String
        var turns: [ConversationTurnView]
        enum CodingKeys: String, CodingKey {
            case conversationId = "conversation_id"
            case turns
        }
    }

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.post("assistant/messages") { request, context in try await message(request, context: context) }
        routes.post("chats/{id}/messages/{mid}/assist") { request, context in try await messageAction(request, context: context) }
        routes.get("assistant/conversations") { request, context in try await conversationList(request, context: context) }
        routes.get("assistant/conversations/{id}") { _, context in try await conversation(context: context) }
        routes.get("assistant/actions") { request, context in try await list(request, context: context) }
        routes.patch("assistant/actions/{id}") { request, context in try await edit(request, context: context) }
        routes.post("assistant/actions/{id}/confirm") { request, context in try await confirm(request, context: context) }
        routes.post("assistant/actions/{id}/reject") { request, context in try await reject(request, context: context) }
        routes.get("assistant/audit") { request, context in try await audit(request, context: context) }
    }

    // MARK: POST /v1/assistant/messages

    func message(_ request: Request, context: HearthRequestContext) async throws -> Response {
        let user = try context.authenticatedUser()
        let body = try await JSONRequestBody.decode(AssistantMessageRequest.self, from: request, context: context).validated()
        guard let householdId = try await membership.household(of: user, for: request),
              let household = try await self.context.context(of: user, in: householdId)
        else {
            throw APIError(.conflict, code: "no_household", message: "the assistant works for a household: create or join one first")
        }
        let runId = EventIdentity.newId("assistant_run")
        let conversationId = body.conversationId ?? EventIdentity.newId("conversation")
        var history: [ConversationTurn] = []
        if let given = body.conversationId, let owner = try await conversations.owner(of: given) {
            // Someone else's conversation does not exist for this user; one of another household
            // stays there (its turns would carry that household's answers into this one).
            guard owner.user == user else { throw APIError.notFound("conversation") }
            guard owner.household == household.householdId else {
                throw APIError(.conflict, code: "other_household", message: "this conversation belongs to another of your households", field: "conversation_id")
            }
            history = try await conversations.history(of: given)
        }
        let event = AssistantMessageRequestedV3(
            runId: runId, conversationId: conversationId, userId: user, householdId: household.householdId,
            // PII never reaches Kafka: the text is redacted before it is published.
            text: redactor.redact(body.text),
            timeZone: Self.zone(body.timeZone, household), requestedAt: Date(), members: household.members, chatIds: household.chatIds,
            profile: household.profile, history: history)
        let response = try await launcher.launch(
            event, runId: runId, user: user, request: request, context: context,
            headers: [Self.conversationHeader: conversationId.uuidString.lowercased()])
        context.logger.info("assistant message accepted", metadata: [
            "run_id": "\(runId.uuidString.lowercased())", "conversation_id": "\(conversationId.uuidString.lowercased())",
        ])
        return response
    }

    /// The zone the request named, else the user's, else UTC.
    static func zone(_ given: TimeZone?, _ household: AssistantContext) -> String {
        given?.identifier ?? household.timeZone.flatMap { LocalTime.zone(named: $0)?.identifier } ?? "UTC"
    }

    // MARK: POST /v1/chats/{id}/messages/{mid}/assist

    struct MessageActionBody: Decodable {
        var action: String
        var timeZone: String?
        enum CodingKeys: String, CodingKey {
            case action
            case timeZone = "time_zone"
        }
    }

    /// A contextual action on a message, for a member of its chat who is a user of the chat's
    /// household: the assistant's context is the household's, so a coach in the chat has none to
    /// lend it (403). A chat or message the caller cannot read is a 404.
    func messageAction(_ request: Request, context: HearthRequestContext) async throws -> Response {
        let user = try context.authenticatedUser()
        let chatId = try context.uuidParameter("id", field: "chat_id")
        let messageId = try context.uuidParameter("mid", field: "message_id")
        let body = try await JSONRequestBody.decode(MessageActionBody.self, from: request, context: context)
        guard let action = MessageAction(rawValue: body.action) else {
            throw APIError.invalid("action", "action must be one of \(MessageAction.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        var zone: TimeZone?
        if let name = body.timeZone {
            guard let parsed = LocalTime.zone(named: name) else {
                throw APIError.invalid("time_zone", "time_zone must be an IANA time zone name, e.g. Europe/London")
            }
            zone = parsed
        }
        let pending = try consistency.pendingRead(in: request, projections: [.chats: [ChatsProjection().name]], writtenBy: "POST /v1/chats/{id}/messages")
        let householdId = try await chats.requireMember(user, of: chatId)
        try await consistency.wait(for: pending)
        let thread = try await chats.thread(around: messageId, in: chatId, before: Self.threadBefore, after: Self.threadAfter)
        guard thread.contains(where: { $0.messageId == messageId.uuidString.lowercased() }) else { throw APIError.notFound("message") }
        guard let household = try await self.context.context(of: user, in: householdId) else {
            throw APIError(
                .forbidden, code: "household_members_only",
                message: "contextual actions run as the household's assistant: only the household's own members use them")
        }
        let runId = EventIdentity.newId("assistant_run")
        let conversationId = EventIdentity.newId("conversation")
        let focus = MessageFocus(
            chatId: chatId, messageId: messageId, action: action.rawValue,
            thread: thread.compactMap { message in
                UUID(uuidString: message.messageId).map {
                    FocusedMessage(messageId: $0, authorName: message.authorName, text: redactor.redact(message.text), sentAt: message.sentAt)
                }
            })
        let event = AssistantMessageRequestedV3(
            runId: runId, conversationId: conversationId, userId: user, householdId: householdId, text: action.question,
            timeZone: Self.zone(zone, household), requestedAt: Date(), members: household.members, chatIds: household.chatIds,
            profile: household.profile, history: [], focus: focus)
        let response = try await launcher.launch(
            event, runId: runId, user: user, request: request, context: context,
            headers: [Self.conversationHeader: conversationId.uuidString.lowercased()])
        context.logger.info("message action accepted", metadata: [
            "run_id": "\(runId.uuidString.lowercased())", "action": "\(action.rawValue)", "chat_id": "\(chatId.uuidString.lowercased())",
        ])
        return response
    }

    // MARK: conversations

    func conversationList(_ request: Request, context: HearthRequestContext) async throws -> ConversationList {
        let user = try context.authenticatedUser()
        let paging = try PageQuery(request, defaultLimit: 20, range: 1...100, beforeWhat: "a conversation id")
        let page = try await conversations.conversations(of: user, before: paging.before, limit: paging.limit)
        return ConversationList(
            conversations: page, nextBefore: page.count == paging.limit ? page.last.map { $0.conversationId.uuidString.lowercased() } : nil)
    }

    func conversation(context: HearthRequestContext) async throws -> Conversation {
        let user = try context.authenticatedUser()
        let id = try context.uuidParameter("id", field: "conversation_id")
        guard let owner = try await conversations.owner(of: id), owner.user == user,
              try await membership.role(of: user, in: owner.household) != nil
        else { throw APIError.notFound("conversation") }
        return Conversation(conversationId: id.uuidString.lowercased(), turns: try await conversations.turns(of: id))
    }

    // MARK: actions

    func list(_ request: Request, context: HearthRequestContext) async throws -> ActionList {
        let user = try context.authenticatedUser()
        let query = request.uri.queryParameters
        var status: String?
        if let text = query.get("status"), !text.isEmpty {
            let allowed = ["pending", "expired", "executed", "rejected"]
            guard allowed.contains(text) else { throw APIError.invalid("status", "status must be one of \(allowed.joined(separator: ", "))") }
            status = text
        }
        let limit = try Self.limit(request)
        let pending = try consistency.pendingRead(
            in: request, projections: [.assistant: [Self.projection]], writtenBy: "POST /v1/assistant/actions/{id}/confirm|reject")
        guard let household = try await membership.household(of: user, for: request) else { return ActionList(actions: []) }
        try await consistency.wait(for: pending)
        return ActionList(actions: try await actions.actions(of: household, status: status, limit: limit, now: Date()))
    }

    func confirm(_ request: Request, context: HearthRequestContext) async throws -> Decision {
        let user = try context.authenticatedUser()
        let action = try await decidable(context: context, user: user)
        if let choice = action.choice {
            throw APIError(
                .conflict, code: "choice_required",
                message: "\"\(choice.written)\" could be \(choice.options.map(\.name).joined(separator: " or ")): choose with PATCH /v1/assistant/actions/{id} first",
                field: "arguments.\(choice.argument)")
        }
        let effect: AssistantActionExecutor.Effect
        do {
            effect = try await executor.execute(action, confirmedBy: user, correlationId: context.correlationId)
        } catch let unusable as AssistantActionExecutor.UnusableArguments {
            context.logger.error("a proposed action cannot be executed", metadata: [
                "action_id": "\(action.actionId.uuidString.lowercased())", "field": "\(unusable.field)",
            ])
            throw APIError(.unprocessableContent, code: "unusable_action", message: "the action's \(unusable.field) cannot be used; ask the assistant again")
        } catch let gone as AssistantActionExecutor.NoLongerInHousehold {
            throw APIError(
                .conflict, code: "action_stale",
                message: "someone this action names is no longer in the household (\(gone.field)); nothing was done", field: gone.field)
        }
        context.logger.info("assistant action executed", metadata: [
            "action_id": "\(action.actionId.uuidString.lowercased())", "tool": "\(action.tool)", "effect_id": "\(effect.id.uuidString.lowercased())",
        ])
        try await consistency.awaitApplied(effect.position, projections: [Self.projection])
        return Decision(
            actionId: action.actionId.uuidString.lowercased(), status: "executed", effectType: effect.type,
            effectId: effect.id.uuidString.lowercased(), position: effect.position.description)
    }

    func reject(_ request: Request, context: HearthRequestContext) async throws -> Decision {
        let user = try context.authenticatedUser()
        let action = try await decidable(context: context, user: user)
        let position = try await executor.publisher.publish(
            AssistantActionRejected(actionId: action.actionId, householdId: action.householdId, rejectedBy: user),
            correlationId: context.correlationId)
        try await consistency.awaitApplied(position, projections: [Self.projection])
        return Decision(actionId: action.actionId.uuidString.lowercased(), status: "rejected", position: position.description)
    }

    /// The action named in the path, when it belongs to the user's household and still waits for
    /// a decision: others' actions are 404, decided ones 409, lapsed ones 410.
    struct EditRequest: Decodable {
        var arguments: JSONValue
    }

    struct Edited: ResponseEncodable {
        var actionId: String
        var tool: String
        var arguments: JSONValue
        var summary: String
        var status: String
        var position: String
        enum CodingKeys: String, CodingKey {
            case actionId = "action_id"
            case tool, arguments, summary, status, position
        }
    }

    /// `PATCH /v1/assistant/actions/{id} {"arguments": {…}}`: the tool's arguments as its schema
    /// names them (`AssistantToolCatalogue`: people by name, local times), checked exactly as a
    /// model's tool call is; the action is then proposed with them (its first proposal stays in
    /// the audit log). A name that still matches several people is a 409 with the choices.
    func edit(_ request: Request, context: HearthRequestContext) async throws -> Edited {
        let user = try context.authenticatedUser()
        let action = try await decidable(context: context, user: user)
        // The action acts as the one who asked (a message in their name, a reminder for them):
        // only they may change what it does.
        guard action.proposedFor == user else {
            throw APIError(.forbidden, code: "proposer_only", message: "only the member who asked the assistant may edit this action")
        }
        let body = try await JSONRequestBody.decode(EditRequest.self, from: request, context: context)
        guard case .object = body.arguments else { throw APIError.invalid("arguments", "arguments must be an object") }
        guard let household = try await self.context.context(of: user, in: action.householdId) else { throw APIError.notFound("action") }
        let storedZone: String? = if case .object(let fields) = action.arguments, case .string(let zone)? = fields["time_zone"] { zone } else { nil }
        let zone = (storedZone ?? household.timeZone).flatMap(LocalTime.zone(named:)) ?? .gmt
        let validator = AssistantToolCallValidator(
            now: Date(), timeZone: zone, members: household.members.map { NamedMember(memberId: $0.memberId, name: $0.name) })
        let text = String(decoding: try JSONEncoder().encode(body.arguments), as: UTF8.self)
        let proposal: ProposedAction
        do {
            switch try validator.validate(tool: action.tool, arguments: text) {
            case .proposal(let intent):
                guard let built = ProposedAction(intent, members: household.members, timeZone: zone) else {
                    throw APIError.invalid("arguments.recipient", "the recipient does not sign in to Hearth, so no message can reach them")
                }
                proposal = built
            case .ambiguous(let argument, let written, let choices):
                throw APIError(
                    .conflict, code: "ambiguous",
                    message: "\"\(written)\" could be \(choices.map(\.name).joined(separator: " or ")): write the full name",
                    field: "arguments.\(argument)")
            case .lookup:
                throw APIError.invalid("arguments", "a lookup is not an action")
            }
        } catch let refusal as AssistantToolCallRefusal {
            throw APIError(.badRequest, code: refusal.code.rawValue, message: refusal.reason, field: refusal.argument.map { "arguments.\($0)" } ?? "arguments")
        }
        let position = try await executor.publisher.publish(
            AssistantActionEdited(
                actionId: action.actionId, householdId: action.householdId, editedBy: user, arguments: proposal.arguments, summary: proposal.summary),
            correlationId: context.correlationId)
        try await consistency.awaitApplied(position, projections: [Self.projection])
        context.logger.info("assistant action edited", metadata: ["action_id": "\(action.actionId.uuidString.lowercased())"])
        return Edited(
            actionId: action.actionId.uuidString.lowercased(), tool: action.tool, arguments: proposal.arguments, summary: proposal.summary,
            status: "pending", position: position.description)
    }

    private func decidable(context: HearthRequestContext, user: UUID) async throws -> StoredAssistantAction {
        guard let actionId = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
            throw APIError.invalid("action_id", "the action id in the path must be a UUID")
        }
        let wait = launcher.recent.hasRecentRun(of: user) ? Self.projectionWait : .zero
        guard let action = try await readOnceProjected(within: wait, { try await actions.action(actionId) }), try await membership.role(of: user, in: action.householdId) != nil else {
            throw APIError.notFound("action")
        }
        guard action.status == "proposed" else {
            throw APIError(.conflict, code: "already_decided", message: "the action is already \(action.status)")
        }
        guard action.expiresAt > Date() else {
            throw APIError(.gone, code: "expired", message: "the action lapsed at \(Timestamp.format(action.expiresAt)); ask the assistant again")
        }
        return action
    }

    // MARK: GET /v1/assistant/audit

    func audit(_ request: Request, context: HearthRequestContext) async throws -> AuditLog {
        let user = try context.authenticatedUser()
        let limit = try Self.limit(request)
        let pending = try consistency.pendingRead(
            in: request, projections: [.assistant: [Self.projection]], writtenBy: "POST /v1/assistant/actions/{id}/confirm|reject")
        guard let household = try await membership.household(of: user, for: request) else { return AuditLog(entries: []) }
        try await consistency.wait(for: pending)
        return AuditLog(entries: try await actions.audit(of: household, limit: limit))
    }

    static func limit(_ request: Request) throws -> Int {
        guard let text = request.uri.queryParameters.get("limit") else { return 50 }
        guard let value = Int(text), (1...200).contains(value) else { throw APIError.invalid("limit", "limit must be 1 to 200") }
        return value
    }
}
