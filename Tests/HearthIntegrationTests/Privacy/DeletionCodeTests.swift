import Foundation
import HearthEvents
import HearthStore
import PostgresNIO
import Testing

extension BackboneSuite {
    /// `POST /v1/me/deletion-code` end to end: a session signed in long ago cannot delete the
    /// account, but the code pushed to the user's device (and only there) lets it; a code is spent
    /// by use, by a newer code and by five wrong tries; five are issued an hour, none after ten wrong
    /// tries in a day, and only to a device registered a day before. The
    /// digits are in the push and nowhere else: not in the event, the log, the inbox or a table.
    @Suite struct DeletionCode {
        @Test func aStaleSessionDeletesTheAccountWithTheCodePushedToItsDevice() async throws {
            try await NotifierStack.with(gateway: ["HEARTH_ACCOUNT_DELETION_GRACE_DAYS": "7"]) { stack, _ in
                let base = stack.gateway.baseURL
                @Sendable func url(_ path: String) -> URL { base.appendingPathComponent(path) }
                let name = "coder-\(UUID().uuidString.prefix(8))"
                let signedIn = try await Sessions.signIn(stack.gateway, name: name)
                let userId = try #require(signedIn.reply.json["user_id"] as? String)
                let fresh = GatewayUser(userId: userId, token: signedIn.jwt)

                let noDevice = try await HTTPTestClient.send("POST", url("v1/me/deletion-code"), headers: fresh.headers)
                #expect(noDevice.status == 409 && noDevice.errorCode == "no_trusted_device", "\(String(decoding: noDevice.body, as: UTF8.self))")
                let device = try await stack.registerDevice(fresh)
                // A device registered a moment ago (by whoever holds the token) gets no code.
                let newDevice = try await HTTPTestClient.send("POST", url("v1/me/deletion-code"), headers: fresh.headers)
                #expect(newDevice.status == 409 && newDevice.errorCode == "no_trusted_device")
                // Registered two days ago; the app registering it again on launch keeps that.
                @Sendable func registeredAt() async throws -> Date? {
                    try await TestEnvironment.withPostgres { client in
                        try await client.query("SELECT registered_at FROM notification_devices WHERE token = \(device)", logger: TestEnvironment.logger)
                            .collect().first?.decode(Date.self)
                    }
                }
                _ = try await TestEnvironment.withPostgres { client in
                    try await client.query(
                        "UPDATE notification_devices SET registered_at = now() - interval '2 days' WHERE token = \(device)", logger: TestEnvironment.logger)
                }
                let settled = try #require(try await registeredAt())
                @Sendable func updatedAt() async throws -> Date? {
                    try await TestEnvironment.withPostgres { client in
                        try await client.query("SELECT updated_at FROM notification_devices WHERE token = \(device)", logger: TestEnvironment.logger)
                            .collect().first?.decode(Date.self)
                    }
                }
                let updatedBefore = try #require(try await updatedAt())
                let again = try await HTTPTestClient.postJSON(
                    url("v1/devices"), ["platform": "ios", "token": device, "environment": "sandbox"], headers: fresh.headers)
                #expect(again.status == 202)
                #expect(try await KafkaTestEnvironment.eventually { try await updatedAt().map { $0 > updatedBefore } ?? false },
                        "the registration again was applied")
                #expect(try await registeredAt() == settled, "registering again keeps when the registration began")
                // A second device, registered just now beside the trusted one: the code never goes there.
                let newPhone = try await stack.registerDevice(fresh)
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
                _ = try await TestEnvironment.withPostgres { client in
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
                /// The code ids of the pushes so far (the reminder id of a code's push is the code's id).
                var pushedCodeIds: [UUID] = []
                /// Asks for a code and answers the digits of the push that brought it.
                func requestCode() async throws -> String {
                    let before = stack.pushes(to: device).count
                    let sent = try await HTTPTestClient.send("POST", url("v1/me/deletion-code"), headers: stale.headers)
                    #expect(sent.status == 202, "\(String(decoding: sent.body, as: UTF8.self))")
                    #expect(sent.json["devices"] as? Int == 1)
                    let arrived = await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { stack.pushes(to: device).count > before }
                    #expect(arrived, "the code was pushed")
                    let push = try #require(stack.pushes(to: device).last)
                    let payload = try #require(try JSONSerialization.jsonObject(with: push.body) as? [String: Any])
                    let alert = try #require((payload["aps"] as? [String: Any])?["alert"] as? [String: Any])
                    let text = try #require(alert["body"] as? String)
                    let digits = try #require(text.firstMatch(of: /\b[0-9]{6}\b/), "\(text)")
                    // Every code has one collapse id: a newer code's push replaces the older on the device.
                    #expect(push.header("apns-collapse-id") == "account-deletion-code")
                    pushedCodeIds.append(try #require((payload["reminder_id"] as? String).flatMap(UUID.init(uuidString:))))
                    return String(digits.output)
                }
                @Sendable func pushStatus(_ codeId: UUID) async throws -> String? {
                    try await TestEnvironment.withPostgres { client in
                        try await client.query("SELECT status FROM reminders WHERE reminder_id = \(codeId)", logger: TestEnvironment.logger)
                            .collect().first?.decode(String.self)
                    }
                }

                let first = try await requestCode()
                let second = try await requestCode()
                let (firstId, secondId) = (pushedCodeIds[0], pushedCodeIds[1])
                #expect(try await KafkaTestEnvironment.eventually { try await pushStatus(firstId) == "cancelled" },
                        "a newer code cancels the older one's push, should it still be waiting")
                #expect(try await pushStatus(secondId) == "pending")
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
                _ = try await requestCode()
                let sixth = try await HTTPTestClient.send("POST", url("v1/me/deletion-code"), headers: stale.headers)
                #expect(sixth.status == 429 && sixth.errorCode == "too_many_deletion_codes", "\(String(decoding: sixth.body, as: UTF8.self))")
                @Sendable func later(hours: Int) async throws {
                    _ = try await TestEnvironment.withPostgres { client in
                        try await client.query(
                            "UPDATE account_deletion_codes SET issued_at = issued_at - make_interval(hours => \(Int32(hours))) WHERE user_id = \(UUID(uuidString: userId)!)",
                            logger: TestEnvironment.logger)
                    }
                }
                // An hour later codes are issued again, but ten wrong tries in a day stop them.
                try await later(hours: 2)
                let sixthCode = try await requestCode()
                let wrongAgain = String(format: "%06d", (Int(sixthCode)! + 1) % 1_000_000)
                for _ in 0..<5 { #expect(try await delete(code: wrongAgain).status == 403) }
                let stopped = try await HTTPTestClient.send("POST", url("v1/me/deletion-code"), headers: stale.headers)
                #expect(stopped.status == 429 && stopped.errorCode == "too_many_deletion_codes")
                #expect(((stopped.json["error"] as? [String: Any])?["message"] as? String)?.contains("wrong") == true)
                // A day later, a code again.
                try await later(hours: 25)
                let dayLater = try await requestCode()

                let deleted = try await delete(code: dayLater)
                #expect(deleted.status == 202, "\(String(decoding: deleted.body, as: UTF8.self))")
                #expect(deleted.json["status"] as? String == "deletion_scheduled")
                #expect(try await KafkaTestEnvironment.eventually {
                    try await HTTPTestClient.send("GET", url("v1/me"), headers: stale.headers).status == 401
                }, "the deletion ended the session")
                #expect(stack.pushes(to: newPhone).isEmpty, "a device registered a moment before got no code")

                // Signed in again, asking again with a code: the pending deletion stands, no code is checked or spent.
                try await Task.sleep(for: .milliseconds(1100))  // a token of a later second
                let signedInAgain = try await GatewayUser.signIn(stack.gateway, name: name)
                let askedAgain = try await HTTPTestClient.send(
                    "DELETE", url("v1/me"), body: try JSONSerialization.data(withJSONObject: ["code": "000000"]), headers: signedInAgain.headers)
                #expect(askedAgain.status == 202 && askedAgain.json["status"] as? String == "deletion_scheduled",
                        "\(String(decoding: askedAgain.body, as: UTF8.self))")

