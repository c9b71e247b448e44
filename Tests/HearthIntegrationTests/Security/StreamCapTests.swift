import Foundation
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
                // Another user is not affected.
                let other = try await GatewayUser.signIn(gateway)
                let theirs = NotificationStreamReader()
                theirs.start(url, headers: other.headers)
                #expect(await KafkaTestEnvironment.eventually { theirs.connected })

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
