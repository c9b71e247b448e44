import Foundation
import HearthDomain
import HearthEvents
import HearthStore
import PostgresNIO
import Testing

extension BackboneSuite {
    /// The one-way mirror into Google Calendar, against a local fake of Google's token and
    /// Calendar endpoints.
    @Suite struct GoogleSync {
        /// Until the fake holds exactly `expected` (Google id → title), or the time is up.
        /// Whether calendar-sync has seen (stored its sync record of) the entry within 20 s.
        static func seenByCalendarSync(_ entry: UUID) async -> Bool {
            await KafkaTestEnvironment.eventually(timeout: .seconds(20)) {
                (try? await TestEnvironment.withPostgres { client in
                    let rows = try await client.query("SELECT 1::int FROM google_sync_entries WHERE hearth_id = \(entry)", logger: TestEnvironment.logger)
                    for try await _ in rows.decode(Int.self) { return true }
                    return false
                }) ?? false
            }
        }

        static func converge(_ fake: FakeGoogle, to expected: [String: String]) async throws -> Bool {
            await KafkaTestEnvironment.eventually(timeout: .seconds(30)) {
                await fake.events().mapValues { $0.summary ?? "" } == expected
            }
        }

        @Test func createMoveDeleteMirrorsExactlyARedeliveryMakesNoDuplicateAndUnlinkingStopsIt() async throws {
            try await CalendarStack.with { fake, gateway, user in
                let dentist = try await CalendarStack.create(gateway, user: user, [
                    "title": "Dentist", "start": "2026-05-04T09:00:00Z", "end": "2026-05-04T09:45:00Z", "kind": "appointment",
                    "location": "Main St 4, Springfield"])
                let picnic = try await CalendarStack.create(gateway, user: user, [
                    "title": "Picnic", "start": "2026-05-09", "all_day": true, "kind": "adhoc", "time_zone": "Europe/Berlin"])
                let training = try await CalendarStack.create(gateway, user: user, [
                    "title": "Football training", "start": "2026-05-05T17:30", "end": "2026-05-05T19:00", "time_zone": "Europe/Berlin",
                    "kind": "training", "rrule": "FREQ=WEEKLY;BYDAY=TU,TH;COUNT=8"])
                for reply in [dentist, picnic, training] { #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))") }
                let ids = try [dentist, picnic, training].map { try #require(($0.json["event_id"] as? String).flatMap(UUID.init(uuidString:))) }
                let googleIds = ids.map(GoogleEventId.derive(from:))
                #expect(try await Self.converge(fake, to: [googleIds[0]: "Dentist", googleIds[1]: "Picnic", googleIds[2]: "Football training"]))

                let mirrored = await fake.events()
                #expect(CalendarStack.instant(mirrored[googleIds[0]]?.start.dateTime) == CalendarStack.instant("2026-05-04T09:00:00Z"))
                #expect(mirrored[googleIds[0]]?.location == "Main St 4, Springfield")
                #expect(mirrored[googleIds[1]]?.start.date == "2026-05-09" && mirrored[googleIds[1]]?.end.date == "2026-05-10")
                #expect(mirrored[googleIds[2]]?.recurrence == ["RRULE:FREQ=WEEKLY;BYDAY=TU,TH;COUNT=8"])
                #expect(mirrored[googleIds[2]]?.start.timeZone == "Europe/Berlin")

                // Move the dentist, delete the picnic.
                let moved = try await HTTPTestClient.send(
                    "PUT", gateway.baseURL.appendingPathComponent("v1/calendar/events/\(ids[0].uuidString.lowercased())"),
                    body: try JSONSerialization.data(withJSONObject: [
                        "title": "Dentist (moved)", "start": "2026-05-06T14:00:00Z", "end": "2026-05-06T14:45:00Z", "kind": "appointment"]),
                    headers: user.headers)
                #expect(moved.status == 200 && moved.json["sequence"] as? Int == 1)
                let deleted = try await HTTPTestClient.send(
                    "DELETE", gateway.baseURL.appendingPathComponent("v1/calendar/events/\(ids[1].uuidString.lowercased())"), headers: user.headers)
                #expect(deleted.status == 204)
                #expect(try await Self.converge(fake, to: [googleIds[0]: "Dentist (moved)", googleIds[2]: "Football training"]))
                let afterMove = await fake.events()
                #expect(CalendarStack.instant(afterMove[googleIds[0]]?.start.dateTime) == CalendarStack.instant("2026-05-06T14:00:00Z"))

                // The API and Google agree on what exists.
                let listed = try await CalendarStack.list(gateway, user: user, from: "2026-05-01", to: "2026-06-01")
                let listedIds = Set(listed.compactMap { ($0["event_id"] as? String).flatMap(UUID.init(uuidString:)) }.map(GoogleEventId.derive(from:)))
                #expect(listedIds == Set(afterMove.keys))

                // Redeliver the training's creation exactly as it was (same event id), after
                // forgetting that it was mirrored, as if the first attempt's transaction had
                // rolled back after Google accepted it: the insert meets a 409 and becomes an update.
                let conflictsBefore = await fake.insertConflicts
                try await TestEnvironment.withPostgres { client in
                    try await client.query("DELETE FROM calendar_links WHERE hearth_id = \(ids[2])", logger: TestEnvironment.logger)
                    let rows = try await client.query(
                        "SELECT envelope::text FROM event_log WHERE type = 'calendar.event_created' AND key = \(ids[2].uuidString.lowercased())",
                        logger: TestEnvironment.logger)
                    var envelope: String?
                    for try await text in rows.decode(String.self) { envelope = text }
                    let original = try #require(envelope)
                    guard case .event(let decoded) = try EventCatalogue.hearth.decode(Data(original.utf8)),
                          let created = decoded.payload as? CalendarEventCreated
                    else { Issue.record("the archived creation does not decode"); return }
                    let publisher = EventPublisher(producer: try KafkaTestEnvironment.producer(clientId: "hearth-tests-calendar"), source: "tests", keys: nil)
                    try await publisher.publish(Envelope(
                        created, correlationId: decoded.metadata.correlationId, source: decoded.metadata.source, id: decoded.metadata.id,
                        occurredAt: decoded.metadata.occurredAt))
                }
                let conflicted = await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { await fake.insertConflicts > conflictsBefore }
                #expect(conflicted, "the redelivered insert reached Google and was answered 409")
                #expect(try await Self.converge(fake, to: [googleIds[0]: "Dentist (moved)", googleIds[2]: "Football training"]))
                #expect(await fake.events().count == 2, "no duplicate")

                // Disconnect: Google is asked to forget the grant, the sealed token is gone, and
                // nothing more is mirrored.
                let userId = try #require(UUID(uuidString: user.userId))
                let unlinked = try await HTTPTestClient.send("DELETE", gateway.baseURL.appendingPathComponent("v1/integrations/google"), headers: user.headers)
                #expect(unlinked.status == 204)
                #expect(await fake.revocations == 1)
                let remaining = try await TestEnvironment.withPostgres { client -> Int in
                    let rows = try await client.query("SELECT count(*) FROM google_credentials WHERE user_id = \(userId)", logger: TestEnvironment.logger)
                    for try await count in rows.decode(Int.self) { return count }
                    return -1
                }
                #expect(remaining == 0)
                #expect(try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { try await CalendarStack.linkStatus(of: userId) == "disconnected" })
                let after = try await CalendarStack.create(gateway, user: user, [
                    "title": "After unlinking", "start": "2026-05-20T09:00:00Z", "end": "2026-05-20T10:00:00Z"])
                #expect(after.status == 200)
                let again = try await HTTPTestClient.send("DELETE", gateway.baseURL.appendingPathComponent("v1/integrations/google"), headers: user.headers)
                #expect(again.status == 404)
                // Once calendar-sync has consumed past that creation, Google still holds two events.
                let position = try #require(after.json["position"] as? String).split(separator: ":")
                let (partition, offset) = (try #require(Int(position[1])), try #require(Int(position[2])))
                #expect(try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) {
                    try await TestEnvironment.withPostgres { client in
                        let rows = try await client.query(
                            "SELECT next_offset FROM projection_offsets WHERE projection = 'google_sync' AND topic = 'calendar' AND partition = \(partition)",
                            logger: TestEnvironment.logger)
                        for try await next in rows.decode(Int.self) { return next > offset }
                        return false
                    }
                })
                #expect(await fake.events().count == 2)
            }
        }

        /// A linked user who leaves the household gets its calendar in their Google calendar no more.
        @Test func leavingTheHouseholdStopsMirroringItsCalendar() async throws {
            try await CalendarStack.with { fake, gateway, user in
                let household = try #require(
                    try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/me"), headers: user.headers).json["household_id"] as? String)
                let partner = try await GatewayUser.signIn(gateway)
                try await Memberships.join(partner, household, invitedBy: user, gateway: gateway)
                let promoted = try await HTTPTestClient.send(
                    "PUT", gateway.baseURL.appendingPathComponent("v1/households/\(household)/members/\(partner.userId)/role"),
                    body: try JSONSerialization.data(withJSONObject: ["role": "owner"]), headers: user.headers)
                #expect(promoted.status == 200)
                let swim = try await CalendarStack.create(gateway, user: partner, ["title": "Swim", "start": "2026-06-01T09:00:00Z", "end": "2026-06-01T10:00:00Z", "kind": "adhoc"])
                let swimId = try #require((swim.json["event_id"] as? String).flatMap(UUID.init(uuidString:)))
                #expect(try await Self.converge(fake, to: [GoogleEventId.derive(from: swimId): "Swim"]), "a household entry is mirrored")

                #expect(try await HTTPTestClient.send("POST", gateway.baseURL.appendingPathComponent("v1/households/\(household)/leave"), headers: user.headers).status == 200)
                let piano = try await CalendarStack.create(gateway, user: partner, ["title": "Piano", "start": "2026-06-02T09:00:00Z", "end": "2026-06-02T10:00:00Z", "kind": "adhoc"])
                let pianoId = try #require((piano.json["event_id"] as? String).flatMap(UUID.init(uuidString:)))
                // Once calendar-sync has seen the new entry, it has not gone to the one who left.
                let seen = await Self.seenByCalendarSync(pianoId)
                #expect(seen)
                try await Task.sleep(for: .milliseconds(500))
                #expect(await fake.events()[GoogleEventId.derive(from: pianoId)] == nil, "the household left is not mirrored")
                #expect(await fake.events()[GoogleEventId.derive(from: swimId)] != nil, "what was mirrored before stays")
            }
        }

        /// Asking to delete the account unlinks Google at once: nothing more is mirrored to the
        /// person's calendar, even from a household that goes on without them.
        @Test func aDeletionRequestStopsMirroringAtOnce() async throws {
            try await CalendarStack.with { fake, gateway, user in
                let household = try #require(
                    try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/me"), headers: user.headers).json["household_id"] as? String)
                let partner = try await GatewayUser.signIn(gateway)
                try await Memberships.join(partner, household, invitedBy: user, gateway: gateway)
                let swim = try await CalendarStack.create(gateway, user: partner, ["title": "Swim", "start": "2026-06-01T09:00:00Z", "end": "2026-06-01T10:00:00Z", "kind": "adhoc"])
                let swimId = try #require((swim.json["event_id"] as? String).flatMap(UUID.init(uuidString:)))
                #expect(try await Self.converge(fake, to: [GoogleEventId.derive(from: swimId): "Swim"]), "mirrored while linked")

                let deleted = try await HTTPTestClient.send("DELETE", gateway.baseURL.appendingPathComponent("v1/me"), headers: user.headers)
                #expect(deleted.status == 202, "\(String(decoding: deleted.body, as: UTF8.self))")
                let userId = try #require(UUID(uuidString: user.userId))
                #expect(try await KafkaTestEnvironment.eventually(timeout: .seconds(20)) {
                    try await TestEnvironment.withPostgres { client in
                        let rows = try await client.query("SELECT count(*)::int FROM google_links WHERE user_id = \(userId)", logger: TestEnvironment.logger)
                        return try await rows.collect().first?.decode(Int.self) == 0
                    }
                }, "the link is gone")
                let piano = try await CalendarStack.create(gateway, user: partner, ["title": "Piano", "start": "2026-06-02T09:00:00Z", "end": "2026-06-02T10:00:00Z", "kind": "adhoc"])
                let pianoId = try #require((piano.json["event_id"] as? String).flatMap(UUID.init(uuidString:)))
                let seen = await Self.seenByCalendarSync(pianoId)
                #expect(seen, "calendar-sync has seen the new entry")
                try await Task.sleep(for: .milliseconds(500))
                #expect(await fake.events()[GoogleEventId.derive(from: pianoId)] == nil, "nothing goes to the calendar of someone deleting their account")
            }
        }

