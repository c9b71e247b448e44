import Foundation
import Testing

extension BackboneSuite {
    /// Knowing another user's APNs token does not move that phone's notifications to you.
    @Suite struct DeviceTokenTakeover {
        @Test func aTokenStaysWithItsUserUntilTheyRemoveIt() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                try await ServiceProcess.with(["notifier"]) {
                    let devices = gateway.baseURL.appendingPathComponent("v1/devices")
                    let token = (0..<64).map { _ in String("0123456789abcdef".randomElement()!) }.joined()
                    let owner = try await GatewayUser.signIn(gateway)
                    let thief = try await GatewayUser.signIn(gateway)
                    let body: [String: Any] = ["platform": "ios", "token": token, "environment": "sandbox"]
                    #expect(try await HTTPTestClient.postJSON(devices, body, headers: owner.headers).status == 202)
                    #expect(try await KafkaTestEnvironment.eventually { try await Self.holder(of: token) == owner.userId })

                    let taken = try await HTTPTestClient.postJSON(devices, body, headers: thief.headers)
                    #expect(taken.status == 409)
                    #expect((taken.json["error"] as? [String: Any])?["code"] as? String == "device_token_taken")
                    #expect(try await HTTPTestClient.postJSON(devices, body, headers: owner.headers).status == 202, "its owner may register it again")

                    // Removed by its owner, it may go to whoever registers it next.
                    #expect(try await HTTPTestClient.send("DELETE", devices.appendingPathComponent(token), headers: owner.headers).status == 202)
                    #expect(try await KafkaTestEnvironment.eventually { try await Self.holder(of: token) == nil })
                    #expect(try await HTTPTestClient.postJSON(devices, body, headers: thief.headers).status == 202)
                    #expect(try await KafkaTestEnvironment.eventually { try await Self.holder(of: token) == thief.userId })
                }
            }
        }

        /// The active holder of `token`.
        static func holder(of token: String) async throws -> String? {
            try await TestEnvironment.withPostgres { client in
                try await client.query(
                    "SELECT user_id::text FROM notification_devices WHERE token = \(token) AND active", logger: TestEnvironment.logger
                ).collect().first?.decode(String.self)
            }
        }
    }
}
