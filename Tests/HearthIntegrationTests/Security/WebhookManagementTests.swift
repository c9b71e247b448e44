import Foundation
import Testing

extension BackboneSuite {
    /// A user lists, rotates and removes their own webhooks, never sees a secret twice, and cannot
    /// touch anyone else's.
    @Suite struct WebhookManagement {
        @Test func ownersListRotateAndRemoveTheirWebhooksAndNobodyElseCan() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                try await ServiceProcess.with(["notifier"]) {
                    let webhooks = gateway.baseURL.appendingPathComponent("v1/webhooks")
                    let owner = try await GatewayUser.signIn(gateway)
                    let other = try await GatewayUser.signIn(gateway)
                    let registered = try await HTTPTestClient.postJSON(
                        webhooks, ["url": "https://hooks.example.com/owner", "secret": "the-first-secret-16"], headers: owner.headers)
                    let id = try #require(registered.json["webhook_id"] as? String)
                    #expect(try await KafkaTestEnvironment.eventually { try await Self.list(webhooks, owner).count == 1 })
                    let listed = try await HTTPTestClient.send("GET", webhooks, headers: owner.headers)
                    #expect(!String(decoding: listed.body, as: UTF8.self).contains("the-first-secret-16"), "no secret in a listing")
                    #expect(try await Self.list(webhooks, other).isEmpty)

                    // Someone else's webhook is as absent as none.
                    #expect(try await HTTPTestClient.send("POST", webhooks.appendingPathComponent("\(id)/rotate"), headers: other.headers).status == 404)
                    #expect(try await HTTPTestClient.send("DELETE", webhooks.appendingPathComponent(id), headers: other.headers).status == 404)

                    let rotated = try await HTTPTestClient.send("POST", webhooks.appendingPathComponent("\(id)/rotate"), headers: owner.headers)
                    #expect(rotated.status == 200)
                    let secret = try #require(rotated.json["secret"] as? String)
                    #expect(secret.count >= 40)
                    #expect(try await KafkaTestEnvironment.eventually { try await Self.namesItsNewestSealedSecret(id) }, "the notifier names the new secret")

                    #expect(try await HTTPTestClient.send("DELETE", webhooks.appendingPathComponent(id), headers: owner.headers).status == 202)
                    #expect(try await KafkaTestEnvironment.eventually {
                        try await Self.list(webhooks, owner).first?["active"] as? Bool == false
                    })
                    #expect(try await HTTPTestClient.send("DELETE", webhooks.appendingPathComponent(id), headers: owner.headers).status == 404, "gone")
                }
            }
        }

        static func list(_ url: URL, _ user: GatewayUser) async throws -> [[String: Any]] {
            try await HTTPTestClient.send("GET", url, headers: user.headers).json["webhooks"] as? [[String: Any]] ?? []
        }

        /// The notifier's row names the newest sealed secret the gateway keeps for the webhook
        /// (the rotation's).
        @Sendable static func namesItsNewestSealedSecret(_ id: String) async throws -> Bool {
            try await TestEnvironment.withPostgres { client in
                let rows = try await client.query(
                    """
                    SELECT count(*)::int FROM notification_webhooks w
                    WHERE w.webhook_id::text = \(id)
                      AND w.secret_ref = (SELECT secret_ref FROM webhook_secrets s WHERE s.webhook_id::text = \(id) ORDER BY created_at DESC LIMIT 1)
                    """, logger: TestEnvironment.logger)
                return try await rows.collect().first?.decode(Int.self) == 1
            }
        }
    }
}
