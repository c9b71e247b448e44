import Foundation
import HearthDomain
import PostgresNIO
import Testing

extension BackboneSuite {
    /// The assist flow end to end over HTTP: gateway → `assist.requests` → assist-orchestrator →
    /// `assist.events` → gateway, for every mode in both wire formats, then the read models.
    @Suite struct AssistFlow {
        static var prefs: [String: Any] { ["adults": 2, "kidsAges": [4, 9], "allergies": ["peanuts", "shellfish"], "cuisines": ["italian"]] }

        /// Signs in a user whose household has children and allergies.
        static func family(_ gateway: ServiceProcess) async throws -> GatewayUser {
            let user = try await GatewayUser.signIn(gateway)
            let reply = try await HTTPTestClient.postJSON(
                gateway.baseURL.appendingPathComponent("v1/households/upsert"), ["name": "The Streamers", "prefs": prefs],
                headers: user.headers)
            #expect(reply.status == 200)
            // The household is read when a run is admitted; wait until it is projected.
            if let position = reply.json["position"] as? String, let id = reply.json["household_id"] as? String {
                let read = try await HTTPTestClient.send(
                    "GET", gateway.baseURL.appendingPathComponent("v1/households/\(id)"),
                    headers: user.headers(["X-Consistency-Token": position]))
                #expect(read.status == 200)
            }
            return user
        }

