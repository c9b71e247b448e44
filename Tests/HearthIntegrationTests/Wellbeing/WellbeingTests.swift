import Foundation
@testable import HearthCtlCommands
import HearthDomain
import HearthRuntime
import HTTPTypes
import HummingbirdWSClient
import Logging
import PostgresNIO
import Synchronization
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A user's own wellbeing space, over HTTP through Kafka.
struct WellbeingUser: Sendable {
    let baseURL: URL
    let user: GatewayUser

    static func make(_ gateway: ServiceProcess) async throws -> WellbeingUser {
        WellbeingUser(baseURL: gateway.baseURL, user: try await GatewayUser.signIn(gateway))
    }

    func url(_ path: String, _ query: [String: String] = [:]) -> URL {
        var components = URLComponents(url: baseURL.appendingPathComponent("v1/wellbeing/\(path)"), resolvingAgainstBaseURL: false)!
        if !query.isEmpty { components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) } }
        return components.url!
    }

    func send(_ method: String, _ path: String, _ body: Any? = nil, query: [String: String] = [:], as other: GatewayUser? = nil) async throws -> HTTPTestClient.Reply {
        let data = try body.map { try JSONSerialization.data(withJSONObject: $0) }
        return try await HTTPTestClient.send(
            method, url(path, query), body: data, headers: (other ?? user).headers(data == nil ? [:] : ["Content-Type": "application/json"]))
    }

    func checkIn(_ body: [String: Any]) async throws -> HTTPTestClient.Reply {
        try await send("POST", "checkins", body)
    }
}

extension BackboneSuite {
    @Suite struct Wellbeing {
        /// Check-ins: the slider boundaries, notes empty and huge, times, listing with a cursor,
        /// edit and delete; a strong urge is offered a quiz; words of danger get the crisis
        /// resources and nothing else; nobody else reads any of it.
        @Test func checkInsTakeTheirBoundariesAndStayTheUsersOwn() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let me = try await WellbeingUser.make(gateway)
                let other = try await GatewayUser.signIn(gateway)

                // Sliders at their ends are accepted; outside them, and wrong types, refused naming the field.
                for (mood, urge) in [(1, 0), (10, 10)] {
                    let reply = try await me.checkIn(["mood": mood, "urge_level": urge])
                    #expect(reply.status == 201, "\(reply.text)")
                    #expect((reply.json["checkin"] as? [String: Any])?["mood"] as? Int == mood)
                }
                for (body, field) in [
                    (["mood": 0, "urge_level": 3], "mood"), (["mood": 11, "urge_level": 3], "mood"), (["mood": 5, "urge_level": -1], "urge_level"),
                    (["mood": 5, "urge_level": 11], "urge_level"), (["mood": 5.5, "urge_level": 3], "mood"), (["urge_level": 3], "mood"),
                    (["mood": 5], "urge_level"), (["mood": 5, "urge_level": 3, "note": String(repeating: "a", count: 4_001)], "note"),
                    (["mood": 5, "urge_level": 3, "timestamp": "yesterday"], "timestamp"),
                    (["mood": 5, "urge_level": 3, "timestamp": TrackingTime.iso(Date().addingTimeInterval(86_400))], "timestamp"),
                    (["mood": "5", "urge_level": 3], "mood"),
                ] as [([String: Any], String)] {
                    let reply = try await me.checkIn(body)
                    #expect(reply.status == 400 && reply.errorField == field, "\(body): \(reply.text)")
                }
                // An empty note is no note; a note of the largest size is kept whole.
                let empty = try await me.checkIn(["mood": 6, "urge_level": 2, "note": "   ", "trigger_context": "bored after work"])
                let emptyCheckIn = try #require(empty.json["checkin"] as? [String: Any])
                #expect(emptyCheckIn["note"] is NSNull)
                #expect(emptyCheckIn["triggers"] as? [String] == ["stress", "boredom"])
                let long = String(String(repeating: "I waited it out. ", count: 240).prefix(3_999)) + "!"
                let huge = try await me.checkIn(["mood": 6, "urge_level": 2, "note": long])
                #expect(huge.status == 201 && ((huge.json["checkin"] as? [String: Any])?["note"] as? String)?.count == 4_000)

