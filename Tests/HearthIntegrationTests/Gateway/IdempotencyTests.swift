import Foundation
import PostgresNIO
import Testing

extension BackboneSuite {
    /// `Idempotency-Key` on a POST that publishes: a retry gets the first answer and publishes
    /// nothing more; the key sent with another request, or by another user, does not answer it.
    @Suite struct Idempotency {
        /// Events the archive holds for one correlation id.
        static func archived(correlation: String, client: PostgresClient) async throws -> [(id: UUID, type: String)] {
            var events: [(UUID, String)] = []
            for try await (id, type) in try await client.query(
                "SELECT event_id, type FROM event_log WHERE correlation_id = \(correlation) ORDER BY topic, partition, \"offset\"",
                logger: TestEnvironment.logger
            ).decode((UUID, String).self) {
                events.append((id, type))
            }
            return events
        }

        @Test func aRetriedPostGetsTheFirstAnswerAndPublishesOnce() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let upsert = gateway.baseURL.appendingPathComponent("v1/households/upsert")
                let user = try await GatewayUser.signIn(gateway)
                let other = try await GatewayUser.signIn(gateway)
                let key = UUID().uuidString
                let correlation = "idem-\(UUID().uuidString.prefix(8))"
                // A retry sends the same bytes (serializing a dictionary twice may order its keys differently).
                let body = Data(#"{"name":"Retry House","prefs":{"adults":2}}"#.utf8)
                let headers = user.headers(["Idempotency-Key": key, "X-Correlation-Id": correlation])

                let first = try await HTTPTestClient.send("POST", upsert, body: body, headers: headers)
                #expect(first.status == 200, "\(String(decoding: first.body, as: UTF8.self))")
                #expect(first.header("Idempotent-Replayed") == nil)
                let retry = try await HTTPTestClient.send("POST", upsert, body: body, headers: headers)
                #expect(retry.status == 200, "\(String(decoding: retry.body, as: UTF8.self))")
                #expect(retry.header("Idempotent-Replayed") == "true")
                #expect(retry.body == first.body, "the same answer, version and position included")
                #expect(retry.header("Content-Type")?.hasPrefix("application/json") == true)

                // The same key with another body is refused, naming the header.
                let reused = try await HTTPTestClient.postJSON(upsert, ["name": "Another House", "prefs": ["adults": 1]], headers: headers)
                #expect(reused.status == 422)
                #expect(reused.errorCode == "idempotency_key_reused")
                #expect(reused.errorField == "Idempotency-Key")

                // Keys are per user: another user's identical key runs their own request.
                let theirs = try await HTTPTestClient.send("POST", upsert, body: body, headers: other.headers(["Idempotency-Key": key]))
                #expect(theirs.status == 200)
                #expect(theirs.header("Idempotent-Replayed") == nil)
                #expect(theirs.json["household_id"] as? String != first.json["household_id"] as? String)

                // Without a key, the same body is a new change.
                let again = try await HTTPTestClient.send("POST", upsert, body: body, headers: user.headers(["X-Correlation-Id": correlation]))
                #expect(again.status == 200)
                #expect(again.json["version"] as? Int == (first.json["version"] as? Int).map { $0 + 1 })

                try await TestEnvironment.withPostgres { client in
                    // The first request's two events (the household and its first member) and the
                    // keyless one's: the retry published nothing.
                    let archived = try await KafkaTestEnvironment.eventually {
                        try await Self.archived(correlation: correlation, client: client).count >= 3
                    }
                    try await Task.sleep(for: .milliseconds(500))
                    let events = try await Self.archived(correlation: correlation, client: client)
                    #expect(archived)
                    #expect(events.count == 3, "\(events)")
                    #expect(Set(events.map(\.id)).count == events.count)
                }
            }
        }

        @Test func aFailedRequestReleasesItsKeyAndBadKeysAreRefused() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let upsert = gateway.baseURL.appendingPathComponent("v1/households/upsert")
                let user = try await GatewayUser.signIn(gateway)
                let key = UUID().uuidString
                // A refused request is no answer to keep: the corrected request may use the key.
                let invalid = try await HTTPTestClient.postJSON(upsert, ["name": ""], headers: user.headers(["Idempotency-Key": key]))
                #expect(invalid.status == 400)
                let valid = try await HTTPTestClient.postJSON(upsert, ["name": "Fixed", "prefs": ["adults": 1]], headers: user.headers(["Idempotency-Key": key]))
                #expect(valid.status == 200, "\(String(decoding: valid.body, as: UTF8.self))")

                for bad in [String(repeating: "k", count: 256), "two words"] {
                    let reply = try await HTTPTestClient.postJSON(upsert, ["name": "Fixed"], headers: user.headers(["Idempotency-Key": bad]))
                    #expect(reply.status == 400, "\(bad.prefix(20))")
                    #expect(reply.errorField == "Idempotency-Key")
                }
            }
        }
    }
}
