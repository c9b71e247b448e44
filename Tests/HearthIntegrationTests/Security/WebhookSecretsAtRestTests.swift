import Foundation
import HearthEvents
import HearthStore
import NotifierService
import PostgresNIO
import Testing

extension BackboneSuite {
    /// A webhook's signing secret is in no event and in no table in the clear: the gateway seals
    /// it (`webhook_secrets`), the events name the row, the notifier opens it to sign. Secrets
    /// from before (carried by v1 events, or stored in plaintext) are sealed too.
    @Suite struct WebhookSecretsAtRest {
        @Test func secretsAreSealedNamedByReferenceAndRotationSignsWithTheNewOne() async throws {
            let receiver = try await FakeWebhookReceiver.start()
            defer { Task { await receiver.stop() } }
            try await NotifierStack.with { stack, _ in
                let user = try await GatewayUser.signIn(stack.gateway)
                let webhooks = stack.gateway.baseURL.appendingPathComponent("v1/webhooks")
                let first = "first-secret-\(UUID().uuidString)"
                let registered = try await HTTPTestClient.postJSON(
                    webhooks, ["url": receiver.url("/hooks/rotating"), "secret": first], headers: user.headers)
                #expect(registered.status == 202, "\(String(decoding: registered.body, as: UTF8.self))")
                let webhookId = try #require((registered.json["webhook_id"] as? String).flatMap(UUID.init(uuidString:)))
                #expect(try await KafkaTestEnvironment.eventually { try await Self.activeWebhook(webhookId) })

                // Delivered and signed with the secret given, opened from its sealed row.
                _ = try await stack.postReminder(user, title: "Bins out", at: Date().addingTimeInterval(1), channels: ["webhook"])
                #expect(await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { !receiver.responder.requests(to: "/hooks/rotating").isEmpty })
                #expect(try Self.signed(receiver.responder.requests(to: "/hooks/rotating").last, with: first))

                // With an Idempotency-Key too: an answer carrying a secret is never kept.
                let rotated = try await HTTPTestClient.send(
                    "POST", webhooks.appendingPathComponent("\(webhookId.uuidString.lowercased())/rotate"),
                    headers: user.headers(["Idempotency-Key": UUID().uuidString]))
                #expect(rotated.status == 200)
                let second = try #require(rotated.json["secret"] as? String)
                let refs = try await Self.secretRows(webhookId)
                #expect(refs.count == 2, "the old secret stays a while, for deliveries signed before the rotation was projected")
                #expect(try await KafkaTestEnvironment.eventually { try await Self.projectedRef(webhookId) == refs.last }, "the notifier names the new one")
                _ = try await stack.postReminder(user, title: "Recycling", at: Date().addingTimeInterval(1), channels: ["webhook"])
                #expect(await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { receiver.responder.requests(to: "/hooks/rotating").count >= 2 })
                let afterRotation = receiver.responder.requests(to: "/hooks/rotating").last
                #expect(try Self.signed(afterRotation, with: second))
                #expect(try !Self.signed(afterRotation, with: first))

                // Neither secret is anywhere in the clear: not in a table, not in the archive of events.
                let holding = try await Self.placesHolding([first, second])
                #expect(holding.isEmpty, "in the clear in \(holding)")

                #expect(try await HTTPTestClient.send("DELETE", webhooks.appendingPathComponent(webhookId.uuidString.lowercased()), headers: user.headers).status == 202)
                #expect(try await Self.secretRows(webhookId).isEmpty, "a removed webhook's secret goes with it")
            }
        }

