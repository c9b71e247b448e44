import Crypto
import Foundation
import HearthEvents
@testable import NotifierService
import PostgresNIO
import Testing

extension BackboneSuite {
    /// The notifier end to end: gateway → reminders topic → notifier → fake APNs / webhook /
    /// inbox, with real Postgres and the dev broker.
    @Suite struct Notifier {
        @Test func aReminderDueInTwoSecondsReachesTheInboxStreamAndAPNs() async throws {
            try await NotifierStack.with { stack, _ in
                let user = try await GatewayUser.signIn(stack.gateway)
                let token = try await stack.registerDevice(user)

                let stream = NotificationStreamReader()
                stream.start(stack.gateway.baseURL.appendingPathComponent("v1/notifications/stream"), headers: user.headers)
                defer { Task { await stream.stop() } }
                #expect(await KafkaTestEnvironment.eventually { stream.connected }, "the stream opened")

                let reminderId = try await stack.postReminder(
                    user, title: "Bins out", body: "Green bin goes out tonight", at: Date().addingTimeInterval(2), channels: ["apns", "inbox"])

                #expect(await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { !stack.pushes(to: token).isEmpty }, "APNs got the push")
                let push = try #require(stack.pushes(to: token).first)
                #expect(push.version == "HTTP/2.0")
                #expect(push.method == "POST")
                #expect(push.header("apns-topic") == NotifierStack.topic)
                #expect(push.header("apns-push-type") == "alert")
                #expect(push.header("apns-priority") == "10")
                #expect(push.header("apns-collapse-id") == reminderId.uuidString.lowercased())
                let expiration = try #require(push.header("apns-expiration").flatMap(Int.init))
                #expect(expiration > Int(Date().timeIntervalSince1970))
                let check = ProviderTokenCheck.verify(push.header("authorization"), key: stack.apnsKey.publicKey)
                #expect(check.valid, "the provider token verifies with the APNs key")
                #expect(check.header["alg"] as? String == "ES256" && check.header["kid"] as? String == NotifierStack.keyId)
                #expect(check.claims["iss"] as? String == NotifierStack.teamId)
                #expect(!ProviderTokenCheck.verify(push.header("authorization"), key: P256.Signing.PrivateKey().publicKey).valid)
                let payload = try #require(try JSONSerialization.jsonObject(with: push.body) as? [String: Any])
                let alert = (payload["aps"] as? [String: Any])?["alert"] as? [String: Any]
                #expect(alert?["title"] as? String == "Bins out")
                #expect(alert?["body"] as? String == "Green bin goes out tonight")
                #expect(payload["reminder_id"] as? String == reminderId.uuidString.lowercased())
                #expect((payload["aps"] as? [String: Any])?["badge"] as? Int == 1, "the badge counts the unread inbox, this one included")

                #expect(await KafkaTestEnvironment.eventually(timeout: .seconds(30)) {
                    stream.events.contains { $0.name == "notification" && $0.json["reminder_id"] as? String == reminderId.uuidString.lowercased() }
                }, "the inbox stream delivered it")
                let live = try #require(stream.events.first { $0.json["reminder_id"] as? String == reminderId.uuidString.lowercased() })
                #expect(live.json["title"] as? String == "Bins out")
                #expect(live.json["read"] as? Bool == false)

                let log = try await NotifierDatabase.log(reminders: [reminderId])
                #expect(Set(log.map(\.channel)) == ["apns", "inbox"])
                #expect(log.allSatisfy { $0.outcome == "sent" && $0.attempt == 1 })