        @Test func aLateLinkIsBackfilledA401RefreshesOnceAndInvalidGrantBreaksTheLinkAndAsksForAReminder() async throws {
            let early = EarlyEntry()
            try await CalendarStack.with(beforeLinking: { gateway, user in
                let reply = try await CalendarStack.create(gateway, user: user, [
                    "title": "Booked before linking", "start": "2026-05-30T08:00:00Z", "end": "2026-05-30T09:00:00Z"])
                await early.set((reply.json["event_id"] as? String).flatMap(UUID.init(uuidString:)))
            }) { fake, gateway, user in
                // Linking mirrors what the household calendar already held.
                let earlyId = try #require(await early.id)
                #expect(await KafkaTestEnvironment.eventually(timeout: .seconds(30)) {
                    await fake.events()[GoogleEventId.derive(from: earlyId)]?.summary == "Booked before linking"
                })

                let first = try await CalendarStack.create(gateway, user: user, ["title": "Call with coach", "start": "2026-06-01T08:00:00Z", "end": "2026-06-01T08:30:00Z", "kind": "call"])
                let firstId = try #require((first.json["event_id"] as? String).flatMap(UUID.init(uuidString:)))
                #expect(await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { await fake.events()[GoogleEventId.derive(from: firstId)] != nil })