                // A strong urge is offered a quiz; a mild one is not.
                let strong = try await me.checkIn(["mood": 3, "urge_level": 7, "trigger_context": "late night scrolling", "exercise_completed": true])
                #expect(strong.json["quiz_offer"] as? [String: Any] != nil, "\(strong.text)")
                #expect(!(strong.json["tips"] as? [[String: Any]] ?? []).isEmpty)
                #expect(try await me.checkIn(["mood": 7, "urge_level": 6]).json["quiz_offer"] is NSNull)

                // Danger: the crisis resources, no quiz, no tip, no badge. Hard-day words are not danger.
                for note in ["I want to hurt myself tonight", "honestly I don't want to wake up tomorrow", "I feel suicidal"] {
                    let reply = try await me.checkIn(["mood": 1, "urge_level": 9, "note": note])
                    #expect(reply.status == 201)
                    #expect((reply.json["crisis"] as? [String: Any])?["message"] as? String != nil, "\(note): \(reply.text)")
                    #expect(reply.json["quiz_offer"] is NSNull && reply.json["tips"] == nil && reply.json["badges_earned"] == nil)
                }
                for note in ["this deadline is killing me", "I hurt myself at football", "I could kill for a coffee", "I want to end this habit"] {
                    let reply = try await me.checkIn(["mood": 4, "urge_level": 8, "note": note])
                    #expect(reply.json["crisis"] == nil, "\(note) is not a crisis")
                    #expect(reply.json["quiz_offer"] as? [String: Any] != nil)
                }

                // Listing: newest first, a cursor that pages without repeats, a range.
                var seen: [String] = []
                var cursor: String?
                repeat {
                    let page = try await me.send("GET", "checkins", query: ["limit": "4"].merging(cursor.map { ["cursor": $0] } ?? [:]) { a, _ in a })
                    #expect(page.status == 200, "\(page.text)")
                    seen += (page.json["checkins"] as? [[String: Any]] ?? []).compactMap { $0["checkin_id"] as? String }
                    cursor = page.json["next_cursor"] as? String
                } while cursor != nil
                #expect(seen.count == 13 && Set(seen).count == 13, "\(seen.count)")
                let today = String(TrackingTime.iso(Date()).prefix(10))
                #expect((try await me.send("GET", "checkins", query: ["from": today, "to": today]).json["checkins"] as? [Any])?.count == 13)
                #expect(try await me.send("GET", "checkins", query: ["cursor": UUID().uuidString]).errorField == "cursor")
                #expect(try await me.send("GET", "checkins", query: ["from": "2026-13-01"]).errorField == "from")