        @Test func everyModeStreamsInBothFormats() async throws {
            try await AssistStack.with { gateway, _ in
                let user = try await Self.family(gateway)
                for mode in ["meals", "chores", "routines"] {
                    for wire in AssistWire.allCases {
                        let goal = switch mode {
                        case "meals": "Plan quick dinners for the week"
                        case "chores": "Share the dishes and laundry fairly"
                        default: "Calm bedtimes and easy school mornings"
                        }
                        let (events, reply) = try await AssistStack.run(
                            gateway, user: user, ["goal": goal, "mode": mode, "days": 7, "start_date": "2026-03-02"], wire: wire)
                        #expect(reply.header("Content-Type")?.hasPrefix(wire.rawValue) == true, "\(mode) \(wire)")
                        let terminals = try expectWellFormedStream(events, terminal: "final", wire: wire)
                        let names = events.map(\.event)
                        let call = try #require(names.firstIndex(of: "tool_call"), "\(mode) \(wire): no tool_call")
                        let result = try #require(names.firstIndex(of: "tool_result"), "\(mode) \(wire): no tool_result")
                        #expect(call < result && result < names.firstIndex(of: "final")!)
                        #expect(names.contains("token"))
                        let context = events[0].object
                        #expect(context["mode"] as? String == mode)
                        #expect((context["prefs"] as? [String: Any])?["allergies"] as? [String] == ["peanuts", "shellfish"])
                        #expect(reply.header("X-Run-Id") == events[0].runId)

                        let final = terminals[0].object
                        let planText = try #require(final["plan_text"] as? String)
                        #expect(!planText.isEmpty)
                        // The synthesis tokens are the plan text, streamed.
                        let streamed = events.filter { $0.event == "token" }.compactMap { $0.data as? String }.joined()
                        #expect(streamed.hasSuffix(planText), "\(mode): tokens do not spell the plan text")
                        switch mode {
                        case "meals":
                            let days = try #require(final["days"] as? [[String: Any]])
                            #expect(days.count == 7)
                            #expect(days.first?["date"] as? String == "2026-03-02")
                            for day in days {
                                let allergens = (day["recipe"] as? [String: Any])?["allergens"] as? [String] ?? ["?"]
                                #expect(!allergens.contains { $0.contains("peanut") || $0.contains("shellfish") || $0.contains("crustacean") },
                                        "\(day)")
                            }
                            #expect((final["grocery"] as? [String: Any])?["aisles"] != nil)
                        case "chores":
                            let occurrences = try #require(final["occurrences"] as? [[String: Any]])
                            #expect(!occurrences.isEmpty)
                            #expect(occurrences.allSatisfy { $0["chore"] is String && $0["assignee"] is String && $0["at"] is String })
                            // Each occurrence is on the `chores` topic for the notifier and calendar-sync.
                            let runId = events[0].runId
                            var scheduled: [[String: Any]] = []
                            let deadline = ContinuousClock.now + .seconds(20)
                            while ContinuousClock.now < deadline {
                                let tail = try await CommandLineTool.run(["tail", "chores", "--type", "chore.scheduled", "--raw"])
                                scheduled = tail.output.split(separator: "\n").compactMap { line in
                                    (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["data"] as? [String: Any]
                                }.filter { ($0["run_id"] as? String)?.lowercased() == runId.lowercased() }
                                if scheduled.count >= occurrences.count { break }
                                try await Task.sleep(for: .milliseconds(300))
                            }
                            #expect(scheduled.count == occurrences.count, "\(wire): \(scheduled.count) chore.scheduled for \(occurrences.count)")
                            let published = Set(scheduled.compactMap { data in
                                (data["chore"] as? String).flatMap { chore in (data["at"] as? String).map { "\(chore)@\($0)" } }
                            })
                            let planned = Set(occurrences.compactMap { occurrence in
                                (occurrence["chore"] as? String).flatMap { chore in (occurrence["at"] as? String).map { "\(chore)@\($0)" } }
                            })
                            #expect(published == planned)
                        default:
                            let routines = try #require(final["routines"] as? [[String: Any]])
                            #expect(routines.count == 4, "two children, morning and bedtime each")
                            #expect(routines.allSatisfy { $0["name"] is String && $0["child"] is String && $0["age"] is Int && $0["steps"] is [Any] })
                            // Each routine is in the household calendar as a daily entry: two days, two of each.
                            var url = URLComponents(url: gateway.baseURL.appendingPathComponent("v1/calendar/events"), resolvingAgainstBaseURL: false)!
                            url.queryItems = [.init(name: "from", value: "2026-03-02T00:00:00Z"), .init(name: "to", value: "2026-03-04T00:00:00Z")]
                            var listed: [[String: Any]] = []
                            let deadline = ContinuousClock.now + .seconds(20)
                            while ContinuousClock.now < deadline {
                                let reply = try await HTTPTestClient.send("GET", url.url!, headers: user.headers)
                                listed = ((reply.json["events"] as? [[String: Any]]) ?? []).filter { $0["source"] as? String == "routine" }
                                if listed.count >= routines.count * 2 { break }
                                try await Task.sleep(for: .milliseconds(300))
                            }
                            #expect(listed.count == routines.count * 2, "\(wire): \(listed.count) routine occurrences")
                            #expect(listed.allSatisfy { $0["rrule"] as? String == "FREQ=DAILY" && $0["kind"] as? String == "routine" })
                            let titles = Set(listed.compactMap { $0["title"] as? String })
                            #expect(titles == Set(routines.compactMap { routine in
                                (routine["name"] as? String).flatMap { name in (routine["child"] as? String).map { "\(name) (\($0))" } }
                            }))
                        }
                    }
                }
            }
        }

        @Test func aRunCanBeReplayedAndResumedWithLastEventId() async throws {
            try await AssistStack.with { gateway, _ in
                let user = try await Self.family(gateway)
                let (events, _) = try await AssistStack.run(gateway, user: user, ["goal": "Easy dinners", "mode": "meals"], wire: .sse)
                _ = try expectWellFormedStream(events, terminal: "final", wire: .sse)
                let runId = events[0].runId

                let run = try await AssistStack.finishedRun(gateway, user: user, runId: runId)
                #expect(run["state"] as? String == "succeeded")
                #expect(run["mode"] as? String == "meals")
                #expect(run["terminal_event"] as? String == "final")
                #expect((run["final"] as? [String: Any])?["plan_text"] as? String == events[events.count - 2].object["plan_text"] as? String)
                #expect(run["events"] as? Int == events.count)

                let eventsURL = gateway.baseURL.appendingPathComponent("v1/assist/runs/\(runId)/events")
                for wire in AssistWire.allCases {
                    // From the start: the very same objects, byte for byte.
                    let all = try await HTTPTestClient.send("GET", eventsURL, headers: user.headers(["Accept": wire.rawValue]))
                    #expect(all.status == 200)
                    let replayed = try wire.parse(all.body).events
                    #expect(replayed.map(\.text) == events.map(\.text), "\(wire)")

                    // Resumed: only what comes after the given seq.
                    let resumed = try await HTTPTestClient.send(
                        "GET", eventsURL, headers: user.headers(["Accept": wire.rawValue, "Last-Event-ID": "3"]))
                    #expect(resumed.status == 200)
                    let rest = try wire.parse(resumed.body).events
                    #expect(rest.map(\.seq) == Array(4...events.count))
                    #expect(rest.map(\.text) == events.dropFirst(3).map(\.text))

                    // Everything already seen: the stream ends at once rather than waiting for a
                    // `done` that has been sent (the first heartbeat would come after 15 s).
                    let caughtUp = try await HTTPTestClient.send(
                        "GET", eventsURL, headers: user.headers(["Accept": wire.rawValue, "Last-Event-ID": "\(events.count)"]), idleTimeout: 8)
                    #expect(caughtUp.status == 200)
                    #expect(try wire.parse(caughtUp.body).events.isEmpty, "\(wire)")
                }
                for bad in ["9223372036854775807", "2147483648", "-1", "three"] {
                    let reply = try await HTTPTestClient.send("GET", eventsURL, headers: user.headers(["Last-Event-ID": bad]))
                    #expect(reply.status == 400 && reply.errorField == "Last-Event-ID", "\(bad)")
                }
                let badId = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/assist/runs/not-a-run/events"), headers: user.headers)
                #expect(badId.status == 400 && badId.errorField == "run_id")

                // Another user cannot see the run.
                let stranger = try await GatewayUser.signIn(gateway)
                let hidden = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/assist/runs/\(runId)"), headers: stranger.headers)
                #expect(hidden.status == 404)
                let hiddenEvents = try await HTTPTestClient.send("GET", eventsURL, headers: stranger.headers)
                #expect(hiddenEvents.status == 404)
            }
        }

        @Test func aPolicyRuleEndsTheRunWithARefusal() async throws {
            try await AssistStack.with { gateway, _ in
                let user = try await Self.family(gateway)
                let (events, _) = try await AssistStack.run(
                    gateway, user: user, ["goal": "Please diagnose my son's rash and plan dinners around it", "mode": "meals"], wire: .ndjson)
                let terminals = try expectWellFormedStream(events, terminal: "refusal", wire: .ndjson)
                let text = try #require(terminals[0].object["text"] as? String)
                #expect(text.contains("medical advice"))
                #expect(terminals[0].object["reason"] as? String == "medical")
                #expect(!events.contains { $0.event == "tool_call" }, "no tool runs after a refusal")
                let run = try await AssistStack.finishedRun(gateway, user: user, runId: events[0].runId)
                #expect(run["state"] as? String == "refused")
                #expect(run["terminal_event"] as? String == "refusal")
            }
        }

        @Test func invalidRequestsAnswer400NamingTheField() async throws {
            try await AssistStack.with { gateway, _ in
                let user = try await GatewayUser.signIn(gateway)
                let url = gateway.baseURL.appendingPathComponent("v1/assist/stream")
                let cases: [([String: Any], String)] = [
                    (["mode": "meals"], "goal"),
                    (["goal": "  ", "mode": "meals"], "goal"),
                    (["goal": "x", "mode": "naps"], "mode"),
                    (["goal": "x"], "mode"),
                    (["goal": "x", "mode": "meals", "days": 15], "days"),
                    (["goal": "x", "mode": "meals", "days": 0], "days"),
                    (["goal": "x", "mode": "meals", "days": "seven"], "days"),
                    (["goal": "x", "mode": "meals", "start_date": "03/02/2026"], "start_date"),
                    (["goal": "x", "mode": "meals", "household_id": "nope"], "household_id"),
                ]
                for (body, field) in cases {
                    let reply = try await HTTPTestClient.postJSON(url, body, headers: user.headers)
                    #expect(reply.status == 400, "\(body)")
                    #expect(reply.errorField == field, "\(body): \(String(decoding: reply.body, as: UTF8.self))")
                }
                let asked = Date().addingTimeInterval(-1)
                let someoneElses = try await HTTPTestClient.postJSON(
                    url, ["goal": "x", "mode": "meals", "household_id": UUID().uuidString], headers: user.headers)
                #expect(someoneElses.status == 404)
                // The run's key, made while the household was read, went with the run that never was.
                let discarded = try await TestEnvironment.withPostgres { client in
                    try await client.query(
                        "SELECT count(*)::int FROM data_keys WHERE subject LIKE 'run:%' AND destroyed_because = 'run.not_started' AND wrapped IS NULL AND created_at >= \(asked)",
                        logger: TestEnvironment.logger
                    ).collect().first?.decode(Int.self) ?? 0
                }
                #expect(discarded >= 1, "the key of the refused run is still live")
                let anonymous = try await HTTPTestClient.postJSON(url, ["goal": "x", "mode": "meals"])
                #expect(anonymous.status == 401)
            }
        }
    }
}