        @Test func aSecretAnOldEventCarriedOrAnOldRowHeldIsSealedAndStillSigns() async throws {
            let receiver = try await FakeWebhookReceiver.start()
            defer { Task { await receiver.stop() } }
            try await NotifierStack.with { stack, _ in
                let user = try await GatewayUser.signIn(stack.gateway)
                let userId = try #require(UUID(uuidString: user.userId))
                // A v1 event, as an older gateway published it: the secret inline.
                let legacy = "legacy-secret-\(UUID().uuidString)"
                let webhookId = UUID()
                let publisher = EventPublisher(producer: try KafkaTestEnvironment.producer(clientId: "hearth-tests-webhook-v1"), source: "tests", keys: nil)
                try await publisher.publish(
                    WebhookRegistered(webhookId: webhookId, userId: userId, url: receiver.url("/hooks/legacy"), secret: legacy, events: []),
                    correlationId: "webhook-v1-\(webhookId)")
                #expect(try await KafkaTestEnvironment.eventually { try await Self.activeWebhook(webhookId) })
                #expect(try await Self.placesHolding([legacy]).filter { $0 != "event_log" }.isEmpty, "sealed when projected")
                _ = try await stack.postReminder(user, title: "Old hook", at: Date().addingTimeInterval(1), channels: ["webhook"])
                #expect(await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { !receiver.responder.requests(to: "/hooks/legacy").isEmpty })
                #expect(try Self.signed(receiver.responder.requests(to: "/hooks/legacy").last, with: legacy))

                // A row from before secrets were sealed: the notifier seals it when it starts.
                let plaintext = "plaintext-secret-\(UUID().uuidString)"
                try await NotifierDatabase.query { client in
                    try await client.query(
                        "UPDATE notification_webhooks SET secret = \(plaintext), legacy_secret_sealed = NULL WHERE webhook_id = \(webhookId)",
                        logger: TestEnvironment.logger)
                }
                let restarted = try await stack.launchNotifier()
                #expect(try await KafkaTestEnvironment.eventually { try await Self.placesHolding([plaintext]).isEmpty }, "sealed at start-up")
                _ = try await stack.postReminder(user, title: "Older hook", at: Date().addingTimeInterval(1), channels: ["webhook"])
                #expect(await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { receiver.responder.requests(to: "/hooks/legacy").count >= 2 })
                #expect(try Self.signed(receiver.responder.requests(to: "/hooks/legacy").last, with: plaintext))
                await restarted.stop()
            }
        }

        /// Whether a delivery carries a valid signature made with `secret`.
        static func signed(_ delivery: ReceivedRequest?, with secret: String) throws -> Bool {
            let delivery = try #require(delivery)
            let timestamp = try #require(delivery.header(WebhookSignature.timestampHeader).flatMap(Int.init))
            let signature = try #require(delivery.header(WebhookSignature.signatureHeader))
            return WebhookSignature.verify(secret: secret, timestamp: timestamp, body: delivery.body, signature: signature)
        }

        @Sendable static func activeWebhook(_ id: UUID) async throws -> Bool {
            try await NotifierDatabase.query { client in
                let rows = try await client.query("SELECT active FROM notification_webhooks WHERE webhook_id = \(id)", logger: TestEnvironment.logger)
                for try await active in rows.decode(Bool.self) { return active }
                return false
            }
        }

        @Sendable static func secretRows(_ id: UUID) async throws -> [UUID] {
            try await TestEnvironment.withPostgres { client in
                var refs: [UUID] = []
                for try await ref in try await client.query(
                    "SELECT secret_ref FROM webhook_secrets WHERE webhook_id = \(id) ORDER BY created_at", logger: TestEnvironment.logger)
                    .decode(UUID.self) { refs.append(ref) }
                return refs
            }
        }

        @Sendable static func projectedRef(_ id: UUID) async throws -> UUID? {
            try await NotifierDatabase.query { client in
                let rows = try await client.query("SELECT secret_ref FROM notification_webhooks WHERE webhook_id = \(id)", logger: TestEnvironment.logger)
                for try await ref in rows.decode(UUID?.self) { return ref }
                return nil
            }
        }

        /// Every table (the event archive included) whose rows' text holds one of `strings`.
        @Sendable static func placesHolding(_ strings: [String]) async throws -> [String] {
            try await TestEnvironment.withPostgres { client in
                var tables: [String] = []
                for try await table in try await client.query(
                    "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1",
                    logger: TestEnvironment.logger
                ).decode(String.self) { tables.append(table) }
                var found: [String] = []
                for table in tables {
                    for string in strings {
                        var binds = PostgresBindings()
                        binds.append(string)
                        let query = PostgresQuery(unsafeSQL: "SELECT count(*)::int FROM \"\(table)\" t WHERE t::text LIKE '%' || $1 || '%'", binds: binds)
                        if try await client.query(query, logger: TestEnvironment.logger).collect().first?.decode(Int.self) ?? 0 > 0 { found.append(table) }
                    }
                }
                return found
            }
        }
    }
}