                // The digits were in the pushes only.
                let codes = [first, second, sixthCode, dayLater]
                let users = try await CommandLineTool.run(["tail", "users", "--type", "user.deletion_code_issued", "--raw"])
                let issued = users.output.split(separator: "\n").filter { $0.contains(userId) }
                #expect(issued.count == 7, "\(issued.count) code events")
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
                    #expect(rows == 7)
                    let inbox = try await client.query(
                        "SELECT count(*)::int FROM notification_inbox WHERE user_id = \(user)", logger: TestEnvironment.logger
                    ).collect().first?.decode(Int.self)
                    #expect(inbox == 0, "a code never lands in the inbox, which the same token reads")
                    let reasons = try await client.query(
                        "SELECT spent_because FROM account_deletion_codes WHERE user_id = \(user) ORDER BY issued_at", logger: TestEnvironment.logger)
                    var spentBecause: [String?] = []
                    for try await reason in reasons.decode(String?.self) { spentBecause.append(reason) }
                    #expect(spentBecause == ["superseded", "too_many_attempts", "superseded", "superseded", "superseded", "too_many_attempts", "used"])
                }
            }
        }

        /// A code event applied after the code expired (a rebuild from the archive, a notifier long
        /// down) plans no push: an old code is never sent, and never sent again.
        @Test func aCodeEventReadAfterItsExpiryPushesNothing() async throws {
            try await NotifierStack.with { _, _ in
                let user = UUID()
                let expired = UserDeletionCodeIssued(userId: user, codeId: UUID(), expiresAt: Date().addingTimeInterval(-60))
                let live = UserDeletionCodeIssued(userId: user, codeId: UUID(), expiresAt: Date().addingTimeInterval(600))
                let producer = try KafkaTestEnvironment.producer(clientId: "hearth-tests-deletion-codes", lingerMs: 5)
                let publisher = EventPublisher(producer: producer, source: "tests", keys: nil)
                // One key, one partition: the live code's row proves the expired one was applied before it.
                _ = try await publisher.publish(batch: [expired, live].map { publisher.envelope($0, correlationId: "tests-\($0.codeId)") })
                await producer.close()
                @Sendable func reminderRows(_ id: UUID) async throws -> Int {
                    try await TestEnvironment.withPostgres { client in
                        try await client.query(
                            "SELECT count(*)::int FROM reminders WHERE reminder_id = \(id) AND source = 'account_deletion_code'", logger: TestEnvironment.logger
                        ).collect().first?.decode(Int.self) ?? 0
                    }
                }
                #expect(try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { try await reminderRows(live.codeId) == 1 }, "the live code is planned")
                #expect(try await reminderRows(expired.codeId) == 0, "the expired code is not")
                let expiry = try await TestEnvironment.withPostgres { client in
                    try await client.query("SELECT expires_at FROM reminders WHERE reminder_id = \(live.codeId)", logger: TestEnvironment.logger)
                        .collect().first?.decode(Date.self)
                }
                #expect(abs((expiry ?? .distantPast).timeIntervalSince(live.expiresAt)) < 0.01, "the push carries the code's expiry")
            }
        }
    }
}
