import Foundation
import Testing

extension BackboneSuite {
    /// The chat list with unread counts and read state, typing and presence on the stream, and
    /// a push for a new message to a member not watching the chat.
    @Suite struct ChatList {
        struct Pair {
            let gateway: URL
            let ada: GatewayUser
            let ben: GatewayUser

            func url(_ path: String) -> URL { gateway.appendingPathComponent(path) }

            static func make(_ gateway: ServiceProcess) async throws -> Pair {
                let (ada, household) = try await GatewayUser.withHousehold(gateway, name: "The Listers")
                let ben = try await GatewayUser.signIn(gateway, name: "Ben \(UUID().uuidString.prefix(4))")
                try await Memberships.join(ben, household, invitedBy: ada, gateway: gateway)
                return Pair(gateway: gateway.baseURL, ada: ada, ben: ben)
            }

            func chat(_ title: String) async throws -> String {
                let created = try await HTTPTestClient.postJSON(url("v1/chats"), ["title": title, "member_ids": [ben.userId]], headers: ada.headers)
                return try #require(created.json["chat_id"] as? String, "\(String(decoding: created.body, as: UTF8.self))")
            }

            /// Sends and answers (message id, position).
            func send(_ text: String, in chat: String, as user: GatewayUser) async throws -> (String, String) {
                let sent = try await HTTPTestClient.postJSON(
                    url("v1/chats/\(chat)/messages"), ["text": text, "client_id": UUID().uuidString], headers: user.headers)
                #expect(sent.status == 201, "\(String(decoding: sent.body, as: UTF8.self))")
                let id = try #require((sent.json["message"] as? [String: Any])?["message_id"] as? String)
                return (id, try #require(sent.json["position"] as? String))
            }

            func list(as user: GatewayUser, query: String = "", position: String? = nil) async throws -> HTTPTestClient.Reply {
                let headers = position.map { user.headers(["X-Consistency-Token": $0]) } ?? user.headers
                return try await HTTPTestClient.send("GET", URL(string: url("v1/chats").absoluteString + query)!, headers: headers)
            }
        }

        @Test func theListShowsUnreadCountsNewestFirstAndHistoryWhoReadWhat() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let pair = try await Pair.make(gateway)
                let older = try await pair.chat("Groceries")
                let newer = try await pair.chat("School run")
                let (first, _) = try await pair.send("Milk please", in: older, as: pair.ben)
                _ = try await pair.send("And bread", in: older, as: pair.ben)
                let (_, position) = try await pair.send("Who picks up Tom?", in: newer, as: pair.ada)

                let listed = try await pair.list(as: pair.ada, position: position)
                #expect(listed.status == 200, "\(String(decoding: listed.body, as: UTF8.self))")
                let chats = listed.json["chats"] as? [[String: Any]] ?? []
                #expect(chats.compactMap { $0["chat_id"] as? String } == [newer, older], "newest activity first")
                #expect(chats.map { $0["unread_count"] as? Int } == [0, 2], "one's own message is not unread")
                #expect((chats.last?["last_message"] as? [String: Any])?["text"] as? String == "And bread")
                let members = (chats.first?["members"] as? [[String: Any]] ?? []).compactMap { $0["user_id"] as? String }
                #expect(Set(members) == [pair.ada.userId, pair.ben.userId])
                let bens = try await pair.list(as: pair.ben, position: position)
                #expect((bens.json["chats"] as? [[String: Any]] ?? []).map { $0["unread_count"] as? Int } == [1, 0])

                // A read receipt: the count falls and the history says who read what.
                let read = try await HTTPTestClient.postJSON(pair.url("v1/chats/\(older)/read"), ["up_to": first], headers: pair.ada.headers)
                #expect(read.status == 200)
                let counted = try await ConversationProfile.poll {
                    let chats = try await pair.list(as: pair.ada).json["chats"] as? [[String: Any]] ?? []
                    return chats.first { $0["chat_id"] as? String == older }?["unread_count"] as? Int == 1
                }
                #expect(counted, "the read receipt lowered the unread count")
                let history = try await HTTPTestClient.send("GET", pair.url("v1/chats/\(older)/messages"), headers: pair.ben.headers)
                let messages = history.json["messages"] as? [[String: Any]] ?? []
                #expect(messages.map { $0["read_by"] as? [String] ?? ["?"] } == [[], [pair.ada.userId]], "\(messages)")

