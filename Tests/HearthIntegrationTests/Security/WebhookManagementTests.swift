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
                    #expect(try await KafkaTestEnvironment.eventually { try await Self.storedSecret(id) == secret }, "deliveries are signed with it")

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

        static func storedSecret(_ id: String) async throws -> String? {
            try await TestEnvironment.withPostgres { client in
                try await client.query("SELECT secret FROM notification_webhooks WHERE webhook_id::text = \(id)", logger: TestEnvironment.logger)
                    .collect().first?.decode(String.self)
            }
        }
    }
}
