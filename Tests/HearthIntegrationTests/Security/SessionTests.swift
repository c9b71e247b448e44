import Foundation
import Testing

extension BackboneSuite {
    /// Short access tokens, rotating refresh tokens with reuse detection, and logout that reaches
    /// every gateway: a stolen token no longer lives for ever.
    @Suite struct Sessions {
        struct Pair {
            let jwt: String
            let refresh: String
            let reply: HTTPTestClient.Reply
        }

        static func signIn(_ gateway: ServiceProcess, name: String) async throws -> Pair {
            try pair(await HTTPTestClient.postJSON(gateway.baseURL.appendingPathComponent("v1/auth/dev"), ["name": name]))
        }

        static func refresh(_ gateway: ServiceProcess, _ token: String) async throws -> HTTPTestClient.Reply {
            try await refresh(gateway.baseURL, token)
        }

        @Sendable static func refresh(_ base: URL, _ token: String) async throws -> HTTPTestClient.Reply {
            try await HTTPTestClient.postJSON(base.appendingPathComponent("v1/auth/refresh"), ["refresh_token": token])
        }

        static func pair(_ reply: HTTPTestClient.Reply) throws -> Pair {
            #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
            return Pair(jwt: try #require(reply.json["jwt"] as? String), refresh: try #require(reply.json["refresh_token"] as? String), reply: reply)
        }

        @Sendable static func me(_ base: URL, _ jwt: String) async throws -> Int {
            try await HTTPTestClient.send("GET", base.appendingPathComponent("v1/me"), headers: ["Authorization": "Bearer \(jwt)"]).status
        }

        /// The claims of a JWT (its middle part), read without checking: the test only looks.
        static func claims(_ jwt: String) throws -> [String: Any] {
            var part = String(jwt.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while part.count % 4 != 0 { part += "=" }
            let data = try #require(Data(base64Encoded: part))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }

        @Test func aRefreshTokenWorksOnceAndItsReuseEndsTheWholeSession() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let name = "Refresher \(UUID().uuidString.prefix(6))"
                let first = try await Self.signIn(gateway, name: name)
                // Short-lived access tokens, each naming its session and carrying its own id.
                let expiresText = try #require(first.reply.json["expires_at"] as? String)
                let expiresAt = try #require(ISO8601DateFormatter().date(from: expiresText))
                #expect(expiresAt.timeIntervalSinceNow <= 900 && expiresAt.timeIntervalSinceNow > 800)
                let firstClaims = try Self.claims(first.jwt)
                let session = try #require(firstClaims["sid"] as? String)
                #expect(firstClaims["jti"] is String)
                #expect(first.refresh.hasPrefix("hrt_"))

                let renewed = try Self.pair(try await Self.refresh(gateway, first.refresh))
                #expect(renewed.refresh != first.refresh)
                #expect(renewed.jwt != first.jwt)
                let renewedClaims = try Self.claims(renewed.jwt)
                #expect(renewedClaims["sid"] as? String == session)
                #expect(renewedClaims["jti"] as? String != firstClaims["jti"] as? String)
                // Refreshing is not signing in again: the sign-in's time stays.
                #expect(renewedClaims["auth_time"] as? Int == firstClaims["auth_time"] as? Int)
                #expect(try await Self.me(gateway.baseURL, renewed.jwt) == 200)
                #expect(renewed.reply.json["user_id"] as? String == first.reply.json["user_id"] as? String)

                // Another sign-in of the same person is another session, untouched by what follows.
                let otherDevice = try await Self.signIn(gateway, name: name)

                // The used token again: refused, and the session it belongs to ends for everyone.
                let replayed = try await Self.refresh(gateway, first.refresh)
                #expect(replayed.status == 401)
                #expect(replayed.errorCode == "invalid_refresh_token")
                let latest = try await Self.refresh(gateway, renewed.refresh)
                #expect(latest.status == 401, "the thief's (or owner's) newer token ends with the session")
                let base = gateway.baseURL
                #expect(try await KafkaTestEnvironment.eventually { try await Self.me(base, renewed.jwt) == 401 })
                #expect(try await Self.me(gateway.baseURL, first.jwt) == 401)

                #expect(try await Self.me(gateway.baseURL, otherDevice.jwt) == 200)
                #expect(try await Self.refresh(gateway, otherDevice.refresh).status == 200)
            }
        }

        @Test func aSignedOutSessionsOpenStreamsClose() async throws {
            let environment = ["HEARTH_NOTIFICATIONS_HEARTBEAT_S": "1", "HEARTH_CHAT_STREAM_HEARTBEAT_S": "1"]
            try await ServiceProcess.with("gateway", environment: environment) { gateway in
                let (user, household) = try await GatewayUser.withHousehold(gateway, name: "The Streamers")
                let partner = try await GatewayUser.signIn(gateway)
                try await Memberships.join(partner, household, invitedBy: user, gateway: gateway)
                let chat = try await HTTPTestClient.postJSON(
                    gateway.baseURL.appendingPathComponent("v1/chats"), ["title": "Us", "member_ids": [partner.userId]], headers: user.headers)
                let chatId = try #require(chat.json["chat_id"] as? String)
                let notifications = NotificationStreamReader()
                let messages = NotificationStreamReader()
                defer {
                    Task {
                        await notifications.stop()
                        await messages.stop()
                    }
                }
                notifications.start(gateway.baseURL.appendingPathComponent("v1/notifications/stream"), headers: user.headers)
                messages.start(gateway.baseURL.appendingPathComponent("v1/chats/\(chatId)/stream"), headers: user.headers)
                #expect(await KafkaTestEnvironment.eventually { notifications.connected && messages.connected })
                #expect(notifications.events.isEmpty && messages.events.allSatisfy { $0.name != "closed" })

                let logout = try await HTTPTestClient.send("POST", gateway.baseURL.appendingPathComponent("v1/auth/logout"), headers: user.headers)
                #expect(logout.status == 204)
                for (name, reader) in [("notifications", notifications), ("chat", messages)] {
                    #expect(await KafkaTestEnvironment.eventually(timeout: .seconds(10)) {
                        reader.events.contains { $0.name == "closed" && $0.json["reason"] as? String == "signed_out" }
                    }, "the \(name) stream of a signed-out session closes")
                }
            }
        }