                // Access tokens die early: the next call is a 401, answered by exactly one refresh.
                await fake.expireAccessTokens()
                let refreshesBefore = await fake.refreshGrants
                let unauthorizedBefore = await fake.unauthorizedAnswers
                let second = try await CalendarStack.create(gateway, user: user, ["title": "Swim", "start": "2026-06-02T16:00:00Z", "end": "2026-06-02T17:00:00Z", "kind": "training"])
                let secondId = try #require((second.json["event_id"] as? String).flatMap(UUID.init(uuidString:)))
                #expect(await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { await fake.events()[GoogleEventId.derive(from: secondId)] != nil })
                #expect(await fake.refreshGrants == refreshesBefore + 1, "one refresh for one 401")
                #expect(await fake.unauthorizedAnswers == unauthorizedBefore + 1)

                // Busy Google: 503 then 429, both waited out.
                await fake.failNext([503, 429])
                let third = try await CalendarStack.create(gateway, user: user, ["title": "Piano", "start": "2026-06-03T16:00:00Z", "end": "2026-06-03T17:00:00Z", "kind": "appointment"])
                let thirdId = try #require((third.json["event_id"] as? String).flatMap(UUID.init(uuidString:)))
                #expect(await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { await fake.events()[GoogleEventId.derive(from: thirdId)] != nil })