                // Edit and delete; another user finds nothing.
                let id = try #require(seen.first)
                let edited = try await me.send("PATCH", "checkins/\(id)", ["mood": 8])
                #expect((edited.json["checkin"] as? [String: Any])?["mood"] as? Int == 8, "\(edited.text)")
                #expect(try await me.send("PATCH", "checkins/\(id)", ["urge_level": 12]).errorField == "urge_level")
                for method in ["GET", "PATCH", "DELETE"] {
                    #expect(try await me.send(method, "checkins/\(id)", method == "PATCH" ? ["mood": 2] : nil, as: other).status == 404)
                }
                #expect((try await me.send("GET", "checkins", as: other).json["checkins"] as? [Any])?.isEmpty == true)
                #expect(try await me.send("DELETE", "checkins/\(id)").status == 204)
                #expect(try await me.send("GET", "checkins/\(id)").status == 404)
            }
            let replay = try await CommandLineTool.run(["replay", "wellbeing"])
            #expect(replay.status == 0 && replay.output.contains("identical"), "\(replay.output)\n\(replay.errors)")
        }

        /// Settings with a window across midnight, quizzes answered and continued, the tips feed's
        /// cursor while tips arrive, the dashboard and its chart, and the weekly reflection.
        @Test func settingsQuizzesTipsDashboardAndReflection() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let me = try await WellbeingUser.make(gateway)
                let other = try await GatewayUser.signIn(gateway)

                // Settings: the defaults, a window across midnight, bad values named.
                let defaults = try await me.send("GET", "settings")
                #expect((defaults.json["delivery_window"] as? [String: Any])?["start"] as? String == "08:00")
                #expect(defaults.json["badge_only"] as? Bool == true && defaults.json["no_autoplay"] as? Bool == true)
                let set = try await me.send("PUT", "settings", [
                    "delivery_window": ["start": "22:00", "end": "07:00", "time_zone": "Europe/Paris"], "interests": ["sherlock_holmes", "guitar_basics"],
                    "reminder_cadence": "weekdays",
                ])
                #expect(set.status == 200, "\(set.text)")
                #expect((set.json["delivery_window"] as? [String: Any])?["end"] as? String == "07:00")
                for (body, field) in [
                    (["delivery_window": ["time_zone": "Mars/Olympus"]], "delivery_window.time_zone"), (["delivery_window": ["start": "25:00"]], "delivery_window.start"),
                    (["delivery_window": ["start": "07:00", "end": "07:00"]], "delivery_window.end"), (["interests": ["knitting"]], "interests"),
                    (["reminder_cadence": "hourly"], "reminder_cadence"),
                ] as [([String: Any], String)] {
                    #expect(try await me.send("PUT", "settings", body).errorField == field, "\(body)")
                }
                #expect((try await me.send("GET", "settings").json["interests"] as? [String]) == ["sherlock_holmes", "guitar_basics"])
                let feed = try await me.send("GET", "tips")
                #expect((feed.json["tips"] as? [[String: Any]] ?? []).count == 2, "new interests bring two tips: \(feed.text)")

                // A quiz in an interest: questions without their answers; answered, scored, continued.
                let bank = try QuizBank.bundled()
                let started = try await me.send("POST", "quizzes", ["domain": "sherlock_holmes"])
                #expect(started.status == 201, "\(started.text)")
                let quizId = try #require(started.json["quiz_id"] as? String)
                let questions = try #require(started.json["questions"] as? [[String: Any]])
                #expect(questions.count == 3 && questions.allSatisfy { $0["answer"] == nil })
                let ids = questions.compactMap { $0["id"] as? String }
                let asked = try ids.map { try #require(bank.question(id: $0)) }
                #expect(asked.allSatisfy { $0.domain == .sherlockHolmes })
                #expect(try await me.send("POST", "quizzes/\(quizId)/submit", ["answers": [ids[0]: 7]]).errorField == "answers.\(ids[0])")
                #expect(try await me.send("POST", "quizzes/\(quizId)/submit", ["answers": ["no-such-question": 0]]).errorField == "answers.no-such-question")
                let answers = [ids[0]: asked[0].answer, ids[1]: (asked[1].answer + 1) % asked[1].choices.count]
                let result = try await me.send("POST", "quizzes/\(quizId)/submit", ["answers": answers])
                #expect(result.status == 200, "\(result.text)")
                #expect(result.json["score"] as? Int == 1 && result.json["total"] as? Int == 2)
                let feedback = result.json["feedback"] as? [[String: Any]] ?? []
                #expect(feedback.count == 2 && feedback.contains { $0["correct"] as? Bool == false })
                #expect(Set((result.json["tips_earned"] as? [[String: Any]] ?? []).compactMap { $0["tip_id"] as? String }) == Set([asked[0].tipID, asked[1].tipID]))
                #expect(try await me.send("POST", "quizzes/\(quizId)/submit", ["answers": [ids[0]: 0]]).status == 409)
                let more = try await me.send("POST", "quizzes/\(quizId)/next")
                let allIds = (more.json["questions"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                #expect(allIds.count == 6 && Set(allIds).count == 6 && Array(allIds.prefix(3)) == ids, "\(more.text)")
                #expect((try await me.send("GET", "quizzes/\(quizId)/tips").json["tips"] as? [Any])?.count == Set([asked[0].tipID, asked[1].tipID]).count)
                #expect(try await me.send("GET", "quizzes/\(quizId)", as: other).status == 404)
                #expect(try await me.send("POST", "quizzes/\(quizId)/submit", ["answers": [ids[2]: 0]], as: other).status == 404)
                #expect(try await me.send("POST", "quizzes", ["domain": "knitting"]).errorField == "domain")
                // Without a domain, the interest not yet quizzed.
                #expect(try await me.send("POST", "quizzes", [:]).json["domain"] as? String == "guitar_basics")

                // The tips feed: a cursor that holds while a new tip arrives on top.
                _ = try await me.checkIn(["mood": 6, "urge_level": 5, "trigger_context": "tired and lonely"])
                let first = try await me.send("GET", "tips", query: ["limit": "2"])
                let firstPage = (first.json["tips"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                let after = try #require(first.json["next_after_id"] as? String, "\(first.text)")
                _ = try await me.checkIn(["mood": 4, "urge_level": 5, "trigger_context": "argument with my brother"])
                var rest: [String] = []
                var next: String? = after
                while let cursor = next {
                    let page = try await me.send("GET", "tips", query: ["limit": "2", "after_id": cursor])
                    rest += (page.json["tips"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                    next = page.json["next_after_id"] as? String
                }
                let whole = (try await me.send("GET", "tips", query: ["limit": "50"]).json["tips"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                #expect(firstPage + rest == Array(whole.dropFirst()), "the new tip is on top; the old pages neither repeat nor skip")
                #expect(try await me.send("GET", "tips", query: ["after_id": UUID().uuidString]).errorField == "after_id")
                #expect(try await me.send("GET", "tips", query: ["limit": "0"]).errorField == "limit")
                #expect((try await me.send("GET", "tips", as: other).json["tips"] as? [Any])?.isEmpty == true)

                // The dashboard: today's streak, the trend, the quiz, the first badges; its chart.
                let dashboard = try await me.send("GET", "dashboard", query: ["range": "30d"])
                #expect(dashboard.status == 200, "\(dashboard.text)")
                #expect(dashboard.json["streak"] as? Int == 1)
                let trend = dashboard.json["craving_trend"] as? [[String: Any]] ?? []
                #expect(trend.count == 30 && trend.last?["check_ins"] as? Int == 2 && trend.last?["average_urge"] as? Double == 5, "\(trend.last ?? [:])")
                #expect((dashboard.json["quiz_history"] as? [[String: Any]])?.first?["score"] as? Int == 1)
                #expect((dashboard.json["badges"] as? [[String: Any]] ?? []).contains { $0["badge_id"] as? String == "first-checkin" })
                #expect(try await me.send("GET", "dashboard", query: ["range": "1y"]).errorField == "range")
                let chart = try await HTTPTestClient.send("GET", me.url("dashboard/craving.svg", ["range": "7d"]), headers: me.user.headers)
                #expect(chart.status == 200 && chart.header("Content-Type")?.hasPrefix("image/svg+xml") == true)
                #expect(XMLParser(data: chart.body).parse(), "the chart is well-formed XML")
                #expect((try await me.send("GET", "dashboard", as: other).json["badges"] as? [Any])?.isEmpty == true)

                // The weekly reflection of this week: figures, and a recap whose every number is one of them.
                let week = WeeklyFigures.week(containing: Date(), timeZone: TimeZone(identifier: "Europe/Paris")!)
                let reflection = try await me.send("GET", "reflections/weekly", query: ["week": week])
                #expect(reflection.status == 200, "\(reflection.text)")
                let figures = try JSONDecoder().decode(WeeklyFigures.self, from: try JSONSerialization.data(withJSONObject: try #require(reflection.json["figures"])))
                #expect(figures.checkIns == 2 && figures.quizzes == 1, "\(figures)")
                let recap = try #require(reflection.json["recap"] as? String)
                #expect(ReflectionTemplate.numbersAreGrounded(recap, in: figures), "\(recap)")
                #expect(try await me.send("GET", "reflections/weekly", query: ["week": "next tuesday"]).errorField == "week")
                let summary = try await HTTPTestClient.send("GET", me.url("reflections/weekly.svg", ["week": week]), headers: me.user.headers)
                #expect(summary.status == 200 && XMLParser(data: summary.body).parse())
            }
        }

        /// Guided audio that plays (sox reads its length), spoken once per script; a practice
        /// scenario walked to its end, with what the choices show.
        @Test func guidedAudioPlaysAndAScenarioIsPractisedToItsEnd() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let me = try await WellbeingUser.make(gateway)
                let other = try await GatewayUser.signIn(gateway)

                let created = try await me.send("POST", "exercises/audio", query: ["theme": "box-breathing"])
                #expect(created.status == 201, "\(created.text)")
                let id = try #require(created.json["exercise_id"] as? String)
                let duration = try #require(created.json["duration_sec"] as? Double)
                #expect((120...180).contains(duration), "a 2–3 minute exercise: \(duration)")
                #expect(created.json["autoplay"] as? Bool == false)
                let audio = try await HTTPTestClient.send("GET", me.url("exercises/\(id)/audio"), headers: me.user.headers)
                #expect(audio.status == 200 && audio.header("Content-Type") == "audio/wav")
                let measured = try await ToolRunner().run("soxi", ["-D", "{in}"], input: audio.body, inputExtension: "wav")
                let seconds = try #require(Double(String(decoding: measured.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
                #expect(abs(seconds - duration) <= duration * 0.1, "sox reads \(seconds) s, the exercise says \(duration) s")
                // The same script again: one recording.
                let again = try await me.send("POST", "exercises/audio", query: ["theme": "box-breathing"])
                #expect(again.status == 201 && again.json["duration_sec"] as? Double == duration)
                let againId = try #require(again.json["exercise_id"] as? String).lowercased()
                let recordings = try await TestEnvironment.withPostgres { client in
                    var count = 0
                    let rows = try await client.query(
                        """
                        SELECT count(DISTINCT a.script_hash)::int FROM wellbeing_exercises e JOIN wellbeing_audio a ON a.script_hash = e.script_hash
                        WHERE e.exercise_id IN (\(UUID(uuidString: id)!), \(UUID(uuidString: againId)!))
                        """, logger: .init(label: "test"))
                    for try await n in rows.decode(Int.self) { count = n }
                    return count
                }
                #expect(recordings == 1, "both exercises share one recording")
                #expect(try await me.send("POST", "exercises/audio", query: ["theme": "juggling"]).errorField == "theme")
                #expect(try await HTTPTestClient.send("GET", me.url("exercises/\(id)/audio"), headers: other.headers).status == 404)
                let completed = try await me.send("POST", "exercises/\(id)/complete")
                #expect(completed.json["completed_at"] as? String != nil, "\(completed.text)")

                // A scenario walked to its end by its first choices.
                #expect(try await me.send("POST", "simulations/start", ["theme": "no-such-theme"]).errorField == "theme")
                let start = try await me.send("POST", "simulations/start", ["theme": "work-stress"])
                #expect(start.status == 201, "\(start.text)")
                let simulationId = try #require(start.json["simulation_id"] as? String)
                var step = try #require(start.json["step"] as? [String: Any])
                #expect(try await me.send("POST", "simulations/\(simulationId)/choose", ["choice": "zz"]).errorField == "choice")
                var steps = 0
                var last: HTTPTestClient.Reply?
                while let choices = step["choices"] as? [[String: Any]], let choice = choices.first?["id"] as? String {
                    #expect((2...4).contains(choices.count))
                    let reply = try await me.send("POST", "simulations/\(simulationId)/choose", ["choice": choice])
                    #expect(reply.status == 200, "\(reply.text)")
                    step = reply.json["step"] as? [String: Any] ?? [:]
                    last = reply
                    steps += 1
                }
                #expect((3...6).contains(steps))
                let reflection = try #require(last?.json["reflection"] as? [String: Any])
                #expect((reflection["insights"] as? [String])?.count == steps)
                #expect(try await me.send("POST", "simulations/\(simulationId)/choose", ["choice": "a"]).status == 409)
                #expect(try await me.send("GET", "simulations/\(simulationId)", as: other).status == 404)
                let dashboard = try await me.send("GET", "dashboard")
                #expect(dashboard.json["exercises_done"] as? Int == 2, "\(dashboard.text)")
            }
            let replay = try await CommandLineTool.run(["replay", "wellbeing"])
            #expect(replay.status == 0 && replay.output.contains("identical"), "\(replay.output)\n\(replay.errors)")
        }
    }
}

extension BackboneSuite.Wellbeing {
    /// The live connection: a tip published for its user arrives, another user's never does, and
    /// a connection without a valid token is refused before any upgrade.
    @Test func theLiveConnectionCarriesTheUsersOwnTipsAndNothingElse() async throws {
        try await ServiceProcess.with("gateway") { gateway in
            let me = try await WellbeingUser.make(gateway)
            let stranger = try await WellbeingUser.make(gateway)
            let url = "ws://127.0.0.1:\(gateway.baseURL.port ?? 0)/v1/wellbeing/live"
            let texts = LiveMessages()
            let headers: HTTPFields = [.authorization: "Bearer \(me.user.token)"]
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await WebSocketClient.connect(url: url, configuration: .init(additionalHeaders: headers), logger: Logger(label: "live-test")) { inbound, outbound, _ in
                        let trigger = Task {
                            try await Task.sleep(for: .milliseconds(300))
                            _ = try await stranger.checkIn(["mood": 5, "urge_level": 4, "trigger_context": "stress at work"])
                            _ = try await me.checkIn(["mood": 5, "urge_level": 4, "trigger_context": "bored"])
                        }
                        defer { trigger.cancel() }
                        for try await message in inbound.messages(maxSize: 1 << 20) {
                            guard case .text(let text) = message else { continue }
                            texts.append(text)
                            // The first check-in of a feed brings three tips and the first badge.
                            let all = texts.all
                            if all.filter({ $0.contains(#""type":"tip""#) }).count >= 3, all.contains(where: { $0.contains(#""type":"badge""#) }) { break }
                        }
                        try await Task.sleep(for: .milliseconds(500))
                        try await outbound.close(.normalClosure, reason: nil)
                    }
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(30))
                    throw CancellationError()
                }
                try await group.next()
                group.cancelAll()
            }
            let mine = Set(((try await me.send("GET", "tips")).json["tips"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
            let theirs = Set(((try await stranger.send("GET", "tips")).json["tips"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
            let received = texts.all.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            let tips = received.filter { $0["type"] as? String == "tip" }.compactMap { $0["id"] as? String }
            #expect(tips.count >= 3 && Set(tips).isSubset(of: mine), "\(tips) of \(mine)")
            #expect(Set(tips).isDisjoint(with: theirs))
            #expect(received.contains { $0["type"] as? String == "badge" && $0["badge_id"] as? String == "first-checkin" })

            // No token, or a bad one: refused.
            for bad in [HTTPFields(), [.authorization: "Bearer not-a-token"]] as [HTTPFields] {
                await #expect(throws: (any Error).self) {
                    try await WebSocketClient.connect(url: url, configuration: .init(additionalHeaders: bad), logger: Logger(label: "live-test")) { _, outbound, _ in
                        try await outbound.close(.normalClosure, reason: nil)
                    }
                }
            }
        }
    }
}

/// What a live connection received, shared between its handler and the test.
final class LiveMessages: Sendable {
    private let texts = Mutex<[String]>([])

    func append(_ text: String) { texts.withLock { $0.append(text) } }

    var all: [String] { texts.withLock { $0 } }
}

extension BackboneSuite.Wellbeing {
    /// The weekly reflection: written by the scheduled run for last week's activity, delivered by
    /// the notifier as a silent push with a badge, and held until the user's delivery window opens
    /// (the window is set to open at the next whole minute, so the wait is real but short).
    @Test func theWeeklyReflectionIsASilentPushHeldUntilTheWindowOpens() async throws {
        try await NotifierStack.with(gateway: ["HEARTH_WELLBEING_SCHEDULE_SECONDS": "1"]) { stack, _ in
            let user = try await GatewayUser.signIn(stack.gateway)
            let token = try await stack.registerDevice(user)
            let me = WellbeingUser(baseURL: stack.gateway.baseURL, user: user)
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            var opening = calendar.nextDate(after: Date(), matching: DateComponents(second: 0), matchingPolicy: .nextTime)!
            if opening.timeIntervalSinceNow < 8 { opening = opening.addingTimeInterval(60) }
            func clock(_ date: Date) -> String {
                let parts = calendar.dateComponents([.hour, .minute], from: date)
                return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
            }
            let window = try await me.send("PUT", "settings", [
                "delivery_window": ["start": clock(opening), "end": clock(opening.addingTimeInterval(3600)), "time_zone": "UTC"], "badge_only": true,
                "reminder_cadence": "off",
            ])
            #expect(window.status == 200, "\(window.text)")
            // Activity in last week: the run writes its reflection.
            let checkIn = try await me.checkIn(["mood": 6, "urge_level": 4, "timestamp": TrackingTime.iso(Date().addingTimeInterval(-7 * 86_400))])
            #expect(checkIn.status == 201, "\(checkIn.text)")
            let written = try await KafkaTestEnvironment.eventually(timeout: .seconds(20)) {
                try await me.send("GET", "reflections/weekly").json["final"] as? Bool == true
            }
            #expect(written, "the scheduled run wrote last week's reflection")
            let reflection = try await me.send("GET", "reflections/weekly")
            #expect((reflection.json["figures"] as? [String: Any])?["check_ins"] as? Int == 1, "\(reflection.text)")

            // Nothing is pushed while the window is closed.
            while opening.timeIntervalSinceNow > 1.5 {
                #expect(stack.pushes(to: token).isEmpty, "a push before the window opened")
                try await Task.sleep(for: .milliseconds(500))
            }
            // Once it opens: one silent push with a badge.
            #expect(await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { !stack.pushes(to: token).isEmpty }, "APNs got the push")
            let pushes = stack.pushes(to: token)
            #expect(pushes.count == 1)
            let push = try #require(pushes.first)
            #expect(push.header("apns-push-type") == "alert" && push.header("apns-priority") == "5")
            let aps = (try JSONSerialization.jsonObject(with: push.body) as? [String: Any])?["aps"] as? [String: Any] ?? [:]
            #expect((aps["badge"] as? Int ?? 0) >= 1, "\(aps)")
            #expect(Set(aps.keys) == ["badge"], "badge-only: \(aps)")
        }
    }
}

extension BackboneSuite.Wellbeing {
    /// `HEARTH_WELLBEING_WRITER=model` against a local fake of OpenAI's API: a quiz whose first
    /// reply is not the JSON asked for is asked again and written by the model; two bad replies in
    /// a row leave the round to the bank; the weekly recap is the model's when its numbers are the
    /// week's figures.
    @Test func aModelWritesQuizzesAndRecapsWithTheBankAndTemplateBehindIt() async throws {
        let question = #"{"prompt":"Who is Sherlock Holmes's friend and chronicler?","choices":["John Watson","Mycroft Holmes","Irene Adler","Mrs Hudson"],"#
            + #""answer":0,"lesson":"A friend who listens is worth calling before an urge wins.","tip_id":"no-such-tip"}"#
        let quiz = #"{"questions":["# + [question, question.replacingOccurrences(of: "friend and chronicler", with: "companion")].joined(separator: ",") + "]}"
        let recap = "You checked in 1 time last week. Keep noticing what sets the urge off."
        func step(_ text: String, _ a: (String, String, String), _ b: (String, String, String)) -> String {
            #"{"text":"\#(text)","choices":[{"id":"a","text":"\#(a.0)","next":"\#(a.1)","insight":"You \#(a.2).","kind":"pause"},"#
                + #"{"id":"b","text":"\#(b.0)","next":"\#(b.1)","insight":"You \#(b.2).","kind":"impulse"}]}"#
        }
        let scenario = #"Here it is: {"id":"desk-drawer","title":"The desk drawer","theme":"desk-drawer","triggers":["stress"],"start":"one","nodes":{"#
            + #""one":"# + step("A deadline lands at four.", ("Breathe first", "two", "paused"), ("Open the drawer", "two", "acted fast")) + ","
            + #""two":"# + step("The urge is still there.", ("Walk to the window", "three", "waited"), ("Scroll instead", "three", "swapped one urge for another")) + ","
            + #""three":"# + step("Ten minutes have passed.", ("Text a friend", "calm", "reached out"), ("Give in", "rough", "gave in")) + ","
            + #""calm":{"text":"The wave passed.","ending":true},"rough":{"text":"It happened; tomorrow is another try.","ending":true}}}"#
        let server = FakeModelServer(["/v1/chat/completions": [
            .stream(ModelWire.openAI(["Here is a fun quiz about Sherlock!"], prompt: 300, completion: 20)),
            .stream(ModelWire.openAI([quiz], prompt: 300, completion: 200)),
            .stream(ModelWire.openAI(["not json"], prompt: 300, completion: 5)),
            .stream(ModelWire.openAI(["{\"questions\": []}"], prompt: 300, completion: 5)),
            .stream(ModelWire.openAI([scenario], prompt: 300, completion: 400)),
            .stream(ModelWire.openAI([recap], prompt: 300, completion: 30)),
        ]])
        try await server.serve { base, _ in
            let environment = [
                "HEARTH_WELLBEING_WRITER": "model", "HEARTH_MODEL_CHAIN_SYNTHESIS": "openai:gpt-4o-mini", "HEARTH_OPENAI_API_KEY": "sk-test-wellbeing",
                "HEARTH_OPENAI_BASE_URL": base, "HEARTH_WELLBEING_SCHEDULE_SECONDS": "1",
            ]
            try await ServiceProcess.with("gateway", environment: environment) { gateway in
                let me = try await WellbeingUser.make(gateway)
                let started = try await me.send("POST", "quizzes", ["domain": "sherlock_holmes"])
                #expect(started.status == 201, "\(started.text)")
                let questions = started.json["questions"] as? [[String: Any]] ?? []
                #expect(questions.count == 2 && questions.allSatisfy { $0["written_by"] as? String == "openai:gpt-4o-mini" }, "\(started.text)")
                let quizId = try #require(started.json["quiz_id"] as? String)
                let answered = try await me.send("POST", "quizzes/\(quizId)/submit", ["answers": [try #require(questions.first?["id"] as? String): 0]])
                #expect(answered.json["score"] as? Int == 1, "\(answered.text)")
                #expect((answered.json["tips_earned"] as? [[String: Any]])?.count == 1, "an unknown tip is replaced by the domain's best")
                let more = try await me.send("POST", "quizzes/\(quizId)/next")
                let added = (more.json["questions"] as? [[String: Any]] ?? []).dropFirst(2)
                #expect(added.count == 3 && added.allSatisfy { $0["written_by"] as? String == "bank" }, "\(more.text)")

                // A scenario written by the model, walked to its end like an authored one; a theme asked by name stays authored.
                let practice = try await me.send("POST", "simulations/start", [:])
                #expect((practice.json["scenario"] as? [String: Any])?["written_by"] as? String == "openai:gpt-4o-mini", "\(practice.text)")
                let simulationId = try #require(practice.json["simulation_id"] as? String)
                for _ in 0..<3 { _ = try await me.send("POST", "simulations/\(simulationId)/choose", ["choice": "a"]) }
                let ended = try await me.send("GET", "simulations/\(simulationId)")
                #expect(ended.json["finished"] as? Bool == true && (ended.json["reflection"] as? [String: Any])?["insights"] as? [String] == ["You paused.", "You waited.", "You reached out."], "\(ended.text)")
                #expect((try await me.send("POST", "simulations/start", ["theme": "work-stress"]).json["scenario"] as? [String: Any])?["written_by"] as? String == "authored")

                _ = try await me.checkIn(["mood": 6, "urge_level": 4, "note": "a private note", "timestamp": TrackingTime.iso(Date().addingTimeInterval(-7 * 86_400))])
                #expect(try await KafkaTestEnvironment.eventually(timeout: .seconds(20)) {
                    try await me.send("GET", "reflections/weekly").json["final"] as? Bool == true
                })
                let reflection = try await me.send("GET", "reflections/weekly")
                #expect(reflection.json["recap"] as? String == recap && reflection.json["written_by"] as? String == "openai:gpt-4o-mini", "\(reflection.text)")
            }
        }
        let requests = await server.requests(to: "/v1/chat/completions")
        #expect(requests.count == 6)
        #expect(!requests.contains { "\($0.body)".contains("a private note") }, "a note never goes into a prompt")
    }
}

extension BackboneSuite.Wellbeing {
    /// The check-in nudge of a daily cadence: pushed in the open window (an alert here, the user
    /// turned badge-only off); a user who already checked in today is not nudged.
    @Test func aDailyCadenceNudgesThoseWhoHaveNotCheckedInToday() async throws {
        try await NotifierStack.with(gateway: ["HEARTH_WELLBEING_SCHEDULE_SECONDS": "1"]) { stack, _ in
            let nudged = WellbeingUser(baseURL: stack.gateway.baseURL, user: try await GatewayUser.signIn(stack.gateway))
            let done = WellbeingUser(baseURL: stack.gateway.baseURL, user: try await GatewayUser.signIn(stack.gateway))
            let nudgedToken = try await stack.registerDevice(nudged.user)
            let doneToken = try await stack.registerDevice(done.user)
            #expect(try await done.checkIn(["mood": 7, "urge_level": 2]).status == 201)
            let allDay: [String: Any] = [
                "delivery_window": ["start": "00:00", "end": "23:59", "time_zone": "UTC"], "badge_only": false, "reminder_cadence": "daily",
            ]
            for user in [done, nudged] { #expect(try await user.send("PUT", "settings", allDay).status == 200) }
            #expect(await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { !stack.pushes(to: nudgedToken).isEmpty }, "the nudge was pushed")
            let push = try #require(stack.pushes(to: nudgedToken).first)
            let alert = ((try JSONSerialization.jsonObject(with: push.body) as? [String: Any])?["aps"] as? [String: Any])?["alert"] as? [String: Any]
            #expect(alert?["title"] as? String == "A minute for a quick check-in?", "\(alert ?? [:])")
            try await Task.sleep(for: .seconds(3))
            #expect(stack.pushes(to: doneToken).isEmpty, "a user who checked in today is not nudged")
            #expect(stack.pushes(to: nudgedToken).count == 1, "one nudge a day")
        }
    }
}
