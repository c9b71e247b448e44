import Foundation
import HearthDomain
import HearthEvents
import HearthStore
import Testing

extension BackboneSuite {
    /// The household calendar API: conflicts, validation, recurrences, chores, and the iCalendar
    /// feed checked with a real parser (PyPI `icalendar` in `.run/venv`).
    @Suite struct CalendarAPI {
        @Test func overlapsOfTheSameMemberAreReportedOrRefusedAndBadTimesNameTheirField() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let (user, household) = try await GatewayUser.withHousehold(gateway, name: "Conflict testers")
                let ada = try await CalendarStack.addMember(gateway, user: user, household: household, name: "Ada")
                let bo = try await CalendarStack.addMember(gateway, user: user, household: household, name: "Bo")
                let stray = try await CalendarStack.create(gateway, user: user, [
                    "title": "Not ours", "start": "2026-03-03T10:00:00Z", "end": "2026-03-03T11:00:00Z", "member_ids": [UUID().uuidString]])
                #expect(stray.status == 400 && stray.errorField == "member_ids")
                let dentist = try await CalendarStack.create(gateway, user: user, [
                    "title": "Dentist", "start": "2026-03-03T10:00:00Z", "end": "2026-03-03T11:00:00Z", "member_ids": [ada]])
                #expect(dentist.status == 200)
                #expect((dentist.json["conflicts"] as? [Any])?.isEmpty == true)
                let dentistId = try #require(dentist.json["event_id"] as? String)

                // Overlapping, same member: written, with a warning.
                let call = try await CalendarStack.create(gateway, user: user, [
                    "title": "Call", "start": "2026-03-03T10:30:00+00:00", "end": "2026-03-03T11:30:00Z", "member_ids": [ada, bo], "kind": "call"])
                #expect(call.status == 200)
                let conflicts = try #require(call.json["conflicts"] as? [[String: Any]])
                #expect(conflicts.count == 1)
                #expect(conflicts.first?["event_id"] as? String == dentistId)
                #expect(conflicts.first?["member_ids"] as? [String] == [ada])

                // A weekly training collides with a later appointment; with reject_conflicts it is a 409 and nothing is written.
                let training = try await CalendarStack.create(gateway, user: user, [
                    "title": "Training", "start": "2026-03-02T17:00", "end": "2026-03-02T18:00", "time_zone": "Europe/London",
                    "member_ids": [bo], "kind": "training", "rrule": "FREQ=WEEKLY;BYDAY=MO"])
                #expect(training.status == 200)
                let refused = try await CalendarStack.create(gateway, user: user, [
                    "title": "Parents' evening", "start": "2026-03-16T17:30:00Z", "end": "2026-03-16T18:30:00Z", "member_ids": [bo]],
                    query: "?reject_conflicts=true")
                #expect(refused.status == 409)
                #expect(refused.errorCode == "conflict")
                #expect((refused.json["conflicts"] as? [[String: Any]])?.first?["title"] as? String == "Training")
                let march = try await CalendarStack.list(gateway, user: user, from: "2026-03-01", to: "2026-04-01")
                #expect(!march.contains { $0["title"] as? String == "Parents' evening" })
                // Expanded: five Mondays in March 2026 from the 2nd, kept at 17:00 London time across the 29 March change.
                let trainings = march.filter { $0["title"] as? String == "Training" }
                #expect(trainings.count == 5)
                #expect(CalendarStack.instant(trainings.last?["start"] as? String) == CalendarStack.instant("2026-03-30T16:00:00Z"))