                // The user revokes access at Google: invalid_grant breaks the link and the user is told.
                await fake.revokeGrants()
                let fourth = try await CalendarStack.create(gateway, user: user, ["title": "Never mirrored", "start": "2026-06-04T16:00:00Z", "end": "2026-06-04T17:00:00Z", "kind": "adhoc"])
                let fourthId = try #require((fourth.json["event_id"] as? String).flatMap(UUID.init(uuidString:)))
                let userId = try #require(UUID(uuidString: user.userId))
                #expect(try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { try await CalendarStack.linkStatus(of: userId) == "broken" })

                let reminder = try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) {
                    try await Self.archived("reminder.requested", user: userId) != nil
                }
                #expect(reminder, "a reminder.requested from calendar-sync for the user")
                let text = try #require(try await Self.archived("reminder.requested", user: userId))
                let reminderData = try #require((try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["data"] as? [String: Any])
                #expect(reminderData["urgent"] as? Bool == true)
                #expect(reminderData["source"] as? String == "calendar-sync")
                #expect(try await Self.archived("google.link_broken", user: userId) != nil)
                #expect(await fake.events()[GoogleEventId.derive(from: fourthId)] == nil)
            }
        }

        /// The newest archived event of `type` about `user`, as JSON text.
        static func archived(_ type: String, user: UUID) async throws -> String? {
            try await TestEnvironment.withPostgres { client in
                let rows = try await client.query(
                    """
                    SELECT envelope::text FROM event_log WHERE type = \(type) AND lower(envelope->'data'->>'user_id') = \(user.uuidString.lowercased())
                    ORDER BY occurred_at DESC LIMIT 1
                    """, logger: TestEnvironment.logger)
                for try await text in rows.decode(String.self) { return text }
                return nil
            }
        }
    }
}

/// Hands the id of an entry made before linking to the test body.
actor EarlyEntry {
    private(set) var id: UUID?
    func set(_ value: UUID?) { id = value }
}
