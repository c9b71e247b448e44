import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime
import HearthStore
import Hummingbird

/// `GET /v1/chats`, `POST /v1/chats`, `POST /v1/chats/{id}/messages`, `GET /v1/chats/{id}/messages`,
/// `POST /v1/chats/{id}/read`. Only a chat's members read or write it; for anyone else the chat
/// does not exist (404).
struct ChatRoutes: Sendable {
    let publisher: EventPublisher
    let chats: ChatReadModel
    let membership: MembershipReadModel
    let consistency: ReadConsistency

    static let maxTextLength = 4000
    static let maxClientIdLength = 128
    /// Namespace of message ids derived from (chat, author, client_id).
    static let messageNamespace = UUID(uuidString: "6f1c2a52-31c4-4e0b-9a57-0c8f3c1d2b7e")!

    struct CreateChatRequest: Decodable {
        var title: String?
        var memberIds: [String]?
        enum CodingKeys: String, CodingKey {
            case title
            case memberIds = "member_ids"
        }
    }

    struct SendMessageRequest: Decodable {
        var text: String
        var clientId: String
        enum CodingKeys: String, CodingKey {
            case text
            case clientId = "client_id"
        }
    }

    struct ReadRequest: Decodable {
        var upTo: String
        enum CodingKeys: String, CodingKey { case upTo = "up_to" }
    }

    struct ChatView: ResponseEncodable {
        var chatId: String
        var householdId: String
        var title: String?
        var memberIds: [String]
        var position: String
        enum CodingKeys: String, CodingKey {
            case chatId = "chat_id"
            case householdId = "household_id"
            case title
            case memberIds = "member_ids"
            case position
        }
    }

    struct SentMessage: ResponseEncodable {
        var message: ChatMessageView
        /// Nil when the send repeated an already stored client_id.
        var position: String?
        var duplicate: Bool
    }

    struct MessagePage: ResponseEncodable {
        var messages: [ChatMessageView]
        /// Pass as `before` to get the next, older page; nil at the start of the chat.
        var nextBefore: String?
        enum CodingKeys: String, CodingKey {
            case messages
            case nextBefore = "next_before"
        }
    }

    struct ChatList: ResponseEncodable {
        var chats: [ChatSummaryView]
        /// Pass as `before` for the next page (chats with older activity); nil on the last page.
        var nextBefore: String?
        enum CodingKeys: String, CodingKey {
            case chats
            case nextBefore = "next_before"
        }
    }

