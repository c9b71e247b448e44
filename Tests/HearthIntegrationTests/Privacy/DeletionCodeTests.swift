import Foundation
import HearthStore
import PostgresNIO
import Testing

extension BackboneSuite {
    /// `POST /v1/me/deletion-code` end to end: a session signed in long ago cannot delete the
    /// account, but the code pushed to the user's device (and only there) lets it; a code is spent
    /// by use, by a newer code and by five wrong tries, and only five are issued an hour. The
    /// digits are in the push and nowhere else: not in the event, the log, the inbox or a table.
    @Suite struct DeletionCode {
        @Test func aStaleSessionDeletesTheAccountWithTheCodePushedToItsDevice() async throws {
            try await NotifierStack.with(gateway: ["HEARTH_ACCOUNT_DELETION_GRACE_DAYS": "7"]) { stack, _ in
                let base = stack.gateway.baseURL
                @Sendable func url(_ path: String) -> URL { base.appendingPathComponent(path) }
                let signedIn = try await Sessions.signIn(stack.gateway, name: "coder-\(UUID().uuidString.prefix(8))")
                let userId = try #require(signedIn.reply.json["user_id"] as? String)
                let fresh = GatewayUser(userId: userId, token: signedIn.jwt)

                let noDevice = try await HTTPTestClient.send("POST", url("v1/me/deletion-code"), headers: fresh.headers)
                #expect(noDevice.status == 409 && noDevice.errorCode == "no_device", "\(String(decoding: noDevice.body, as: UTF8.self))")
                let device = try await stack.registerDevice(fresh)
                // The user turned pushes off: a code they ask for still reaches their device.
                let settings = try await HTTPTestClient.send(
                    "PUT", url("v1/notifications/settings"), body: try JSONSerialization.data(withJSONObject: ["channels": ["inbox"]]),
                    headers: fresh.headers)
                #expect(settings.status == 202, "\(String(decoding: settings.body, as: UTF8.self))")
                #expect(try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) {
                    try await TestEnvironment.withPostgres { client in
                        try await client.query(
                            "SELECT channels FROM notification_settings WHERE user_id = \(UUID(uuidString: userId)!)", logger: TestEnvironment.logger
                        ).collect().first?.decode([String]?.self) == ["inbox"]
                    }
                }, "the notifier knows pushes are off")

                // The sign-in is 20 minutes old: a refreshed token carries that sign-in time.
                try await TestEnvironment.withPostgres { client in
                    try await client.query(
                        "UPDATE auth_sessions SET signed_in_at = now() - interval '20 minutes' WHERE user_id = \(UUID(uuidString: userId)!)",
                        logger: TestEnvironment.logger)
                }
                let stale = GatewayUser(userId: userId, token: try Sessions.pair(await Sessions.refresh(stack.gateway, signedIn.refresh)).jwt)
                let refused = try await HTTPTestClient.send("DELETE", url("v1/me"), headers: stale.headers)
                #expect(refused.status == 403 && refused.errorCode == "reauthentication_required")

                @Sendable func delete(code: String) async throws -> HTTPTestClient.Reply {
                    try await HTTPTestClient.send(
                        "DELETE", url("v1/me"), body: try JSONSerialization.data(withJSONObject: ["code": code]), headers: stale.headers)
                }
                /// Asks for a code and answers the digits of the push that brought it.
                func requestCode() async throws -> String {
                    let before = stack.pushes(to: device).count
                    let sent = try await HTTPTestClient.send("POST", url("v1/me/deletion-code"), headers: stale.headers)
                    #expect(sent.status == 202, "\(String(decoding: sent.body, as: UTF8.self))")
                    #expect(sent.json["devices"] as? Int == 1)
                    let arrived = try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { stack.pushes(to: device).count > before }
                    #expect(arrived, "the code was pushed")
                    let push = try #require(stack.pushes(to: device).last)
                    let payload = try #require(try JSONSerialization.jsonObject(with: push.body) as? [String: Any])
                    let alert = try #require((payload["aps"] as? [String: Any])?["alert"] as? [String: Any])
                    let text = try #require(alert["body"] as? String)
                    let digits = try #require(text.firstMatch(of: /\b[0-9]{6}\b/), "\(text)")
                    return String(digits.output)
                }