                // A chore occurrence assigned to Bo (by name, as assist runs write them) blocks Bo too.
                let publisher = EventPublisher(producer: try KafkaTestEnvironment.producer(clientId: "hearth-tests-calendar-conflicts"), source: "tests", keys: nil)
                let choreId = UUID()
                try await publisher.publish(ChoreScheduled(
                    occurrenceId: choreId, householdId: UUID(uuidString: household), userId: try #require(UUID(uuidString: user.userId)),
                    runId: nil, chore: "Walk the dog", choreId: "dog", assignee: "Bo", at: "2026-03-05T08:00:00Z", date: "2026-03-05",
                    minutes: 30, timeZone: "UTC"), correlationId: "calendar-conflict-test")
                let listURL = gateway.baseURL.appendingPathComponent("v1/calendar/events")
                    .appending(queryItems: [.init(name: "from", value: "2026-03-05"), .init(name: "to", value: "2026-03-06")])
                let headers = user.headers
                #expect(try await KafkaTestEnvironment.eventually(timeout: .seconds(20)) {
                    let reply = try await HTTPTestClient.send("GET", listURL, headers: headers)
                    return (reply.json["events"] as? [[String: Any]] ?? []).contains { $0["source"] as? String == "chore" }
                })
                let overChore = try await CalendarStack.create(gateway, user: user, [
                    "title": "School run", "start": "2026-03-05T08:15:00Z", "end": "2026-03-05T08:45:00Z", "member_ids": [bo]])
                #expect((overChore.json["conflicts"] as? [[String: Any]])?.map { $0["event_id"] as? String } == [choreId.uuidString.lowercased()])

                // Bad times: 400 naming the field.
                let cases: [([String: Any], String)] = [
                    (["title": "x", "start": "2026-03-03T10:00:00Z", "end": "2026-03-03T09:00:00Z"], "end"),
                    (["title": "x", "start": "2026-03-03T10:00", "end": "2026-03-03T11:00", "time_zone": "Mars/Olympus_Mons"], "time_zone"),
                    (["title": "x", "start": "2026-03-03T10:00:00Z", "end": "2026-03-03T11:00:00Z", "rrule": "FREQ=YEARLY"], "rrule"),
                    (["title": "x", "start": "2026-03-03T10:00:00Z", "end": "2026-03-03T11:00:00Z", "rrule": "FREQ=DAILY;BYHOUR=3"], "rrule"),
                    (["title": "x", "start": "next tuesday", "end": "2026-03-03T11:00:00Z"], "start"),
                    (["title": "x", "start": "2026-03-03T10:00:00Z"], "end"),
                    (["title": "", "start": "2026-03-03T10:00:00Z", "end": "2026-03-03T11:00:00Z"], "title"),
                    (["title": "x", "start": "2026-03-03T10:00:00Z", "end": "2026-03-03T11:00:00Z", "kind": "party"], "kind"),
                ]
                for (body, field) in cases {
                    let reply = try await CalendarStack.create(gateway, user: user, body)
                    #expect(reply.status == 400, "\(body)")
                    #expect(reply.errorField == field, "\(body): \(String(decoding: reply.body, as: UTF8.self))")
                }
                let badWindow = try await HTTPTestClient.send(
                    "GET", gateway.baseURL.appendingPathComponent("v1/calendar/events").appending(queryItems: [.init(name: "from", value: "2026-03-01")]),
                    headers: user.headers)
                #expect(badWindow.status == 400 && badWindow.errorField == "to")

                // Other households see none of it.
                let (stranger, _) = try await GatewayUser.withHousehold(gateway, name: "Strangers")
                #expect(try await CalendarStack.list(gateway, user: stranger, from: "2026-03-01", to: "2026-04-01").isEmpty)
                let foreign = try await HTTPTestClient.send(
                    "DELETE", gateway.baseURL.appendingPathComponent("v1/calendar/events/\(dentistId)"), headers: stranger.headers)
                #expect(foreign.status == 404)
            }
        }

        @Test func theFeedParsesWithICalendarAndMatchesTheAPI() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let (user, household) = try await GatewayUser.withHousehold(gateway, name: "Feed testers")
                let tricky = "Dinner, then; games\nbring snacks \\ Café Ünïcödé 🎲 " + String(repeating: "ß", count: 40)
                let single = try await CalendarStack.create(gateway, user: user, [
                    "title": tricky, "start": "2026-04-10T18:00:00+02:00", "end": "2026-04-10T20:00:00+02:00",
                    "location": "Rue de la Paix 1, Paris; 2nd floor", "kind": "adhoc"])
                let allDay = try await CalendarStack.create(gateway, user: user, [
                    "title": "School holiday", "start": "2026-04-13", "end": "2026-04-18", "all_day": true, "time_zone": "Europe/Paris"])
                let recurring = try await CalendarStack.create(gateway, user: user, [
                    "title": "Swimming", "start": "2026-03-24T17:00", "end": "2026-03-24T18:00", "time_zone": "Europe/Paris",
                    "kind": "training", "rrule": "FREQ=WEEKLY;BYDAY=TU;COUNT=4"])
                for reply in [single, allDay, recurring] { #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))") }

                // A chore occurrence from an assist run shows up in the same calendar.
                let occurrence = UUID()
                let publisher = EventPublisher(producer: try KafkaTestEnvironment.producer(clientId: "hearth-tests-calendar-feed"), source: "tests", keys: nil)
                try await publisher.publish(ChoreScheduled(
                    occurrenceId: occurrence, householdId: UUID(uuidString: household), userId: try #require(UUID(uuidString: user.userId)),
                    runId: nil, chore: "Take out the bins", choreId: "bins", assignee: "Ada", at: "2026-04-11T19:00:00", date: "2026-04-11",
                    minutes: 10, timeZone: "Europe/Paris"), correlationId: "calendar-feed-test")
                // So does a child's daily routine, open-ended.
                let routine = UUID()
                try await publisher.publish(RoutineScheduled(
                    routineId: routine, householdId: UUID(uuidString: household), userId: try #require(UUID(uuidString: user.userId)),
                    runId: nil, child: "Ada", age: 6, kind: "bedtime", name: "Bedtime", startsAt: "19:30", startDate: "2026-04-06",
                    minutes: 30, steps: [], rrule: "FREQ=DAILY", timeZone: "Europe/Paris"), correlationId: "calendar-feed-test")
                let aprilURL = gateway.baseURL.appendingPathComponent("v1/calendar/events")
                    .appending(queryItems: [.init(name: "from", value: "2026-04-01"), .init(name: "to", value: "2026-05-01")])
                let headers = user.headers
                let choreSeen = try await KafkaTestEnvironment.eventually(timeout: .seconds(20)) {
                    let reply = try await HTTPTestClient.send("GET", aprilURL, headers: headers)
                    let ids = (reply.json["events"] as? [[String: Any]] ?? []).compactMap { $0["event_id"] as? String }
                    return ids.contains(occurrence.uuidString.lowercased()) && ids.contains(routine.uuidString.lowercased())
                }
                #expect(choreSeen)

                let api = try await CalendarStack.list(gateway, user: user, from: "2026-03-01", to: "2026-05-01")
                let feed = try await HTTPTestClient.postJSON(gateway.baseURL.appendingPathComponent("v1/calendar/feeds"), [String: Any](), headers: user.headers)
                #expect(feed.status == 201)
                let path = try #require(feed.json["path"] as? String)
                let feedId = try #require(feed.json["feed_id"] as? String)
                let fetched = try await HTTPTestClient.send("GET", URL(string: gateway.baseURL.absoluteString + path)!)
                #expect(fetched.status == 200)
                #expect(fetched.header("Content-Type")?.hasPrefix("text/calendar") == true)
                let text = String(decoding: fetched.body, as: UTF8.self)
                for line in text.components(separatedBy: "\r\n") { #expect(line.utf8.count <= 75, "unfolded line: \(line)") }

                let parsed = try ICalendarProbe.parse(fetched.body)
                #expect(parsed.version == "2.0" && !parsed.productId.isEmpty)
                let byUID = Dictionary(uniqueKeysWithValues: parsed.events.map { ($0.uid, $0) })
                #expect(byUID.count == 5)
                func uid(_ id: String) -> String { "\(id)@hearth" }

                let singleId = try #require(single.json["event_id"] as? String)
                let singleFeed = try #require(byUID[uid(singleId)])
                let singleAPI = try #require(api.first { $0["event_id"] as? String == singleId })
                #expect(singleFeed.summary == tricky)
                #expect(singleFeed.summary == singleAPI["title"] as? String)
                #expect(singleFeed.location == "Rue de la Paix 1, Paris; 2nd floor")
                #expect(CalendarStack.instant(singleFeed.start) == CalendarStack.instant(singleAPI["start"] as? String))
                #expect(CalendarStack.instant(singleFeed.end) == CalendarStack.instant(singleAPI["end"] as? String))
                #expect(singleFeed.sequence == 0)

                let allDayId = try #require(allDay.json["event_id"] as? String)
                let allDayFeed = try #require(byUID[uid(allDayId)])
                let allDayAPI = try #require(api.first { $0["event_id"] as? String == allDayId })
                #expect(allDayFeed.start == "2026-04-13" && allDayFeed.start == allDayAPI["start_date"] as? String)
                #expect(allDayFeed.end == "2026-04-18" && allDayFeed.end == allDayAPI["end_date"] as? String)

                let recurringId = try #require(recurring.json["event_id"] as? String)
                let recurringFeed = try #require(byUID[uid(recurringId)])
                let recurringAPI = api.filter { $0["event_id"] as? String == recurringId }
                #expect(recurringFeed.rrule == "FREQ=WEEKLY;COUNT=4;BYDAY=TU" || recurringFeed.rrule == "FREQ=WEEKLY;BYDAY=TU;COUNT=4")
                #expect(recurringFeed.timeZone == "Europe/Paris")
                // The parser's own expansion of the rule (dateutil, in the zone) gives the API's occurrences.
                #expect(recurringFeed.occurrences.compactMap(CalendarStack.instant) == recurringAPI.compactMap { CalendarStack.instant($0["start"] as? String) })
                #expect(recurringAPI.count == 4)

                let choreFeed = try #require(byUID[uid(occurrence.uuidString.lowercased())])
                #expect(choreFeed.summary == "Take out the bins")
                #expect(CalendarStack.instant(choreFeed.start) == CalendarStack.instant("2026-04-11T17:00:00Z"))

                let routineFeed = try #require(byUID[uid(routine.uuidString.lowercased())])
                let routineAPI = api.filter { $0["event_id"] as? String == routine.uuidString.lowercased() }
                #expect(routineFeed.summary == "Bedtime (Ada)")
                #expect(routineFeed.rrule == "FREQ=DAILY")
                #expect(routineFeed.timeZone == "Europe/Paris")
                #expect(CalendarStack.instant(routineFeed.start) == CalendarStack.instant("2026-04-06T17:30:00Z"))
                // Every day of the window from the 6th of April to the end of the month: 25 occurrences,
                // the parser's expansion of the daily rule in Paris time giving the API's.
                #expect(routineAPI.count == 25)
                #expect(Array(routineFeed.occurrences.prefix(routineAPI.count)).compactMap(CalendarStack.instant)
                    == routineAPI.compactMap { CalendarStack.instant($0["start"] as? String) })

                // A change is a new SEQUENCE with the same UID.
                let moved = try await HTTPTestClient.send(
                    "PUT", gateway.baseURL.appendingPathComponent("v1/calendar/events/\(singleId)"),
                    body: try JSONSerialization.data(withJSONObject: ["title": tricky, "start": "2026-04-10T19:00:00+02:00", "end": "2026-04-10T21:00:00+02:00"]),
                    headers: user.headers)
                #expect(moved.status == 200)
                let again = try ICalendarProbe.parse(try await HTTPTestClient.send("GET", URL(string: gateway.baseURL.absoluteString + path)!).body)
                let movedFeed = try #require(again.events.first { $0.uid == uid(singleId) })
                #expect(movedFeed.sequence == 1)
                #expect(CalendarStack.instant(movedFeed.start) == CalendarStack.instant("2026-04-10T17:00:00Z"))

                // Revoked: the URL stops working; a made-up token never worked.
                let revoked = try await HTTPTestClient.send("DELETE", gateway.baseURL.appendingPathComponent("v1/calendar/feeds/\(feedId)"), headers: user.headers)
                #expect(revoked.status == 204)
                #expect(try await HTTPTestClient.send("GET", URL(string: gateway.baseURL.absoluteString + path)!).status == 404)
                #expect(try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/calendar/feeds/\(String(repeating: "a", count: 43)).ics")).status == 404)
            }
        }
    }
}