                // Pages of one; bad paging is a 400 naming the field; a stranger sees nothing.
                let page = try await pair.list(as: pair.ada, query: "?limit=1")
                #expect((page.json["chats"] as? [[String: Any]])?.count == 1 && page.json["next_before"] as? String == newer)
                let next = try await pair.list(as: pair.ada, query: "?limit=1&before=\(newer)")
                #expect((next.json["chats"] as? [[String: Any]])?.compactMap { $0["chat_id"] as? String } == [older])
                #expect(try await pair.list(as: pair.ada, query: "?limit=0").errorField == "limit")
                #expect(try await pair.list(as: pair.ada, query: "?before=yesterday").errorField == "before")
                let stranger = try await GatewayUser.signIn(gateway)
                #expect((try await pair.list(as: stranger).json["chats"] as? [Any])?.isEmpty == true)
            }
        }

        @Test func anImageIsSharedWithASquareThumbnailBehindSignedLinksOnlyMembersFollow() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let pair = try await Pair.make(gateway)
                let chat = try await pair.chat("Photos")
                let photo = try TrackingImages.make("beach.jpg", width: 640, height: 480)
                func upload(_ body: Data, query: String, as user: GatewayUser) async throws -> HTTPTestClient.Reply {
                    try await HTTPTestClient.send(
                        "POST", URL(string: pair.url("v1/chats/\(chat)/media").absoluteString + query)!, body: body,
                        headers: user.headers(["Content-Type": "image/jpeg"]))
                }
                let sent = try await upload(photo, query: "?client_id=img-1&caption=At%20the%20beach", as: pair.ben)
                #expect(sent.status == 201, "\(String(decoding: sent.body, as: UTF8.self))")
                let message = try #require(sent.json["message"] as? [String: Any])
                #expect(message["media_type"] as? String == "image/jpeg" && message["text"] as? String == "At the beach")
                #expect(message["media_size"] as? Int == photo.count)
                #expect((message["media_dimensions"] as? [String: Any])?["width"] as? Int == 640)
                #expect((message["media_dimensions"] as? [String: Any])?["height"] as? Int == 480)
                let imageLink = try #require(message["media_url"] as? String)
                let thumbnailLink = try #require(message["media_thumbnail_url"] as? String)
                #expect(imageLink.contains("signature=") && imageLink.contains("expires="))
                // The history carries the image too; once it does, a retried upload is the same message.
                let projected = try await ConversationProfile.poll {
                    let history = try await HTTPTestClient.send("GET", pair.url("v1/chats/\(chat)/messages"), headers: pair.ada.headers)
                    return (history.json["messages"] as? [[String: Any]])?.first?["media_type"] as? String == "image/jpeg"
                }
                #expect(projected, "the image message reached the history")
                let again = try await upload(photo, query: "?client_id=img-1", as: pair.ben)
                #expect(again.status == 200 && again.json["duplicate"] as? Bool == true, "a retried upload is the same message")
                #expect((again.json["message"] as? [String: Any])?["media_url"] != nil)
                let other = try TrackingImages.make("other.png", width: 30, height: 20)
                let reused = try await HTTPTestClient.send(
                    "POST", URL(string: pair.url("v1/chats/\(chat)/media").absoluteString + "?client_id=img-1")!, body: other,
                    headers: pair.ben.headers(["Content-Type": "image/png"]))
                #expect(reused.status == 200 && reused.json["duplicate"] as? Bool == true, "a stored message answers first, whatever is sent")
                #expect(try await upload(photo, query: "?client_id=img-9&caption=a%00b", as: pair.ben).errorField == "caption")