                // The inbox lists it as unread until it is read.
                let inboxURL = stack.gateway.baseURL.appendingPathComponent("v1/notifications").appending(queryItems: [.init(name: "unread", value: "true")])
                #expect(try await KafkaTestEnvironment.eventually {
                    let page = try await HTTPTestClient.send("GET", inboxURL, headers: user.headers)
                    return (page.json["notifications"] as? [[String: Any]] ?? []).contains { $0["id"] as? String == live.id }
                })
                let read = try await HTTPTestClient.send(
                    "POST", stack.gateway.baseURL.appendingPathComponent("v1/notifications/\(live.id ?? "")/read"), headers: user.headers)
                #expect(read.status == 202)
                #expect(try await KafkaTestEnvironment.eventually {
                    let page = try await HTTPTestClient.send("GET", inboxURL, headers: user.headers)
                    return (page.json["notifications"] as? [[String: Any]] ?? []).isEmpty
                }, "read notifications leave the unread list")
                let someoneElse = try await GatewayUser.signIn(stack.gateway)
                let foreign = try await HTTPTestClient.send(
                    "POST", stack.gateway.baseURL.appendingPathComponent("v1/notifications/\(live.id ?? "")/read"), headers: someoneElse.headers)
                #expect(foreign.status == 404)
            }
        }

        /// 200 reminders due within seconds; the notifier is SIGKILLed mid-way and restarted.
        /// The log (recorded with the idempotency row, in one transaction) holds exactly one send
        /// per reminder; the channel is at-least-once, so the fake may see a push twice only for
        /// those in flight at the kill (at most the dispatcher's concurrency).
        @Test func aKilledNotifierDeliversEachOfTwoHundredRemindersOnceAfterRestart() async throws {
            let concurrency = 4
            try await NotifierStack.with(notifier: ["HEARTH_NOTIFIER_CONCURRENCY": String(concurrency)]) { stack, notifiers in
                let user = try await GatewayUser.signIn(stack.gateway)
                let token = try await stack.registerDevice(user)
                let userId = try #require(UUID(uuidString: user.userId))
                let start = Date().addingTimeInterval(3)
                let reminders = (0..<200).map { index in
                    ReminderRequested(
                        reminderId: UUID(), userId: userId, householdId: nil, memberId: nil, title: "Reminder \(index)", body: nil,
                        dueAt: start.addingTimeInterval(Double(index) * 0.01), urgent: false, channels: ["apns"], source: "tests")
                }
                try await NotifierStack.publishReminders(reminders)

                #expect(await KafkaTestEnvironment.eventually(timeout: .seconds(60)) { stack.pushes(to: token).count >= 30 }, "delivery started")
                await notifiers[0].kill()
                let beforeRestart = stack.pushes(to: token).count
                #expect(beforeRestart < 200, "killed mid-way (\(beforeRestart) pushed)")

                let restarted = try await stack.launchNotifier()
                let ids = reminders.map(\.reminderId)
                let allLogged = try await KafkaTestEnvironment.eventually(timeout: .seconds(90)) {
                    Set(try await NotifierDatabase.log(reminders: ids).filter { $0.outcome == "sent" }.map(\.reminderId)).count == 200
                }
                await restarted.stop()
                #expect(allLogged, "every reminder logged as sent")
                let sent = try await NotifierDatabase.log(reminders: ids).filter { $0.outcome == "sent" }
                #expect(sent.count == 200, "one sent row per reminder, got \(sent.count)")

                let pushes = stack.pushes(to: token)
                print("notifier kill test: \(beforeRestart) pushes before the kill, \(pushes.count) in all for 200 reminders")
                let collapseIds = pushes.compactMap { $0.header("apns-collapse-id") }
                #expect(Set(collapseIds) == Set(ids.map { $0.uuidString.lowercased() }), "every reminder reached APNs")
                #expect(pushes.count >= 200 && pushes.count <= 200 + concurrency, "\(pushes.count) pushes for 200 reminders")
                let late = sent.filter { $0.latenessMs > 0 }
                #expect(!late.isEmpty, "those sent after the restart carry their lateness")
            }
        }

        @Test func twoNotifiersAgainstOneDatabaseNeverSendAReminderTwice() async throws {
            // A lease far longer than a batch takes: a claim is never taken over from a live holder.
            try await NotifierStack.with(notifiers: 2, notifier: ["HEARTH_NOTIFIER_LEASE_S": "30"]) { stack, _ in
                let user = try await GatewayUser.signIn(stack.gateway)
                let token = try await stack.registerDevice(user)
                let userId = try #require(UUID(uuidString: user.userId))
                let start = Date().addingTimeInterval(3)
                let reminders = (0..<200).map { index in
                    ReminderRequested(
                        reminderId: UUID(), userId: userId, householdId: nil, memberId: nil, title: "Shared \(index)", body: nil,
                        dueAt: start.addingTimeInterval(Double(index % 20) * 0.05), urgent: false, channels: ["apns"], source: "tests")
                }
                try await NotifierStack.publishReminders(reminders)
                let ids = reminders.map(\.reminderId)
                #expect(try await KafkaTestEnvironment.eventually(timeout: .seconds(90)) {
                    try await NotifierDatabase.log(reminders: ids).filter { $0.outcome == "sent" }.count >= 200
                })
                // Give a double send the time to show up.
                try await Task.sleep(for: .seconds(2))
                let pushes = stack.pushes(to: token)
                #expect(pushes.count == 200, "\(pushes.count) pushes for 200 reminders")
                #expect(Set(pushes.compactMap { $0.header("apns-collapse-id") }).count == 200)
                #expect(try await NotifierDatabase.log(reminders: ids).filter { $0.outcome == "sent" }.count == 200)
                let owners = try await NotifierDatabase.query { client in
                    let rows = try await client.query(
                        "SELECT count(DISTINCT owner)::bigint FROM reminder_dispatch WHERE reminder_id = ANY(\(ids))", logger: TestEnvironment.logger)
                    for try await count in rows.decode(Int64.self) { return count }
                    return 0
                }
                #expect(owners >= 1)
            }
        }

        @Test func unregisteredTokensAreDeactivatedAndTooManyRequestsIsRetriedOnce() async throws {
            try await NotifierStack.with { stack, _ in
                let user = try await GatewayUser.signIn(stack.gateway)
                let gone = try await stack.registerDevice(user)
                let busy = try await stack.registerDevice(user)
                stack.apns.responder.script("/3/device/\(gone)", [.init(status: 410, body: #"{"reason":"Unregistered","timestamp":1780000000000}"#)])
                stack.apns.responder.script("/3/device/\(busy)", [.init(status: 429, body: #"{"reason":"TooManyRequests"}"#)])

                let first = try await stack.postReminder(user, title: "Feed the cat", at: Date().addingTimeInterval(1), channels: ["apns"])
                #expect(await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { stack.pushes(to: busy).count >= 2 }, "429 retried")
                #expect(try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { try await NotifierDatabase.deviceActive(gone) == false },
                        "410 deactivated the token")
                try await Task.sleep(for: .seconds(1))
                #expect(stack.pushes(to: busy).count == 2, "one retry after the 429, then done")
                #expect(stack.pushes(to: gone).count == 1)
                let log = try await NotifierDatabase.log(reminders: [first])
                let busyAttempts = log.filter { $0.channel == "apns" }.map { ($0.attempt, $0.outcome, $0.willRetry) }
                #expect(busyAttempts.contains { $0 == (1, "failed", true) }, "\(busyAttempts)")
                #expect(busyAttempts.contains { $0 == (2, "sent", false) }, "\(busyAttempts)")
                #expect(log.contains { $0.outcome == "failed" && !$0.willRetry && $0.error == "Unregistered" })
                let reason = try await NotifierDatabase.query { client in
                    let rows = try await client.query("SELECT removed_reason FROM notification_devices WHERE token = \(gone)", logger: TestEnvironment.logger)
                    for try await reason in rows.decode(String?.self) { return reason }
                    return nil
                }
                #expect(reason == "apns_unregistered")

                // The dead token is not used again.
                let second = try await stack.postReminder(user, title: "Feed the cat again", at: Date().addingTimeInterval(1), channels: ["apns"])
                #expect(await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { stack.pushes(to: busy).count == 3 })
                #expect(stack.pushes(to: gone).count == 1)
                #expect(try await NotifierDatabase.log(reminders: [second]).count == 1)
            }
        }

        @Test func quietHoursDeferUntilTheWindowEndsButUrgentRemindersGoNow() async throws {
            try await NotifierStack.with { stack, _ in
                let user = try await GatewayUser.signIn(stack.gateway)
                let token = try await stack.registerDevice(user)
                // A window that started an hour ago and ends at the next whole minute (at least 20 s away).
                let utc: Calendar = {
                    var calendar = Calendar(identifier: .gregorian)
                    calendar.timeZone = .gmt
                    return calendar
                }()
                let now = Date()
                var nextMinute = utc.nextDate(after: now, matching: DateComponents(second: 0), matchingPolicy: .nextTime)!
                if nextMinute.timeIntervalSince(now) < 20 { nextMinute = nextMinute.addingTimeInterval(60) }
                let end = nextMinute
                @Sendable func clock(_ date: Date) -> String {
                    let parts = utc.dateComponents([.hour, .minute], from: date)
                    return String(format: "%02d:%02d", parts.hour!, parts.minute!)
                }
                let settings = try await HTTPTestClient.send(
                    "PUT", stack.gateway.baseURL.appendingPathComponent("v1/notifications/settings"),
                    body: try JSONSerialization.data(withJSONObject: [
                        "time_zone": "UTC", "quiet_hours_start": clock(now.addingTimeInterval(-3600)), "quiet_hours_end": clock(end),
                    ]),
                    headers: user.headers)
                #expect(settings.status == 202)
                let userId = try #require(UUID(uuidString: user.userId))
                #expect(try await KafkaTestEnvironment.eventually {
                    try await NotifierDatabase.query { client in
                        let rows = try await client.query(
                            "SELECT quiet_hours_end FROM notification_settings WHERE user_id = \(userId)", logger: TestEnvironment.logger)
                        for try await value in rows.decode(String?.self) { return value == clock(end) }
                        return false
                    }
                })

                let quiet = try await stack.postReminder(user, title: "Water the plants", at: Date().addingTimeInterval(1), channels: ["apns"])
                let urgent = try await stack.postReminder(user, title: "Medicine now", at: Date().addingTimeInterval(1), channels: ["apns"], urgent: true)
                #expect(try await KafkaTestEnvironment.eventually(timeout: .seconds(15)) {
                    try await NotifierDatabase.dispatch(quiet)?.deferredUntil != nil
                }, "the quiet reminder was deferred")
                #expect(try await NotifierDatabase.dispatch(quiet)?.deferredUntil == end)
                #expect(await KafkaTestEnvironment.eventually(timeout: .seconds(15)) {
                    stack.pushes(to: token).contains { $0.header("apns-collapse-id") == urgent.uuidString.lowercased() }
                }, "the urgent one went out at once")
                #expect(!stack.pushes(to: token).contains { $0.header("apns-collapse-id") == quiet.uuidString.lowercased() })

                #expect(await KafkaTestEnvironment.eventually(timeout: .seconds(150)) {
                    stack.pushes(to: token).contains { $0.header("apns-collapse-id") == quiet.uuidString.lowercased() }
                }, "sent once the window ended")
                #expect(Date() >= end)
                let log = try await NotifierDatabase.log(reminders: [quiet])
                #expect(log.count == 1 && log[0].outcome == "sent")
                #expect((log.first?.latenessMs ?? -1) >= 0 && (log.first?.latenessMs ?? .max) < 30_000, "lateness counts from the window's end")
            }
        }

        @Test func webhookDeliveriesAreSignedAndFailingWebhooksAreDisabled() async throws {
            let receiver = try await FakeWebhookReceiver.start()
            defer { Task { await receiver.stop() } }
            try await NotifierStack.with(notifier: ["HEARTH_WEBHOOK_MAX_FAILURES": "2", "HEARTH_NOTIFIER_MAX_ATTEMPTS": "2"]) { stack, _ in
                let user = try await GatewayUser.signIn(stack.gateway)
                let secret = "whsec-\(UUID().uuidString)"
                let registered = try await HTTPTestClient.postJSON(
                    stack.gateway.baseURL.appendingPathComponent("v1/webhooks"),
                    ["url": receiver.url("/hooks/ok"), "secret": secret, "events": ["reminder", "reminder"]], headers: user.headers)
                #expect(registered.status == 202)
                #expect(registered.json["events"] as? [String] == ["reminder"], "a repeated event is kept once")
                let webhookId = try #require(registered.json["webhook_id"] as? String)
                #expect(try await KafkaTestEnvironment.eventually {
                    try await NotifierDatabase.query { client in
                        let rows = try await client.query(
                            "SELECT count(*)::bigint FROM notification_webhooks WHERE webhook_id = \(UUID(uuidString: webhookId)!) AND active",
                            logger: TestEnvironment.logger)
                        for try await count in rows.decode(Int64.self) { return count == 1 }
                        return false
                    }
                })

                let reminder = try await stack.postReminder(user, title: "Swim kit", at: Date().addingTimeInterval(1), channels: ["webhook"])
                #expect(await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { !receiver.responder.requests(to: "/hooks/ok").isEmpty })
                let delivery = try #require(receiver.responder.requests(to: "/hooks/ok").first)
                let timestamp = try #require(delivery.header(WebhookSignature.timestampHeader).flatMap(Int.init))
                let signature = try #require(delivery.header(WebhookSignature.signatureHeader))
                #expect(WebhookSignature.verify(secret: secret, timestamp: timestamp, body: delivery.body, signature: signature))
                #expect(!WebhookSignature.verify(secret: "not-the-secret-at-all", timestamp: timestamp, body: delivery.body, signature: signature))
                #expect(abs(timestamp - Int(Date().timeIntervalSince1970)) < 60)
                let body = try #require(try JSONSerialization.jsonObject(with: delivery.body) as? [String: Any])
                #expect((body["reminder_id"] as? String)?.lowercased() == reminder.uuidString.lowercased())
                #expect(body["title"] as? String == "Swim kit")

                // A second webhook that always fails: retried, then disabled after two failures in a row.
                let failing = try await HTTPTestClient.postJSON(
                    stack.gateway.baseURL.appendingPathComponent("v1/webhooks"),
                    ["url": receiver.url("/hooks/broken"), "secret": secret], headers: user.headers)
                let failingId = try #require((failing.json["webhook_id"] as? String).flatMap(UUID.init(uuidString:)))
                receiver.responder.script("/hooks/broken", Array(repeating: .init(status: 500, body: "down"), count: 10))
                #expect(try await KafkaTestEnvironment.eventually {
                    try await NotifierDatabase.query { client in
                        let rows = try await client.query(
                            "SELECT count(*)::bigint FROM notification_webhooks WHERE webhook_id = \(failingId) AND active", logger: TestEnvironment.logger)
                        for try await count in rows.decode(Int64.self) { return count == 1 }
                        return false
                    }
                })
                _ = try await stack.postReminder(user, title: "Library books", at: Date().addingTimeInterval(1), channels: ["webhook"])
                #expect(try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) {
                    try await NotifierDatabase.query { client in
                        let rows = try await client.query(
                            "SELECT count(*)::bigint FROM notification_webhooks WHERE webhook_id = \(failingId) AND NOT active", logger: TestEnvironment.logger)
                        for try await count in rows.decode(Int64.self) { return count == 1 }
                        return false
                    }
                }, "webhook.disabled reached the read model")
                let brokenCalls = receiver.responder.requests(to: "/hooks/broken").count
                #expect(brokenCalls == 2)
                _ = try await stack.postReminder(user, title: "PE kit", at: Date().addingTimeInterval(1), channels: ["webhook"])
                #expect(await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { receiver.responder.requests(to: "/hooks/ok").count >= 3 })
                #expect(receiver.responder.requests(to: "/hooks/broken").count == brokenCalls, "a disabled webhook gets nothing")
            }
        }

        @Test func badDeviceTokensTimesURLsAndSettingsAreRejectedNamingTheField() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let user = try await GatewayUser.signIn(gateway)
                func post(_ path: String, _ body: [String: Any]) async throws -> HTTPTestClient.Reply {
                    try await HTTPTestClient.postJSON(gateway.baseURL.appendingPathComponent(path), body, headers: user.headers)
                }
                let good = NotifierStack.randomToken()
                for (body, field) in [
                    (["platform": "ios", "token": "zz" + good.dropFirst(2), "environment": "sandbox"], "token"),
                    (["platform": "ios", "token": String(good.prefix(40)), "environment": "sandbox"], "token"),
                    (["platform": "ios", "token": good + "a", "environment": "sandbox"], "token"),
                    (["platform": "android", "token": good, "environment": "sandbox"], "platform"),
                    (["platform": "ios", "token": good, "environment": "staging"], "environment"),
                ] as [([String: String], String)] {
                    let reply = try await post("v1/devices", body)
                    #expect(reply.status == 400 && reply.errorField == field, "\(body): \(reply.status) \(reply.errorField ?? "-")")
                }
                let badDelete = try await HTTPTestClient.send("DELETE", gateway.baseURL.appendingPathComponent("v1/devices/not-hex"), headers: user.headers)
                #expect(badDelete.status == 400 && badDelete.errorField == "token")

                let future = Timestamp.format(Date().addingTimeInterval(3600))
                for (body, field) in [
                    (["title": "x", "at": "tomorrow at six"], "at"),
                    (["title": "x", "at": "2026-03-03T18:00:00"], "at"),
                    (["title": "x", "at": "2001-01-01T00:00:00Z"], "at"),
                    (["title": "x", "at": "2999-01-01T00:00:00Z"], "at"),
                    // Hours past 23 were moved to the next day, not refused.
                    (["title": "x", "at": String(future.prefix(11)) + "25:00:00Z"], "at"),
                    (["title": "x", "at": String(future.prefix(19)) + "+0100"], "at"),
                    (["title": "  ", "at": future], "title"),
                    (["title": "x"], "at"),
                    (["title": "x", "at": future, "member_id": "nope"], "member_id"),
                    // A well-formed id of nobody in the caller's household.
                    (["title": "x", "at": future, "member_id": UUID().uuidString], "member_id"),
                    (["title": "x", "at": future, "channels": ["sms"]], "channels[0]"),
                ] as [([String: Any], String)] {
                    let reply = try await post("v1/reminders", body)
                    #expect(reply.status == 400 && reply.errorField == field, "\(body): \(reply.status) \(reply.errorField ?? "-")")
                }
                let ok = try await post("v1/reminders", ["title": "x", "at": future])
                #expect(ok.status == 202)
                // A reminder about a person of the caller's household is taken.
                let household = try await post("v1/households/upsert", ["name": "Reminder family", "prefs": ["adults": 1]])
                #expect(household.status == 200)
                let householdId = try #require(household.json["household_id"] as? String)
                let member = try await CalendarStack.addMember(gateway, user: user, household: householdId, name: "Sam")
                let forMember = try await post("v1/reminders", ["title": "Swim bag", "at": future, "member_id": member])
                #expect(forMember.status == 202, "\(String(decoding: forMember.body, as: UTF8.self))")

                for (body, field) in [
                    (["url": "not a url", "secret": "0123456789abcdef"], "url"),
                    (["url": "ftp://example.com/hook", "secret": "0123456789abcdef"], "url"),
                    (["url": "https://example.com/hook", "secret": "short"], "secret"),
                    (["url": "https://example.com/hook", "secret": "0123456789abcdef", "events": ["everything"]], "events[0]"),
                    (["url": "https://example.com/hook", "secret": "0123456789abcdef", "events": [String]()], "events"),
                ] as [([String: Any], String)] {
                    let reply = try await post("v1/webhooks", body)
                    #expect(reply.status == 400 && reply.errorField == field, "\(body): \(reply.status) \(reply.errorField ?? "-")")
                }
                for (body, field) in [
                    (["time_zone": "Mars/Olympus"], "time_zone"),
                    (["time_zone": "EST"], "time_zone"),
                    (["quiet_hours_start": "22:00"], "quiet_hours_end"),
                    (["quiet_hours_start": "25:00", "quiet_hours_end": "07:00"], "quiet_hours_start"),
                    (["channels": ["pager"]], "channels[0]"),
                    ([String: Any](), "body"),
                ] as [([String: Any], String)] {
                    let reply = try await HTTPTestClient.send(
                        "PUT", gateway.baseURL.appendingPathComponent("v1/notifications/settings"),
                        body: try JSONSerialization.data(withJSONObject: body), headers: user.headers)
                    #expect(reply.status == 400 && reply.errorField == field, "\(body): \(reply.status) \(reply.errorField ?? "-")")
                }
                let badId = try await HTTPTestClient.send("DELETE", gateway.baseURL.appendingPathComponent("v1/reminders/123"), headers: user.headers)
                #expect(badId.status == 400 && badId.errorField == "id")
                let badCursor = try await HTTPTestClient.send(
                    "GET", gateway.baseURL.appendingPathComponent("v1/notifications").appending(queryItems: [.init(name: "cursor", value: "%%%")]),
                    headers: user.headers)
                #expect(badCursor.status == 400 && badCursor.errorField == "cursor")
            }
        }
    }
}
