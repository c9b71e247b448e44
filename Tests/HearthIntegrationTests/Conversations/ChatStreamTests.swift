import Foundation
import Testing

extension BackboneSuite {
    /// `GET /v1/chats/{id}/stream` over the real gateway and the dev broker.
    @Suite struct ChatStream {
        @Test func aMemberSeesTheChatsNewMessagesAndReadReceiptsInOrderAndNothingElse() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                func url(_ path: String) -> URL { gateway.baseURL.appendingPathComponent(path) }
                let (ada, household) = try await GatewayUser.withHousehold(gateway, name: "The Streamers")
                let invite = try await HTTPTestClient.send("POST", url("v1/households/\(household)/invites"), headers: ada.headers)
                #expect(invite.status == 201, "\(String(decoding: invite.body, as: UTF8.self))")
                let ben = try await GatewayUser.signIn(gateway)
                let code = try #require(invite.json["code"] as? String)
                let joined = try await HTTPTestClient.send("POST", url("v1/invites/\(code)/accept"), headers: ben.headers)
                #expect(joined.status == 200, "\(String(decoding: joined.body, as: UTF8.self))")

                let created = try await HTTPTestClient.postJSON(url("v1/chats"), ["title": "Us", "member_ids": [ben.userId]], headers: ada.headers)
                #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
                let chatId = try #require(created.json["chat_id"] as? String)
                let other = try await HTTPTestClient.postJSON(url("v1/chats"), ["title": "Ada alone"], headers: ada.headers)
                let otherChatId = try #require(other.json["chat_id"] as? String)

                let stream = NotificationStreamReader()
                stream.start(url("v1/chats/\(chatId)/stream"), headers: ada.headers)
                let otherStream = NotificationStreamReader()
                otherStream.start(url("v1/chats/\(otherChatId)/stream"), headers: ada.headers)
                defer {
                    Task {
                        await stream.stop()
                        await otherStream.stop()
                    }
                }
                #expect(await KafkaTestEnvironment.eventually { stream.connected && otherStream.connected }, "both streams opened")

                let elsewhere = try await HTTPTestClient.postJSON(
                    url("v1/chats/\(otherChatId)/messages"), ["text": "Not for the family chat", "client_id": "o-1"], headers: ada.headers)
                #expect(elsewhere.status == 201)
                let sent = try await HTTPTestClient.postJSON(
                    url("v1/chats/\(chatId)/messages"), ["text": "On my way, back at six", "client_id": "b-1"], headers: ben.headers)
                #expect(sent.status == 201, "\(String(decoding: sent.body, as: UTF8.self))")
                let messageId = try #require((sent.json["message"] as? [String: Any])?["message_id"] as? String)
                // A receipt names a stored message, so it waits until the send is projected.
                let read = try await ConversationProfile.poll {
                    try await HTTPTestClient.postJSON(url("v1/chats/\(chatId)/read"), ["up_to": messageId], headers: ben.headers).status == 200
                }
                #expect(read, "ben's read receipt was accepted")

                #expect(await KafkaTestEnvironment.eventually { stream.events.contains { $0.name == "read" } }, "the receipt reached ada's stream")
                #expect(await KafkaTestEnvironment.eventually { !otherStream.events.isEmpty }, "the other chat's stream got its message")
                let events = stream.events
                #expect(events.map(\.name) == ["message", "read"], "\(events.map(\.data))")
                let message = try #require(events.first).json
                #expect(events.first?.id == messageId)
                #expect(message["message_id"] as? String == messageId)
                #expect(message["chat_id"] as? String == chatId)
                #expect(message["author_id"] as? String == ben.userId)
                #expect(message["text"] as? String == "On my way, back at six")
                #expect(message["client_id"] as? String == "b-1")
                #expect((message["sent_at"] as? String)?.hasSuffix("Z") == true)
                let receipt = try #require(events.last).json
                #expect(receipt["chat_id"] as? String == chatId)
                #expect(receipt["user_id"] as? String == ben.userId)
                #expect(receipt["up_to"] as? String == messageId)
                #expect(!events.contains { $0.data.contains("Not for the family chat") })
                #expect(otherStream.events.map(\.name) == ["message"])
                #expect(otherStream.events.first?.json["text"] as? String == "Not for the family chat")

                // Reconnecting with the last message id first sends what came after it.
                let later = try await HTTPTestClient.postJSON(
                    url("v1/chats/\(chatId)/messages"), ["text": "Make that seven", "client_id": "b-2"], headers: ben.headers)
                let laterId = try #require((later.json["message"] as? [String: Any])?["message_id"] as? String)
                let stored = try await ConversationProfile.poll {
                    let page = try await HTTPTestClient.send("GET", url("v1/chats/\(chatId)/messages"), headers: ada.headers)
                    return (page.json["messages"] as? [[String: Any]] ?? []).count == 2
                }
                #expect(stored)
                let resumed = NotificationStreamReader()
                resumed.start(url("v1/chats/\(chatId)/stream"), headers: ada.headers(["Last-Event-ID": messageId]))
                defer { Task { await resumed.stop() } }
                #expect(await KafkaTestEnvironment.eventually { !resumed.events.isEmpty }, "the missed message was replayed")
                #expect(resumed.events.map(\.id) == [laterId])
                #expect(resumed.events.first?.json["text"] as? String == "Make that seven")

                // Anyone else: no stream, whether they have a household or not.
                let (stranger, _) = try await GatewayUser.withHousehold(gateway, name: "The Neighbours")
                let peek = try await HTTPTestClient.send("GET", url("v1/chats/\(chatId)/stream"), headers: stranger.headers)
                #expect(peek.status == 404)
                let badResume = try await HTTPTestClient.send(
                    "GET", url("v1/chats/\(chatId)/stream"), headers: ada.headers(["Last-Event-ID": "seven"]))
                #expect(badResume.status == 400)
                #expect(badResume.errorField == "Last-Event-ID")
            }
        }
    }
}
