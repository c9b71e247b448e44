import Crypto
import Foundation
import HearthEvents
import HearthPrivacy
import HearthRuntime
import HearthStore
import Hummingbird
import Logging
import PostgresNIO
import ServiceLifecycle

/// Reminders, devices, webhooks, notification settings and the in-app inbox:
///
/// - `POST /v1/reminders`, `DELETE /v1/reminders/{id}`
/// - `POST /v1/devices`, `DELETE /v1/devices/{token}`
/// - `POST /v1/webhooks`
/// - `PUT /v1/notifications/settings`
/// - `GET /v1/notifications?unread=&cursor=&limit=`, `POST /v1/notifications/{id}/read`,
///   `GET /v1/notifications/stream` (SSE)
///
/// Writes become events the notifier projects; reads come from the notifier's read models.
struct NotificationRoutes: Sendable {
    let publisher: EventPublisher
    let membership: MembershipReadModel
    let inbox: InboxReadModel
    let hub: NotificationHub
    let allowPlainHTTPWebhooks: Bool
    let allowPrivateWebhookTargets: Bool
    let heartbeatInterval: Duration
    let client: PostgresClient
    let streams: OpenStreams
    /// Nil in production without `HEARTH_SECRETS_KEY`: webhooks answer 503.
    let webhookSecrets: WebhookSecretStore?
    /// Whether a stream's token still stands.
    let sessions: AuthSessions

    static let webhooksPerUser = 5

