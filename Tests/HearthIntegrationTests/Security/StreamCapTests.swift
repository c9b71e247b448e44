import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import Testing

extension BackboneSuite {
    /// One user cannot hold open streams without end: past the cap a new one is a 429, and closing
    /// one makes room.
    @Suite struct StreamCap {
        @Test func streamsPastTheCapAre429UntilOneCloses() async throws {
            // A heartbeat each second: a stream whose client left is noticed at the next write.
            try await ServiceProcess.with("gateway", environment: ["HEARTH_STREAMS_PER_USER": "2", "HEARTH_NOTIFICATIONS_HEARTBEAT_S": "1"]) { gateway in
                let url = gateway.baseURL.appendingPathComponent("v1/notifications/stream")
                let user = try await GatewayUser.signIn(gateway)
                let first = NotificationStreamReader()
                let second = NotificationStreamReader()
                first.start(url, headers: user.headers)
                second.start(url, headers: user.headers)
                #expect(await KafkaTestEnvironment.eventually { first.connected && second.connected })

                let third = try await HTTPTestClient.send("GET", url, headers: user.headers, idleTimeout: 5)
                #expect(third.status == 429)
                #expect((third.json["error"] as? [String: Any])?["code"] as? String == "too_many_streams")
                // Run streams and the wellbeing WebSocket count too: refused before any run starts
                // (no quota spent) and before any upgrade.
                let run = try await HTTPTestClient.postJSON(
                    gateway.baseURL.appendingPathComponent("v1/assist/stream"), ["goal": "dinners for the week", "mode": "meals"], headers: user.headers)
                #expect(run.status == 429 && (run.json["error"] as? [String: Any])?["code"] as? String == "too_many_streams", "\(run.text)")
                // The wellbeing WebSocket: no upgrade past the cap; asked plainly, the route says why.
                let live = "ws://127.0.0.1:\(gateway.baseURL.port ?? 0)/v1/wellbeing/live"
                let headers: HTTPFields = [.authorization: "Bearer \(user.token)"]
                await #expect(throws: (any Error).self) {
                    try await WebSocketClient.connect(url: live, configuration: .init(additionalHeaders: headers), logger: Logger(label: "cap-test")) { _, outbound, _ in
                        try await outbound.close(.normalClosure, reason: nil)
                    }
                }
                let plain = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/wellbeing/live"), headers: user.headers, idleTimeout: 5)
                #expect(plain.status == 429 && (plain.json["error"] as? [String: Any])?["code"] as? String == "too_many_streams", "\(plain.text)")
                // Another user is not affected.
                let other = try await GatewayUser.signIn(gateway)
                let theirs = NotificationStreamReader()
                theirs.start(url, headers: other.headers)
                #expect(await KafkaTestEnvironment.eventually { theirs.connected })
                let asked = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/wellbeing/live"), headers: other.headers, idleTimeout: 5)
                #expect(asked.status == 426 && (asked.json["error"] as? [String: Any])?["code"] as? String == "websocket_required", "\(asked.text)")
                #expect(try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/wellbeing/live"), idleTimeout: 5).status == 401)

                await first.stop()
                var replacement = NotificationStreamReader()
                let deadline = ContinuousClock.now + .seconds(20)
                while ContinuousClock.now < deadline {
                    replacement.start(url, headers: user.headers)
                    while replacement.status == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
                    if replacement.status == 200 { break }
                    await replacement.stop()
                    replacement = NotificationStreamReader()
                    try await Task.sleep(for: .milliseconds(300))
                }
                #expect(replacement.status == 200, "a closed stream makes room")
                await replacement.stop()
                await second.stop()
                await theirs.stop()
            }
        }
    }
}