                let first = try await requestCode()
                let second = try await requestCode()
                // Malformed is a 400 naming the field, and no try.
                let malformed = try await delete(code: "12a456")
                #expect(malformed.status == 400 && malformed.errorField == "code")
                // The first code was replaced by the second: trying it is a wrong try of the second.
                let wrong = first != second ? first : String(format: "%06d", (Int(second)! + 1) % 1_000_000)
                var last: HTTPTestClient.Reply?
                for _ in 0..<5 {
                    let reply = try await delete(code: wrong)
                    #expect(reply.status == 403 && reply.errorField == "code", "\(String(decoding: reply.body, as: UTF8.self))")
                    last = reply
                }
                #expect(last?.errorCode == "deletion_code_invalid")
                #expect((last?.json["error"] as? [String: Any])?["message"] as? String == "the code is wrong, and now spent: ask for a new one")
                let spent = try await delete(code: second)
                #expect(spent.status == 403 && spent.errorCode == "deletion_code_expired", "five wrong tries spent the code")

                // Three more codes make five this hour; the sixth is refused.
                _ = try await requestCode()
                _ = try await requestCode()
                let fifth = try await requestCode()
                let sixth = try await HTTPTestClient.send("POST", url("v1/me/deletion-code"), headers: stale.headers)
                #expect(sixth.status == 429 && sixth.errorCode == "too_many_deletion_codes")

                let deleted = try await delete(code: fifth)
                #expect(deleted.status == 202, "\(String(decoding: deleted.body, as: UTF8.self))")
                #expect(deleted.json["status"] as? String == "deletion_scheduled")
                #expect(try await KafkaTestEnvironment.eventually {
                    try await HTTPTestClient.send("GET", url("v1/me"), headers: stale.headers).status == 401
                }, "the deletion ended the session")

                // The digits were in the pushes only.
                let codes = [first, second, fifth]
                let users = try await CommandLineTool.run(["tail", "users", "--type", "user.deletion_code_issued", "--raw"])
                let issued = users.output.split(separator: "\n").filter { $0.contains(userId) }
                #expect(issued.count == 5, "\(issued.count) code events")
                #expect(!issued.contains { line in codes.contains { line.contains($0) } }, "an event carries a code's digits")
                try await TestEnvironment.withPostgres { client in
                    let user = UUID(uuidString: userId)!
                    let logged = try await client.query(
                        "SELECT title, coalesce(body, '') FROM notification_log WHERE user_id = \(user) AND channel = 'apns'", logger: TestEnvironment.logger)
                    var rows = 0
                    for try await (title, body) in logged.decode((String, String).self) {
                        rows += 1
                        #expect(title == "Account deletion code" && body.isEmpty, "the log keeps no digits: \(title) \(body)")
                    }
                    #expect(rows == 5)
                    let inbox = try await client.query(
                        "SELECT count(*)::int FROM notification_inbox WHERE user_id = \(user)", logger: TestEnvironment.logger
                    ).collect().first?.decode(Int.self)
                    #expect(inbox == 0, "a code never lands in the inbox, which the same token reads")
                    let reasons = try await client.query(
                        "SELECT spent_because FROM account_deletion_codes WHERE user_id = \(user) ORDER BY issued_at", logger: TestEnvironment.logger)
                    var spentBecause: [String?] = []
                    for try await reason in reasons.decode(String?.self) { spentBecause.append(reason) }
                    #expect(spentBecause == ["superseded", "too_many_attempts", "superseded", "superseded", "used"])
                }
            }
        }
    }
}
