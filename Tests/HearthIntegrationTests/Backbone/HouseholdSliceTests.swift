import Foundation
import Testing

/// The first vertical slice over real HTTP, as a signed-in user: upsert → `household.upserted` on
/// Kafka → the `households` projection → read, with read-your-write through `X-Consistency-Token`.
extension BackboneSuite {
    @Suite struct HouseholdSlice {
        /// Given a signed-in user, when they create a household, then reading it with the answer's
        /// position shows it at once (the request id echoed, the allergies normalised).
        @Test func upsertThenReadYourOwnWrite() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let user = try await GatewayUser.signIn(gateway)

                let created = try await Self.upsert(gateway, user, [
                    "name": "The Okafors", "prefs": ["adults": 2, "kidsAges": [3, 7], "allergies": ["Peanut"], "cuisines": ["thai", "italian"]],
                ], headers: ["X-Request-Id": "slice-test-1"])
                #expect(created.status == 200)
                #expect(created.header("X-Request-Id") == "slice-test-1")
                let written = try created.decoded(HouseholdWritten.self)
                #expect(written.version == 1)
                #expect(written.position.hasPrefix("households:"))

                let read = try await Self.read(gateway, user, written.householdId, after: written.position)
                #expect(read == HouseholdRead(
                    name: "The Okafors", version: 1,
                    prefs: .init(adults: 2, kidsAges: [3, 7], allergies: ["peanut"], cuisines: ["thai", "italian"])))
            }
        }

        /// Given a household, when its owner merges new preferences (with a field the API does not
        /// know), then lists gain the new entries, counts are replaced, and the rest stays.
        @Test func aMergeAddsToListsAndKeepsTheRest() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let user = try await GatewayUser.signIn(gateway)
                let created = try await Self.upsert(gateway, user, [
                    "name": "The Okafors", "prefs": ["adults": 2, "kidsAges": [3, 7], "allergies": ["Peanut"], "cuisines": ["thai", "italian"]],
                ]).decoded(HouseholdWritten.self)

                let merged = try await Self.upsert(gateway, user, [
                    "household_id": created.householdId, "mode": "merge", "prefs": ["adults": 2, "kidsAges": [4, 8], "allergies": ["sesame"]],
                    "ignored_field": true,
                ])
                #expect(merged.status == 200)
                let written = try merged.decoded(HouseholdWritten.self)
                #expect(written.version == 2)

                let read = try await Self.read(gateway, user, created.householdId, after: written.position)
                #expect(read.version == 2)
                #expect(read.prefs.allergies == ["peanut", "sesame"])
                #expect(read.prefs.cuisines == ["thai", "italian"])
            }
        }

        static func upsert(
            _ gateway: ServiceProcess, _ user: GatewayUser, _ body: [String: Any], headers: [String: String] = [:]
        ) async throws -> HTTPTestClient.Reply {
            try await HTTPTestClient.postJSON(gateway.baseURL.appendingPathComponent("v1/households/upsert"), body, headers: user.headers(headers))
        }

        /// The household as its member reads it once the write at `position` is projected.
        static func read(_ gateway: ServiceProcess, _ user: GatewayUser, _ id: String, after position: String) async throws -> HouseholdRead {
            let reply = try await HTTPTestClient.send(
                "GET", gateway.baseURL.appendingPathComponent("v1/households/\(id)"), headers: user.headers(["X-Consistency-Token": position]))
            #expect(reply.status == 200)
            return try reply.decoded()
        }

        /// Household reads are answered from the gateway's cache until a projection of the
        /// households or users topic commits: then the next read shows the change, with or without
        /// a consistency token. If a projection did not announce its commits, the reads below
        /// would keep the cached answer and the polls would give up.
        @Test func cachedHouseholdReadsFollowEveryChange() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let (user, id) = try await GatewayUser.withHousehold(gateway, name: "Before")
                let householdURL = gateway.baseURL.appendingPathComponent("v1/households/\(id)")
                let hitsBefore = try await Self.householdCacheHits(gateway)
                let first = try await HTTPTestClient.send("GET", householdURL, headers: user.headers)
                let second = try await HTTPTestClient.send("GET", householdURL, headers: user.headers)
                #expect(first.status == 200 && second.status == 200)
                #expect(second.body == first.body)
                #expect(second.header("Content-Type") == "application/json; charset=utf-8")
                #expect(try await Self.householdCacheHits(gateway) > hitsBefore)

                // Another user is not served the member's cached answer.
                let stranger = try await GatewayUser.signIn(gateway)
                #expect(try await HTTPTestClient.send("GET", householdURL, headers: stranger.headers).status == 404)

                // households: a rename without a token shows once projected.
                let upsertURL = gateway.baseURL.appendingPathComponent("v1/households/upsert")
                let renamed = try await HTTPTestClient.postJSON(upsertURL, ["household_id": id, "name": "After", "prefs": ["adults": 2]], headers: user.headers)
                #expect(renamed.status == 200)
                let renameShown = try await KafkaTestEnvironment.eventually(timeout: .seconds(10)) {
                    try await HTTPTestClient.send("GET", householdURL, headers: user.headers).json["name"] as? String == "After"
                }
                #expect(renameShown)

                // household_members: a new member shows once projected.
                let added = try await HTTPTestClient.postJSON(
                    householdURL.appendingPathComponent("members"), ["name": "Ada", "role": "child", "birthdate": "2020-02-02"], headers: user.headers)
                #expect(added.status == 200 || added.status == 201)
                let memberShown = try await KafkaTestEnvironment.eventually(timeout: .seconds(10)) {
                    let members = try await HTTPTestClient.send("GET", householdURL, headers: user.headers).json["members"] as? [[String: Any]]
                    return members?.contains { $0["name"] as? String == "Ada" } == true
                }
                #expect(memberShown)

                // With a consistency token the read shows the write at once, cached answer or not.
                _ = try await HTTPTestClient.send("GET", householdURL, headers: user.headers)
                let again = try await HTTPTestClient.postJSON(upsertURL, ["household_id": id, "name": "Again", "prefs": ["adults": 3]], headers: user.headers)
                let position = try #require(again.json["position"] as? String)
                let read = try await HTTPTestClient.send("GET", householdURL, headers: user.headers(["X-Consistency-Token": position]))
                #expect(read.json["name"] as? String == "Again")
                #expect((read.json["prefs"] as? [String: Any])?["adults"] as? Int == 3)
            }
        }

        static func householdCacheHits(_ gateway: ServiceProcess) async throws -> Double {
            let (_, body) = try await HTTPTestClient.get(gateway.baseURL.appendingPathComponent("metrics"))
            return PrometheusText.sample(String(decoding: body, as: UTF8.self), #"hearth_household_read_cache_total{result="hit"}"#) ?? 0
        }

        @Test func metricsExposeTheBackboneFamilies() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let user = try await GatewayUser.signIn(gateway)
                let upsert = try await HTTPTestClient.postJSON(
                    gateway.baseURL.appendingPathComponent("v1/households/upsert"), ["prefs": ["adults": 1]], headers: user.headers)
                #expect(upsert.status == 200)
                // Give the projections a moment to consume and the lag reporter a cycle.
                try await Task.sleep(for: .seconds(3))
                let (status, body) = try await HTTPTestClient.get(gateway.baseURL.appendingPathComponent("metrics"))
                #expect(status == 200)
                let text = String(decoding: body, as: UTF8.self)
                let families = PrometheusText.families(text)
                for family in [
                    "hearth_http_requests_total", "hearth_http_request_duration_seconds", "hearth_events_produced_total",
                    "hearth_events_consumed_total", "hearth_projection_lag", "hearth_projection_apply_duration_seconds", "hearth_dlq_events_total",
                ] {
                    #expect(families[family] != nil, "missing \(family)")
                }
                // Every sample line is `name{labels} value`.
                for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                    #expect(Double(line.split(separator: " ").last ?? "") != nil, "unparsable sample: \(line)")
                }
            }
        }

        @Test func badInputAnswers4xxNamingTheField() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let upsertURL = gateway.baseURL.appendingPathComponent("v1/households/upsert")
                let user = try await GatewayUser.signIn(gateway)

                let cases: [(String, Any, String)] = [
                    ("missing prefs", ["name": "x"], "prefs"),
                    ("missing adults", ["prefs": ["kidsAges": [1]]], "prefs.adults"),
                    ("negative age", ["prefs": ["adults": 2, "kidsAges": [4, -3]]], "prefs.kidsAges[1]"),
                    ("adults as text", ["prefs": ["adults": "two"]], "prefs.adults"),
                    ("ages not a list", ["prefs": ["adults": 2, "kidsAges": "3"]], "prefs.kidsAges"),
                    ("allergy not text", ["prefs": ["adults": 2, "allergies": [5]]], "prefs.allergies[0]"),
                    ("unknown mode", ["mode": "append", "prefs": ["adults": 2]], "mode"),
                    ("bad id", ["household_id": "not-a-uuid", "prefs": ["adults": 2]], "household_id"),
                    ("prefs not an object", ["prefs": [1, 2]], "prefs"),
                    ("blank name", ["name": "  ", "prefs": ["adults": 1]], "name"),
                    // Postgres cannot store NUL: accepted, the write would be parked by the projection.
                    ("NUL in name", ["name": "Nul\u{0}Name", "prefs": ["adults": 3]], "name"),
                    ("NUL in allergy", ["prefs": ["adults": 2, "allergies": ["nuts", "egg\u{0}"]]], "prefs.allergies[1]"),
                    ("fractional adults", ["prefs": ["adults": 1.5]], "prefs.adults"),
                    ("adults beyond 64 bits", ["prefs": ["adults": 1e30]], "prefs.adults"),
                ]
                for (label, body, field) in cases {
                    let reply = try await HTTPTestClient.postJSON(upsertURL, body, headers: user.headers)
                    #expect(reply.status == 400, "\(label)")
                    #expect(reply.errorField == field, "\(label): got \(String(describing: reply.errorField))")
                    #expect((reply.json["error"] as? [String: Any])?["request_id"] as? String == reply.header("X-Request-Id"), "\(label)")
            }

            let notJSON = try await HTTPTestClient.send("POST", upsertURL, body: Data("{oops".utf8), headers: user.headers)
            #expect(notJSON.status == 400)
            #expect(notJSON.errorField == "body")

            let null = try await HTTPTestClient.send("POST", upsertURL, body: Data("null".utf8), headers: user.headers)
            #expect(null.status == 400 && null.errorField == "body")

            // A chunk size that is not hex: the body never arrives whole. It used to be called too large.
            let brokenChunk = try RawHTTPExchange.send(
                "POST /v1/households/upsert HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: \(user.headers["Authorization"] ?? "")\r\n"
                    + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n",
                toPort: gateway.port)
            #expect(brokenChunk.hasPrefix("HTTP/1.1 400"), "\(brokenChunk)")
            #expect(brokenChunk.contains(#""field":"body""#), "\(brokenChunk)")

            let tooLarge = try await HTTPTestClient.send("POST", upsertURL, body: Data(repeating: UInt8(ascii: " "), count: 1_100_000), headers: user.headers)
            #expect(tooLarge.status == 413)

            let badPath = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/households/123"), headers: user.headers)
            #expect(badPath.status == 400)
            #expect(badPath.errorField == "household_id")

            let unknown = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/households/\(UUID())"), headers: user.headers)
            #expect(unknown.status == 404)
            #expect(unknown.errorCode == "not_found")

            let badToken = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/households/\(UUID())"),
                                                         headers: user.headers(["X-Consistency-Token": "users:1:2"]))
            #expect(badToken.status == 400)
            #expect(badToken.errorField == "X-Consistency-Token")
            // households has 6 partitions.
            let noSuchPartition = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/households/\(UUID())"),
                                                                headers: user.headers(["X-Consistency-Token": "households:6:0"]))
            #expect(noSuchPartition.status == 400 && noSuchPartition.errorField == "X-Consistency-Token")
            }
        }

        /// A position past the end of its partition was never returned by a write: refused at once
        /// (400), neither held for the full wait nor answered 503, which would tell a prober where
        /// the partitions end.
        @Test func aPositionNeverWrittenIsRefusedAtOnce() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                // Only one's own household is waited for: another id is a 404 without any wait.
                let (user, household) = try await GatewayUser.withHousehold(gateway)
                let started = ContinuousClock.now
                let reply = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/households/\(household)"),
                                                          headers: user.headers(["X-Consistency-Token": "households:0:900000000"]))
                #expect(reply.status == 400)
                #expect(reply.errorField == "X-Consistency-Token")
                #expect(ContinuousClock.now - started < .seconds(3), "not held for the consistency wait")
            }
        }
    }
}