        @Test func askingToDeleteTheAccountEndsItsSessionsRefreshIncluded() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let name = "Leaving \(UUID().uuidString.prefix(6))"
                let first = try await Self.signIn(gateway, name: name)
                let second = try await Self.signIn(gateway, name: name)
                let deleted = try await HTTPTestClient.send("DELETE", gateway.baseURL.appendingPathComponent("v1/me"), headers: ["Authorization": "Bearer \(first.jwt)"])
                #expect(deleted.status == 202, "\(String(decoding: deleted.body, as: UTF8.self))")
                // Once the deletion is projected, the other session's access token is refused...
                let base = gateway.baseURL
                #expect(try await KafkaTestEnvironment.eventually { try await Self.me(base, second.jwt) == 401 })
                // ...and its refresh token renews nothing (refused for the deletion, not taken as reuse).
                for token in [second.refresh, first.refresh] {
                    let refused = try await Self.refresh(base, token)
                    #expect(refused.status == 401 && refused.errorCode == "invalid_refresh_token")
                    let message = (refused.json["error"] as? [String: Any])?["message"] as? String ?? ""
                    #expect(message.contains("deletion"), "\(message)")
                }
            }
        }

        @Test func refreshRefusesWhatIsNotACurrentRefreshToken() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let signedIn = try await Self.signIn(gateway, name: "Refusals \(UUID().uuidString.prefix(6))")
                let url = gateway.baseURL.appendingPathComponent("v1/auth/refresh")
                // The old way (a bearer token, no body) renews nothing: the access token is no refresh credential.
                let bearerOnly = try await HTTPTestClient.send("POST", url, headers: ["Authorization": "Bearer \(signedIn.jwt)"])
                #expect(bearerOnly.status == 400)
                let missing = try await HTTPTestClient.postJSON(url, [String: String]())
                #expect(missing.status == 400)
                #expect(missing.errorField == "refresh_token")
                for bad in ["", "hrt_short", signedIn.jwt, "hrt_" + String(repeating: "A", count: 43), String(signedIn.refresh.dropLast()) + "x"] {
                    let reply = try await Self.refresh(gateway, bad)
                    #expect(reply.status == 401, "\(bad.prefix(12)): \(String(decoding: reply.body, as: UTF8.self))")
                    #expect(reply.errorCode == "invalid_refresh_token")
                }
                // None of that touched the real one.
                #expect(try await Self.refresh(gateway, signedIn.refresh).status == 200)
            }
        }

        @Test func logoutEndsTheSessionOnEveryGatewayAndEverywhereEndsThemAll() async throws {
            try await ServiceProcess.with("gateway") { one in
                try await ServiceProcess.with("gateway") { two in
                    let name = "Leaver \(UUID().uuidString.prefix(6))"
                    let phone = try await Self.signIn(one, name: name)
                    let tablet = try await Self.signIn(one, name: name)
                    let laptop = try await Self.signIn(two, name: name)
                    // The other gateway has read (and cached) the phone's session as open.
                    #expect(try await Self.me(two.baseURL, phone.jwt) == 200)

                    let logout = try await HTTPTestClient.send(
                        "POST", one.baseURL.appendingPathComponent("v1/auth/logout"), headers: ["Authorization": "Bearer \(phone.jwt)"])
                    #expect(logout.status == 204)
                    #expect(try await Self.me(one.baseURL, phone.jwt) == 401)
                    let twoBase = two.baseURL
                    #expect(try await KafkaTestEnvironment.eventually { try await Self.me(twoBase, phone.jwt) == 401 })
                    let reply = try await HTTPTestClient.send("GET", two.baseURL.appendingPathComponent("v1/me"), headers: ["Authorization": "Bearer \(phone.jwt)"])
                    #expect(reply.errorCode == "unauthorized")
                    #expect(try await Self.refresh(two, phone.refresh).status == 401)
                    // The person's other sessions go on.
                    #expect(try await Self.me(two.baseURL, tablet.jwt) == 200)
                    #expect(try await Self.me(one.baseURL, laptop.jwt) == 200)

                    let everywhere = try await HTTPTestClient.postJSON(
                        two.baseURL.appendingPathComponent("v1/auth/logout"), ["everywhere": true], headers: ["Authorization": "Bearer \(laptop.jwt)"])
                    #expect(everywhere.status == 204)
                    for gateway in [one.baseURL, two.baseURL] {
                        #expect(try await KafkaTestEnvironment.eventually { try await Self.me(gateway, tablet.jwt) == 401 })
                        #expect(try await Self.me(gateway, laptop.jwt) == 401)
                    }
                    #expect(try await Self.refresh(one, tablet.refresh).status == 401)
                    // Signing in again is a new session.
                    let back = try await Self.signIn(two, name: name)
                    #expect(try await Self.me(one.baseURL, back.jwt) == 200)

                    let badBody = try await HTTPTestClient.postJSON(
                        one.baseURL.appendingPathComponent("v1/auth/logout"), ["everywhere": "yes"], headers: ["Authorization": "Bearer \(back.jwt)"])
                    #expect(badBody.status == 400)
                    #expect(try await Self.me(one.baseURL, back.jwt) == 200)
                }
            }
        }
    }
}
