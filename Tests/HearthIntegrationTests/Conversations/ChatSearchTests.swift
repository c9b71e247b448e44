import Foundation
import Testing

extension BackboneSuite {
    /// Semantic search over chat history: by meaning, and only over the caller's chats.
    @Suite struct ChatSearch {
        @Test func findsAMessageByParaphraseAndNeverAnotherHouseholds() async throws {
            try await ServiceProcess.with("embedding-worker") { _ in
                try await ServiceProcess.with("gateway", environment: ["HEARTH_RATE_LIMIT_PER_MIN": "100000"]) { gateway in
                    func chat(for user: GatewayUser) async throws -> String {
                        let created = try await HTTPTestClient.postJSON(gateway.baseURL.appendingPathComponent("v1/chats"), [:], headers: user.headers)
                        #expect(created.status == 201)
                        return try #require(created.json["chat_id"] as? String)
                    }
                    func send(_ text: String, in chatId: String, as user: GatewayUser) async throws {
                        let reply = try await HTTPTestClient.postJSON(
                            gateway.baseURL.appendingPathComponent("v1/chats/\(chatId)/messages"), ["text": text, "client_id": UUID().uuidString],
                            headers: user.headers)
                        #expect(reply.status == 201)
                    }
                    let (ours, _) = try await GatewayUser.withHousehold(gateway, name: "The Searchers")
                    let (theirs, _) = try await GatewayUser.withHousehold(gateway, name: "The Others")
                    let ourChat = try await chat(for: ours)
                    let theirChat = try await chat(for: theirs)
                    try await send("Sam twisted his knee at football and is limping", in: ourChat, as: ours)
                    try await send("We are out of bread and milk again", in: ourChat, as: ours)
                    try await send("Pick-up from school is at half three on Friday", in: ourChat, as: ours)
                    try await send("My knee has been aching since the ski trip", in: theirChat, as: theirs)

                    var components = URLComponents(url: gateway.baseURL.appendingPathComponent("v1/chats/search"), resolvingAgainstBaseURL: false)!
                    components.queryItems = [URLQueryItem(name: "q", value: "who mentioned a sore leg injury?"), URLQueryItem(name: "k", value: "3")]
                    let url = components.url!
                    var results: [[String: Any]] = []
                    let deadline = ContinuousClock.now + .seconds(60)
                    while ContinuousClock.now < deadline {
                        let reply = try await HTTPTestClient.send("GET", url, headers: ours.headers)
                        #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
                        results = reply.json["results"] as? [[String: Any]] ?? []
                        if results.count == 3 { break }
                        try await Task.sleep(for: .milliseconds(300))
                    }
                    #expect(results.count == 3, "our three messages are embedded: \(results)")
                    #expect((results.first?["text"] as? String)?.contains("twisted his knee") == true, "\(results)")
                    #expect(results.allSatisfy { $0["chat_id"] as? String == ourChat }, "another household's message appeared")

                    let blank = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/chats/search"), headers: ours.headers)
                    #expect(blank.status == 400)
                }
            }
        }
    }
}