    static func make(
        host: ServiceHost, membership: MembershipReadModel, heartbeat: Duration, allowPrivateWebhookTargets: Bool, streams: OpenStreams,
        secrets: SecretBox?, sessions: AuthSessions
    ) -> (routes: NotificationRoutes, services: [any Service]) {
        let hub = NotificationHub(bootstrapServers: host.settings.kafkaBootstrap, keys: host.keys, logger: host.logger)
        host.readiness.addCheck("follower:notifications") { hub.isFollowing }
        let routes = NotificationRoutes(
            publisher: host.publisher, membership: membership, inbox: InboxReadModel(client: host.postgres, logger: host.logger), hub: hub,
            allowPlainHTTPWebhooks: host.settings.mode != .production, allowPrivateWebhookTargets: allowPrivateWebhookTargets,
            heartbeatInterval: heartbeat, client: host.postgres, streams: streams,
            webhookSecrets: secrets.map { WebhookSecretStore(client: host.postgres, box: $0, logger: host.logger) }, sessions: sessions)
        return (routes, [hub])
    }

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.post("reminders") { request, context in EditedResponse(status: .accepted, response: try await createReminder(request, context)) }
        routes.delete("reminders/:id") { request, context in EditedResponse(status: .accepted, response: try await cancelReminder(request, context)) }
        routes.post("devices") { request, context in EditedResponse(status: .accepted, response: try await registerDevice(request, context)) }
        routes.delete("devices/:token") { request, context in EditedResponse(status: .accepted, response: try await removeDevice(request, context)) }
        routes.post("webhooks") { request, context in EditedResponse(status: .accepted, response: try await registerWebhook(request, context)) }
        routes.get("webhooks") { request, context in try await listWebhooks(request, context) }
        routes.delete("webhooks/{id}") { request, context in EditedResponse(status: .accepted, response: try await removeWebhook(request, context)) }
        routes.post("webhooks/{id}/rotate") { request, context in try await rotateWebhookSecret(request, context) }
        routes.put("notifications/settings") { request, context in
            EditedResponse(status: .accepted, response: try await updateSettings(request, context))
        }
        routes.get("notifications") { request, context in try await list(request, context) }
        routes.get("notifications/stream") { request, context in try stream(request, context) }
        routes.post("notifications/:id/read") { request, context in EditedResponse(status: .accepted, response: try await markRead(request, context)) }
    }

    // MARK: Reminders

    struct ReminderAccepted: ResponseEncodable {
        @LowercaseID var reminderId: UUID
        let dueAt: String
        let position: String

        enum CodingKeys: String, CodingKey {
            case reminderId = "reminder_id"
            case dueAt = "due_at"
            case position
        }
    }

    func createReminder(_ request: Request, _ context: HearthRequestContext) async throws -> ReminderAccepted {
        let user = try context.authenticatedUser()
        let body = try await JSONRequestBody.decode(ReminderRequestBody.self, from: request, context: context).validated()
        let household = try await membership.household(of: user, for: request)
        // The reminder is about a person of the caller's household and goes to the caller.
        if let member = body.memberId {
            guard let household, try await membership.householdHasMember(member, household) else {
                throw APIError.invalid("member_id", "member_id must be a member of your household")
            }
        }
        let event = ReminderRequested(
            reminderId: EventIdentity.newId("reminder"), userId: user, householdId: household, memberId: body.memberId,
            title: body.title, body: body.body, dueAt: body.dueAt, urgent: body.urgent, channels: body.channels, source: "api")
        let position = try await publisher.publish(event, correlationId: context.correlationId)
        return ReminderAccepted(reminderId: event.reminderId, dueAt: Timestamp.format(event.dueAt), position: position.description)
    }

    struct Accepted: ResponseEncodable {
        let position: String
    }

    func cancelReminder(_ request: Request, _ context: HearthRequestContext) async throws -> Accepted {
        let user = try context.authenticatedUser()
        let id = try context.uuidParameter("id")
        // Someone else's reminder looks like none at all. One not yet projected is cancelled
        // anyway: the cancel names the user, and the projection applies it only to their own.
        if let owner = try await inbox.reminderOwner(id), owner != user { throw APIError.notFound("reminder") }
        let position = try await publisher.publish(
            ReminderCancelled(reminderId: id, userId: user, cancelledBy: user), correlationId: context.correlationId)
        return Accepted(position: position.description)
    }

    // MARK: Devices and webhooks

    func registerDevice(_ request: Request, _ context: HearthRequestContext) async throws -> Accepted {
        let user = try context.authenticatedUser()
        let body = try await JSONRequestBody.decode(DeviceRequestBody.self, from: request, context: context).validated()
        // A token stays with the user who registered it until they remove it or APNs reports it
        // invalid: anyone else who knows it cannot have that phone's notifications moved to them.
        // (The notifier's projection keeps it too, should two registrations race.)
        for try await owner in try await client.query(
            "SELECT user_id FROM notification_devices WHERE token = \(body.token) AND active", logger: context.logger
        ).decode(UUID.self) where owner != user {
            throw APIError(.conflict, code: "device_token_taken", message: "this device token is registered to another account")
        }
        let position = try await publisher.publish(
            DeviceRegistered(userId: user, platform: body.platform, token: body.token, environment: body.environment),
            correlationId: context.correlationId)
        return Accepted(position: position.description)
    }

    func removeDevice(_ request: Request, _ context: HearthRequestContext) async throws -> Accepted {
        let user = try context.authenticatedUser()
        let token = try DeviceTokenRule.validated(context.parameters.get("token") ?? "", field: "token")
        // Someone else's device looks like none at all (the projection would ignore the removal
        // anyway: it names the user). One not yet projected is removed for its user as asked.
        for try await owner in try await client.query(
            "SELECT user_id FROM notification_devices WHERE token = \(token) AND active", logger: context.logger
        ).decode(UUID.self) where owner != user {
            throw APIError.notFound("device")
        }
        let position = try await publisher.publish(DeviceRemoved(userId: user, token: token, reason: "user"), correlationId: context.correlationId)
        return Accepted(position: position.description)
    }

    struct WebhookAccepted: ResponseEncodable {
        @LowercaseID var webhookId: UUID
        let events: [String]
        let position: String

        enum CodingKeys: String, CodingKey {
            case webhookId = "webhook_id"
            case events, position
        }
    }

    func registerWebhook(_ request: Request, _ context: HearthRequestContext) async throws -> WebhookAccepted {
        let user = try context.authenticatedUser()
        let body = try await JSONRequestBody.decode(WebhookRequestBody.self, from: request, context: context)
            .validated(allowPlainHTTP: allowPlainHTTPWebhooks, allowPrivateTargets: allowPrivateWebhookTargets)
        // Five per user: each is a delivery on every reminder. Checked, then published: two
        // registrations racing may both pass, which costs a sixth, not a breach.
        var active = 0
        for try await count in try await client.query(
            "SELECT count(*)::int FROM notification_webhooks WHERE user_id = \(user) AND active", logger: context.logger
        ).decode(Int.self) { active = count }
        guard active < Self.webhooksPerUser else {
            throw APIError(.conflict, code: "webhook_limit", message: "at most \(Self.webhooksPerUser) webhooks per user")
        }
        let store = try configuredSecrets()
        let webhookId = EventIdentity.newId("webhook")
        // The secret is sealed at rest first; the event names the row, never the secret.
        let ref = try await store.store(body.secret, webhook: webhookId, user: user)
        let event = WebhookRegisteredV2(webhookId: webhookId, userId: user, url: body.url, events: body.events, secretRef: ref)
        let position = try await publisher.publish(event, correlationId: context.correlationId)
        return WebhookAccepted(webhookId: event.webhookId, events: event.events, position: position.description)
    }

    /// A webhook as its owner sees it: never its secret (shown once, when set).
    struct WebhookView: Encodable, Sendable {
        @LowercaseID var webhookId: UUID
        let url: String
        let events: [String]
        let active: Bool
        let updatedAt: Date

        enum CodingKeys: String, CodingKey {
            case webhookId = "webhook_id"
            case url, events, active
            case updatedAt = "updated_at"
        }
    }

    struct WebhookList: ResponseEncodable {
        let webhooks: [WebhookView]
    }

    struct RotatedSecret: ResponseEncodable {
        @LowercaseID var webhookId: UUID
        let secret: String
        let position: String

        enum CodingKeys: String, CodingKey {
            case webhookId = "webhook_id"
            case secret, position
        }
    }

    func listWebhooks(_ request: Request, _ context: HearthRequestContext) async throws -> WebhookList {
        let user = try context.authenticatedUser()
        var webhooks: [WebhookView] = []
        for try await (id, url, events, active, updated) in try await client.query(
            "SELECT webhook_id, url, events, active, updated_at FROM notification_webhooks WHERE user_id = \(user) ORDER BY updated_at, webhook_id",
            logger: context.logger
        ).decode((UUID, String, [String], Bool, Date).self) {
            webhooks.append(WebhookView(webhookId: id, url: url, events: events, active: active, updatedAt: updated))
        }
        return WebhookList(webhooks: webhooks)
    }

    /// The caller's active webhook `{id}`; another user's is as absent as none.
    private func ownedActiveWebhook(_ context: HearthRequestContext, user: UUID) async throws -> UUID {
        guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
            throw APIError.invalid("id", "the webhook id in the path must be a UUID")
        }
        for try await _ in try await client.query(
            "SELECT 1::int FROM notification_webhooks WHERE webhook_id = \(id) AND user_id = \(user) AND active", logger: context.logger
        ).decode(Int.self) { return id }
        throw APIError.notFound("webhook")
    }

    func removeWebhook(_ request: Request, _ context: HearthRequestContext) async throws -> Accepted {
        let user = try context.authenticatedUser()
        let id = try await ownedActiveWebhook(context, user: user)
        let position = try await publisher.publish(WebhookRemoved(webhookId: id, userId: user), correlationId: context.correlationId)
        try await webhookSecrets?.removeSecrets(of: id)
        return Accepted(position: position.description)
    }

    /// A new secret, made here and shown once: deliveries are signed with it from now on.
    func rotateWebhookSecret(_ request: Request, _ context: HearthRequestContext) async throws -> RotatedSecret {
        let user = try context.authenticatedUser()
        let id = try await ownedActiveWebhook(context, user: user)
        let store = try configuredSecrets()
        let secret = SecretToken.random()
        let ref = try await store.store(secret, webhook: id, user: user)
        let position = try await publisher.publish(
            WebhookSecretRotatedV2(webhookId: id, userId: user, secretRef: ref), correlationId: context.correlationId)
        // The old secret stays a while (`WebhookSecretStore.sweepSuperseded`): a delivery signed
        // before the notifier projected the rotation still finds it.
        return RotatedSecret(webhookId: id, secret: secret, position: position.description)
    }

    private func configuredSecrets() throws -> WebhookSecretStore {
        guard let webhookSecrets else {
            throw APIError(.serviceUnavailable, code: "webhooks_unavailable", message: "webhooks need HEARTH_SECRETS_KEY on this server")
        }
        return webhookSecrets
    }

    func updateSettings(_ request: Request, _ context: HearthRequestContext) async throws -> Accepted {
        let user = try context.authenticatedUser()
        let body = try await JSONRequestBody.decode(NotificationSettingsBody.self, from: request, context: context).validated()
        let position = try await publisher.publish(
            NotificationSettingsUpdatedV2(
                userId: user, timeZone: body.timeZone, quietHoursStart: body.quietHoursStart, quietHoursEnd: body.quietHoursEnd,
                channels: body.channels, choreReminderLeadMinutes: body.choreReminderLeadMinutes),
            correlationId: context.correlationId)
        return Accepted(position: position.description)
    }

    // MARK: Inbox

    struct InboxEntry: Encodable {
        @LowercaseID var id: UUID
        @LowercaseID var reminderId: UUID
        let title: String
        let body: String?
        let createdAt: String
        let read: Bool

        enum CodingKeys: String, CodingKey {
            case id
            case reminderId = "reminder_id"
            case title, body
            case createdAt = "created_at"
            case read
        }

        init(_ item: InboxItem) {
            id = item.notificationId
            reminderId = item.reminderId
            title = item.title
            body = item.body
            createdAt = Timestamp.format(item.createdAt)
            read = item.read
        }
    }

    struct InboxPage: ResponseEncodable {
        let notifications: [InboxEntry]
        let nextCursor: String?

        enum CodingKeys: String, CodingKey {
            case notifications
            case nextCursor = "next_cursor"
        }
    }

    func list(_ request: Request, _ context: HearthRequestContext) async throws -> InboxPage {
        let user = try context.authenticatedUser()
        let query = request.uri.queryParameters
        var unreadOnly = false
        if let text = query.get("unread") {
            switch text {
            case "true", "1": unreadOnly = true
            case "false", "0", "": unreadOnly = false
            default: throw APIError.invalid("unread", "unread must be true or false")
            }
        }
        var cursor: InboxReadModel.Cursor?
        if let text = query.get("cursor"), !text.isEmpty {
            guard let parsed = InboxReadModel.Cursor(text: text) else { throw APIError.invalid("cursor", "cursor is not one this API returned") }
            cursor = parsed
        }
        var limit = 50
        if let text = query.get("limit") {
            guard let value = Int(text), (1...100).contains(value) else { throw APIError.invalid("limit", "limit must be 1 to 100") }
            limit = value
        }
        let page = try await inbox.page(userId: user, unreadOnly: unreadOnly, after: cursor, limit: limit)
        return InboxPage(notifications: page.items.map(InboxEntry.init), nextCursor: page.next?.text)
    }

    func markRead(_ request: Request, _ context: HearthRequestContext) async throws -> Accepted {
        let user = try context.authenticatedUser()
        let id = try context.uuidParameter("id")
        guard try await inbox.exists(id, userId: user) else { throw APIError.notFound("notification") }
        let position = try await publisher.publish(NotificationRead(userId: user, notificationId: id), correlationId: context.correlationId)
        return Accepted(position: position.description)
    }

    /// Server-sent events: `event: notification` with the entry as `data` and its id as `id`, and
    /// a `: heartbeat` comment while idle. It subscribes before answering, so nothing delivered
    /// after the response starts is missed.
    func stream(_ request: Request, _ context: HearthRequestContext) throws -> Response {
        let user = try context.authenticatedUser()
        let ticket = try streams.admit(user)
        let items = hub.subscribe(user)
        let interval = heartbeatInterval
        let credential = StreamCredential(context, sessions: sessions)
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            ticket.hold()
            try await writer.write(ByteBuffer(string: ": connected\n\n"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                let (ticks, tick) = AsyncStream<Void>.makeStream()
                group.addTask {
                    while !Task.isCancelled {
                        try await Task.sleep(for: interval)
                        tick.yield()
                    }
                }
                // Merge the two sources by forwarding both into one ordered writer loop.
                let (merged, sink) = AsyncStream<InboxItem?>.makeStream()
                group.addTask {
                    for await item in items { sink.yield(item) }
                    sink.finish()
                }
                group.addTask {
                    for await _ in ticks { sink.yield(nil) }
                }
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                for await item in merged {
                    // Checked at every heartbeat and before each entry (a cache lookup).
                    guard await credential.stands() else {
                        try await writer.write(ByteBuffer(string: StreamCredential.closedFrame))
                        break
                    }
                    if let item {
                        let data = String(decoding: try encoder.encode(InboxEntry(item)), as: UTF8.self)
                        try await writer.write(ByteBuffer(
                            string: "event: notification\nid: \(item.notificationId.uuidString.lowercased())\ndata: \(data)\n\n"))
                    } else {
                        try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                    }
                }
                group.cancelAll()
                tick.finish()
            }
            try await writer.finish(nil)
        })
    }
}