                func fetch(_ link: String, as user: GatewayUser) async throws -> HTTPTestClient.Reply {
                    try await HTTPTestClient.send("GET", URL(string: pair.gateway.absoluteString.trimmingCharacters(in: ["/"]) + link)!, headers: user.headers)
                }
                let image = try await fetch(imageLink, as: pair.ada)
                #expect(image.status == 200 && image.body == photo)
                let thumbnail = try await fetch(thumbnailLink, as: pair.ada)
                #expect(thumbnail.status == 200 && thumbnail.header("Content-Type") == "image/jpeg")
                let size = try TrackingImages.size(of: thumbnail.body)
                #expect(size.width == 200 && size.height == 200, "\(size)")
                // A non-member gets 404 on both; a forged or swapped signature too.
                let stranger = try await GatewayUser.signIn(gateway)
                #expect(try await fetch(imageLink, as: stranger).status == 404)
                #expect(try await fetch(thumbnailLink, as: stranger).status == 404)
                #expect(try await fetch(imageLink.replacingOccurrences(of: "/media/", with: "/media/").components(separatedBy: "&signature=")[0] + "&signature=00", as: pair.ada).status == 404)
                let swapped = thumbnailLink.components(separatedBy: "?")[0].replacingOccurrences(of: "/thumbnail", with: "") + "?" + thumbnailLink.components(separatedBy: "?")[1]
                #expect(try await fetch(swapped, as: pair.ada).status == 404, "a thumbnail's signature does not open the image")
                // Bad uploads are refused naming the field.
                #expect(try await upload(Data("not an image".utf8), query: "?client_id=img-2", as: pair.ben).status == 415)
                #expect(try await upload(photo, query: "", as: pair.ben).errorField == "client_id")
                #expect(try await upload(photo, query: "?client_id=img-3", as: stranger).status == 404)
            }
        }

        @Test func typingAndPresenceReachTheOtherStreamAndNewMessagesPushOnlyToWhoIsNotWatching() async throws {
            try await NotifierStack.with(gateway: ["HEARTH_CHAT_STREAM_HEARTBEAT_S": "1"]) { stack, _ in
                let pair = try await Pair.make(stack.gateway)
                let chat = try await pair.chat("Tonight")
                let adaDevice = try await stack.registerDevice(pair.ada)
                let benDevice = try await stack.registerDevice(pair.ben)

                // Ada watches the chat; Ben does not.
                let stream = NotificationStreamReader()
                stream.start(pair.url("v1/chats/\(chat)/stream"), headers: pair.ada.headers)
                defer { Task { await stream.stop() } }
                #expect(await KafkaTestEnvironment.eventually { stream.connected }, "ada's stream opened")
                // Ben looks in for a moment: Ada's stream sees him come and go.
                let glance = NotificationStreamReader()
                glance.start(pair.url("v1/chats/\(chat)/stream"), headers: pair.ben.headers)
                #expect(await KafkaTestEnvironment.eventually {
                    stream.events.contains { $0.name == "presence" && $0.json["user_id"] as? String == pair.ben.userId && $0.json["online"] as? Bool == true }
                }, "ben's presence reached ada's stream")
                #expect(await KafkaTestEnvironment.eventually {
                    glance.events.contains { $0.name == "presence" && $0.json["user_id"] as? String == pair.ada.userId }
                }, "ben's stream opened knowing ada watches")
                await glance.stop()
                #expect(await KafkaTestEnvironment.eventually(timeout: .seconds(15)) {
                    stream.events.contains { $0.name == "presence" && $0.json["user_id"] as? String == pair.ben.userId && $0.json["online"] as? Bool == false }
                }, "ben's leaving reached ada's stream")

                let typing = try await HTTPTestClient.send("POST", pair.url("v1/chats/\(chat)/typing"), headers: pair.ben.headers)
                #expect(typing.status == 200, "\(String(decoding: typing.body, as: UTF8.self))")
                #expect(await KafkaTestEnvironment.eventually {
                    stream.events.contains { $0.name == "typing" && $0.json["user_id"] as? String == pair.ben.userId }
                }, "ben's typing reached ada's stream")
                let stranger = try await GatewayUser.signIn(stack.gateway)
                #expect(try await HTTPTestClient.send("POST", pair.url("v1/chats/\(chat)/typing"), headers: stranger.headers).status == 404)

                // Ben writes: Ada is watching, no push for her. Ada writes: Ben gets one, with the badge.
                _ = try await pair.send("Pasta tonight?", in: chat, as: pair.ben)
                _ = try await pair.send("Yes, at seven", in: chat, as: pair.ada)
                #expect(await KafkaTestEnvironment.eventually(timeout: .seconds(20)) { !stack.pushes(to: benDevice).isEmpty }, "ben got a push")
                try await Task.sleep(for: .seconds(2))
                let pushes = stack.pushes(to: benDevice)
                #expect(pushes.count == 1, "one push for one message")
                let push = try #require(pushes.first)
                #expect(push.header("apns-collapse-id") != nil)
                let payload = try #require(try JSONSerialization.jsonObject(with: push.body) as? [String: Any])
                let aps = try #require(payload["aps"] as? [String: Any])
                #expect(aps["badge"] as? Int == 1)
                #expect(((aps["alert"] as? [String: Any])?["body"] as? String) == "Yes, at seven", "\(aps)")
                #expect(payload["chat_id"] as? String == chat)
                #expect(stack.pushes(to: adaDevice).isEmpty, "ada was watching the chat")
            }
        }

        /// A new-message push waits out the recipient's quiet hours like any reminder that is not
        /// urgent, while a member outside theirs gets it at once.
        @Test func aChatPushWaitsOutTheRecipientsQuietHours() async throws {
            try await NotifierStack.with { stack, _ in
                let pair = try await Pair.make(stack.gateway)
                let chat = try await pair.chat("Late")
                let adaDevice = try await stack.registerDevice(pair.ada)
                let benDevice = try await stack.registerDevice(pair.ben)
                let utc: Calendar = {
                    var calendar = Calendar(identifier: .gregorian)
                    calendar.timeZone = .gmt
                    return calendar
                }()
                @Sendable func clock(_ date: Date) -> String {
                    let parts = utc.dateComponents([.hour, .minute], from: date)
                    return String(format: "%02d:%02d", parts.hour!, parts.minute!)
                }
                let now = Date()
                let quiet = try await HTTPTestClient.send(
                    "PUT", pair.url("v1/notifications/settings"),
                    body: try JSONSerialization.data(withJSONObject: [
                        "time_zone": "UTC", "quiet_hours_start": clock(now.addingTimeInterval(-3600)), "quiet_hours_end": clock(now.addingTimeInterval(3 * 3600)),
                    ]),
                    headers: pair.ben.headers)
                #expect(quiet.status == 202)
                let ben = try #require(UUID(uuidString: pair.ben.userId))
                #expect(try await KafkaTestEnvironment.eventually {
                    try await NotifierDatabase.query { client in
                        let rows = try await client.query("SELECT count(*)::bigint FROM notification_settings WHERE user_id = \(ben)", logger: TestEnvironment.logger)
                        for try await count in rows.decode(Int64.self) { return count == 1 }
                        return false
                    }
                })

                _ = try await pair.send("Are you still up?", in: chat, as: pair.ada)
                _ = try await pair.send("Yes, why?", in: chat, as: pair.ben)
                #expect(await KafkaTestEnvironment.eventually(timeout: .seconds(20)) { !stack.pushes(to: adaDevice).isEmpty }, "ada got hers at once")
                @Sendable func bensPush() async throws -> UUID? {
                    try await NotifierDatabase.query { client in
                        let rows = try await client.query(
                            "SELECT reminder_id FROM reminders WHERE user_id = \(ben) AND source = 'chat_message'", logger: TestEnvironment.logger)
                        for try await id in rows.decode(UUID.self) { return id }
                        return nil
                    }
                }
                #expect(try await KafkaTestEnvironment.eventually(timeout: .seconds(15)) {
                    guard let id = try await bensPush() else { return false }
                    return try await NotifierDatabase.dispatch(id)?.deferredUntil != nil
                }, "ben's push waits for his quiet hours to end")
                #expect(stack.pushes(to: benDevice).isEmpty, "nothing reached ben during his quiet hours")
            }
        }
    }
}
