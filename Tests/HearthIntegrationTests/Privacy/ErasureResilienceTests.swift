import Foundation
import HearthCtlCommands
import HearthStore
import Testing

extension BackboneSuite {
    /// An erasure completes whatever happens around it: the gateway and the notifier SIGKILLed
    /// right after the request (and started again), and every projection replayed while the
    /// erasure goes on.
    @Suite struct ErasureResilience {
        @Test func anErasureSurvivesKilledServicesAndAConcurrentReplay() async throws {
            let tag = UUID().uuidString.prefix(8).lowercased()
            let strings = ["Zed \(tag)", "Zed's note \(tag)", "Zed's reminder \(tag)"]
            let environment = AccountDeletion.erasingAtOnce
            // Zed's data, through a first gateway and notifier.
            let (zed, chatId) = try await ServiceProcess.with("gateway", environment: environment) { gateway in
                try await ServiceProcess.with(["notifier"]) {
                    let base = gateway.baseURL
                    let (zed, _) = try await GatewayUser.withHousehold(gateway, name: "Zed \(tag)")
                    let chat = try await HTTPTestClient.postJSON(base.appendingPathComponent("v1/chats"), ["title": "Notes"], headers: zed.headers)
                    let chatId = try #require(chat.json["chat_id"] as? String)
                    #expect(try await HTTPTestClient.postJSON(
                        base.appendingPathComponent("v1/chats/\(chatId)/messages"), ["text": "Zed's note \(tag)", "client_id": "z-1"], headers: zed.headers
                    ).status == 201)
                    let due = ISO8601DateFormatter().string(from: Date().addingTimeInterval(86_400))
                    #expect(try await HTTPTestClient.postJSON(
                        base.appendingPathComponent("v1/reminders"), ["title": "Zed's reminder \(tag)", "at": due], headers: zed.headers).status == 202)
                    try await ProjectionCatchUp.require(AccountDeletion.running, timeout: .seconds(60))
                    return (zed, chatId)
                }
            }
            #expect(try await AccountDeletion.tablesHolding(strings).count >= 3)

            // The request, then both services killed at once; a replay of every projection runs
            // while they come back and the eraser does its work.
            let gateway = try ServiceProcess("gateway", environment: environment)
            let notifier = try ServiceProcess("notifier")
            try await gateway.waitUntilReady()
            try await notifier.waitUntilReady()
            let deleted = try await HTTPTestClient.send("DELETE", gateway.baseURL.appendingPathComponent("v1/me"), headers: zed.headers)
            #expect(deleted.status == 202)
            await gateway.kill()
            await notifier.kill()
            let replay = try CommandLineTool.start(["replay", "--all"])
            try await ServiceProcess.with("gateway", environment: environment) { gateway in
                try await ServiceProcess.with(["notifier"]) {
                    #expect(try await KafkaTestEnvironment.eventually(timeout: .seconds(60)) { try await AccountDeletion.erased([zed.userId]) })
                    while replay.isRunning { try await Task.sleep(for: .milliseconds(100)) }
                    #expect([0, 3].contains(replay.status), "\(replay.output)\n\(replay.errors.suffix(2000))")
                    replay.stop()
                    try await ProjectionCatchUp.require(AccountDeletion.running, timeout: .seconds(60))
                    let left = try await AccountDeletion.tablesHolding(strings)
                    #expect(left.isEmpty, "still held: \(left)")
                    let messages = try await HTTPTestClient.send(
                        "GET", gateway.baseURL.appendingPathComponent("v1/chats/\(chatId)/messages"), headers: zed.headers)
                    #expect(messages.status == 401, "the erased user's session is over")
                }
            }
            // And once more from history, everything at rest.
            let again = try await CommandLineTool.run(["replay", "--all"])
            #expect([0, 3].contains(again.status), "\(again.output)\n\(again.errors.suffix(2000))")
            #expect(try await AccountDeletion.tablesHolding(strings).isEmpty)
        }
    }
}