    struct ReadReceipt: ResponseEncodable {
        var chatId: String
        var upTo: String
        var position: String
        enum CodingKeys: String, CodingKey {
            case chatId = "chat_id"
            case upTo = "up_to"
            case position
        }
    }

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.get("chats") { request, context in try await chatList(request, context: context) }
        routes.post("chats") { request, context in
            EditedResponse(status: .created, response: try await create(request, context: context))
        }
        routes.post("chats/{id}/messages") { request, context in
            let sent = try await send(request, context: context)
            return EditedResponse(status: sent.duplicate ? .ok : .created, response: sent)
        }
        routes.get("chats/{id}/messages") { request, context in
            try await list(request, context: context)
        }
        routes.post("chats/{id}/read") { request, context in
            try await markRead(request, context: context)
        }
    }

    /// A message's id depends only on chat, author and client_id, so a retry names the same
    /// message and the projection keeps the first (text and image messages alike).
    static func messageId(chat: UUID, author: UUID, clientId: String) -> UUID {
        NameBasedUUID.make(namespace: messageNamespace, name: "\(chat.uuidString.lowercased())/\(author.uuidString.lowercased())/\(clientId)")
    }

    private func chatId(_ context: HearthRequestContext) throws -> UUID {
        guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
            throw APIError.invalid("chat_id", "the chat id in the path must be a UUID")
        }
        return id
    }

    func create(_ request: Request, context: HearthRequestContext) async throws -> ChatView {
        let user = try context.authenticatedUser()
        let body = try await JSONRequestBody.decode(CreateChatRequest.self, from: request, context: context)
        guard let householdId = try await membership.household(of: user, for: request, coach: .chat) else {
            throw APIError(.conflict, code: "no_household", message: "create or join a household before starting a chat")
        }
        let title = body.title?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let title, title.unicodeScalars.count > 200 { throw APIError.invalid("title", "title must be at most 200 characters") }
        var members: [UUID] = []
        for (index, text) in (body.memberIds ?? []).enumerated() {
            guard let id = UUID(uuidString: text) else { throw APIError.invalid("member_ids[\(index)]", "member_ids[\(index)] must be a user id") }
            if !members.contains(id) { members.append(id) }
        }
        guard members.count <= 50 else { throw APIError.invalid("member_ids", "a chat has at most 50 members") }
        let known = try await chats.householdUsers(members, of: householdId)
        if let index = members.firstIndex(where: { !known.contains($0) }) {
            throw APIError.invalid("member_ids[\(index)]", "member_ids[\(index)] is not a user (or coach) of the household")
        }
        if !members.contains(user) { members.insert(user, at: 0) }
        let event = ChatCreated(chatId: EventIdentity.newId("chat"), householdId: householdId, title: title?.isEmpty == true ? nil : title, memberIds: members, createdBy: user)
        let position = try await publisher.publish(event, correlationId: context.correlationId)
        // Membership decides who may write: wait until it is projected so the next request works.
        try await consistency.awaitApplied(position, projections: [ChatsProjection().name])
        return ChatView(
            chatId: event.chatId.uuidString.lowercased(), householdId: householdId.uuidString.lowercased(), title: event.title,
            memberIds: members.map { $0.uuidString.lowercased() }, position: position.description)
    }

    func send(_ request: Request, context: HearthRequestContext) async throws -> SentMessage {
        let user = try context.authenticatedUser()
        let chatId = try chatId(context)
        let householdId = try await chats.requireMember(user, of: chatId)
        let body = try await JSONRequestBody.decode(SendMessageRequest.self, from: request, context: context)
        let text = body.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw APIError.invalid("text", "text must not be empty") }
        guard text.unicodeScalars.count <= Self.maxTextLength else { throw APIError.invalid("text", "text must be at most \(Self.maxTextLength) characters") }
        let clientId = body.clientId.trimmingCharacters(in: .whitespaces)
        guard !clientId.isEmpty, clientId.unicodeScalars.count <= Self.maxClientIdLength else {
            throw APIError.invalid("client_id", "client_id must be 1 to \(Self.maxClientIdLength) characters")
        }
        let messageId = Self.messageId(chat: chatId, author: user, clientId: clientId)
        if let stored = try await chats.message(messageId, in: chatId) {
            return SentMessage(message: stored, position: nil, duplicate: true)
        }
        let authorName = try await chats.displayName(of: user) ?? "someone"
        let event = ChatMessageSent(
            messageId: messageId, chatId: chatId, householdId: householdId, authorId: user, authorName: authorName, text: text,
            clientId: clientId)
        let envelope = publisher.envelope(event, correlationId: context.correlationId)
        let position = try await publisher.publish(envelope)
        let view = ChatMessageView(
            messageId: messageId.uuidString.lowercased(), chatId: chatId.uuidString.lowercased(), authorId: user.uuidString.lowercased(),
            authorName: authorName, text: text, clientId: clientId, sentAt: envelope.metadata.occurredAt)
        return SentMessage(message: view, position: position.description, duplicate: false)
    }

    func list(_ request: Request, context: HearthRequestContext) async throws -> MessagePage {
        let user = try context.authenticatedUser()
        let chatId = try chatId(context)
        let pending = try consistency.pendingRead(in: request, projections: [.chats: [ChatsProjection().name]], writtenBy: "POST /v1/chats/{id}/messages")
        _ = try await chats.requireMember(user, of: chatId)
        try await consistency.wait(for: pending)
        let page = try PageQuery(request, defaultLimit: 50, range: 1...200, beforeWhat: "a message id")
        let messages = try await chats.messages(in: chatId, before: page.before, limit: page.limit)
        return MessagePage(messages: messages, nextBefore: messages.count == page.limit ? messages.last?.messageId : nil)
    }

    /// The caller's chats across their households (or the one `X-Hearth-Household` names), newest
    /// activity first, each with its last message, unread count and current members.
    func chatList(_ request: Request, context: HearthRequestContext) async throws -> ChatList {
        let user = try context.authenticatedUser()
        let pending = try consistency.pendingRead(in: request, projections: [.chats: [ChatsProjection().name]], writtenBy: "a chat write")
        let paging = try PageQuery(request, defaultLimit: 20, range: 1...100, beforeWhat: "a chat id")
        var household: UUID?
        if request.headers[MembershipReadModel.householdHeader] != nil {
            household = try await membership.household(of: user, for: request, coach: .chat)
        }
        try await consistency.wait(for: pending)
        let page = try await chats.chats(of: user, household: household, before: paging.before, limit: paging.limit)
        return ChatList(chats: page, nextBefore: page.count == paging.limit ? page.last?.chatId : nil)
    }

    func markRead(_ request: Request, context: HearthRequestContext) async throws -> ReadReceipt {
        let user = try context.authenticatedUser()
        let chatId = try chatId(context)
        _ = try await chats.requireMember(user, of: chatId)
        let body = try await JSONRequestBody.decode(ReadRequest.self, from: request, context: context)
        guard let upTo = UUID(uuidString: body.upTo) else { throw APIError.invalid("up_to", "up_to must be a message id") }
        guard try await chats.message(upTo, in: chatId) != nil else { throw APIError.invalid("up_to", "up_to is not a message of this chat") }
        let position = try await publisher.publish(ChatRead(chatId: chatId, userId: user, upTo: upTo), correlationId: context.correlationId)
        return ReadReceipt(chatId: chatId.uuidString.lowercased(), upTo: upTo.uuidString.lowercased(), position: position.description)
    }
}
