import Foundation
import HearthContent
import HearthKnowledge
import PostgresNIO
import Testing

extension BackboneSuite {
    /// Ingest → embed → search through Kafka, the filters, and what bad queries get.
    @Suite struct KnowledgeSearch {
        @Test func anIngestedDocumentIsEmbeddedSearchableUnchangedOnReingestAndGoneWhenDeleted() async throws {
            try await KnowledgeStack.with { gateway, _ in
                let admin = try await GatewayUser.signIn(gateway, name: KnowledgeStack.adminName)
                let user = try await GatewayUser.signIn(gateway)
                let id = "kb-test-\(UUID().uuidString.prefix(8).lowercased())"
                let document: [String: Any] = [
                    "id": id, "kind": "tips", "title": "Zorbling the quuxberry hedge with toddlers", "age_min": 2, "age_max": 6,
                    "body": "## Why zorbling\n\nZorbling a quuxberry hedge is a calm garden job a toddler can help with.\n\n## How\n\nHand them blunt scissors and a basket for the clippings.",
                ]
                let documents = gateway.baseURL.appendingPathComponent("v1/admin/documents")

                // Only administrators may publish documents.
                let refused = try await HTTPTestClient.postJSON(documents, document, headers: user.headers)
                #expect(refused.status == 403)

                let accepted = try await HTTPTestClient.postJSON(documents, document, headers: admin.headers)
                #expect(accepted.status == 202, "\(String(decoding: accepted.body, as: UTF8.self))")
                #expect(accepted.json["document_id"] as? String == id)

                try await TestEnvironment.withPostgres { client in
                    let embedded = await KafkaTestEnvironment.eventually(timeout: .seconds(120)) {
                        (try? await KnowledgeStack.count(client, "SELECT count(*) FROM document_chunks WHERE document_id = '\(id)'")) ?? 0 > 0
                    }
                    try #require(embedded)
                    for mode in ["hybrid", "vector", "text"] {
                        let reply = try await KnowledgeStack.search(gateway, user: user, scope: "knowledge", ["q": "zorbling quuxberry hedge", "mode": mode, "k": "3"])
                        #expect(reply.status == 200)
                        let first = KnowledgeStack.results(reply).first
                        #expect(first?["document_id"] as? String == id, "\(mode): \(KnowledgeStack.results(reply).map { $0["document_id"] ?? "" })")
                        #expect(reply.json["mode"] as? String == mode)
                        #expect((first?["id"] as? String)?.hasPrefix("\(id)#") == true)
                        #expect((first?["snippet"] as? String)?.isEmpty == false)
                        #expect((first?["meta"] as? [String: Any])?["age_min"] as? Int == 2)
                    }
                    // content.embedded was published (the gateway archives every event).
                    let announced = await KafkaTestEnvironment.eventually(timeout: .seconds(30)) {
                        (try? await KnowledgeStack.count(client, "SELECT count(*) FROM event_log WHERE type = 'content.embedded' AND key = '\(id)'")) == 1
                    }
                    #expect(announced)

                    // The same content again: applied (the row sees the new event) but not embedded.
                    let before = try await client.query("SELECT last_event_id FROM content_documents WHERE document_id = \(id)", logger: TestEnvironment.logger)
                        .collect().first?.decode(UUID.self)
                    let again = try await HTTPTestClient.postJSON(documents, document, headers: admin.headers)
                    #expect(again.status == 202)
                    #expect(again.json["content_hash"] as? String == accepted.json["content_hash"] as? String)
                    let seen = await KafkaTestEnvironment.eventually(timeout: .seconds(60)) {
                        let now = try? await client.query("SELECT last_event_id FROM content_documents WHERE document_id = \(id)", logger: TestEnvironment.logger)
                            .collect().first?.decode(UUID.self)
                        return now != nil && now != before
                    }
                    #expect(seen)
                    #expect(try await KnowledgeStack.count(client, "SELECT embed_count FROM content_documents WHERE document_id = '\(id)'") == 1)
                    #expect(try await KnowledgeStack.count(client, "SELECT count(*) FROM event_log WHERE type = 'content.embedded' AND key = '\(id)'") == 1)

                    // Re-ingesting the whole built-in library embeds nothing either.
                    let embeddedBefore = try await KnowledgeStack.count(client, "SELECT sum(embed_count) FROM content_documents")
                    let ingest = try await CommandLineTool.run(["ingest"])
                    #expect(ingest.status == 0)
                    let correlation = try #require(ingest.output.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
                    let applied = await KafkaTestEnvironment.eventually(timeout: .seconds(120)) {
                        (try? await KnowledgeStack.count(client, """
                            SELECT count(*) FROM content_documents
                            WHERE last_event_id IN (SELECT event_id FROM event_log WHERE correlation_id = '\(correlation)')
                            """)) == KnowledgeStack.builtInCount
                    }
                    #expect(applied)
                    #expect(try await KnowledgeStack.count(client, "SELECT sum(embed_count) FROM content_documents") == embeddedBefore)

                    // Deleting removes the document and its chunks.
                    let deleted = try await HTTPTestClient.send("DELETE", documents.appendingPathComponent(id), headers: admin.headers)
                    #expect(deleted.status == 202)
                    let gone = await KafkaTestEnvironment.eventually(timeout: .seconds(60)) {
                        (try? await KnowledgeStack.count(client, "SELECT count(*) FROM document_chunks WHERE document_id = '\(id)'")) == 0
                    }
                    #expect(gone)
                    #expect(try await KnowledgeStack.count(client, "SELECT count(*) FROM content_documents WHERE document_id = '\(id)'") == 0)
                    let after = try await KnowledgeStack.search(gateway, user: user, scope: "all", ["q": "zorbling quuxberry hedge", "mode": "text"])
                    #expect(KnowledgeStack.results(after).allSatisfy { $0["document_id"] as? String != id })
                }
            }
        }

        @Test func filtersAreAppliedInsideTheSearchAndKResultsComeBack() async throws {
            try await KnowledgeStack.with { gateway, _ in
                let user = try await GatewayUser.signIn(gateway)
                try await TestEnvironment.withPostgres { client in
                    // exclude_allergens: never a recipe that has one, in every mode, and still k of them.
                    var allergensById: [String: [String]] = [:]
                    for try await (id, allergens) in try await client.query("SELECT document_id, allergens FROM content_documents WHERE kind = 'recipe'", logger: TestEnvironment.logger)
                        .decode((String, [String]).self) { allergensById[id] = allergens }
                    for (query, excluded) in [("peanut noodles satay", ["peanut"]), ("creamy cheese pasta bake", ["milk", "wheat"]), ("sesame prawn toast", ["sesame", "shellfish", "egg"])] {
                        let eligible = allergensById.values.filter { Set($0).isDisjoint(with: excluded) }.count
                        try #require(eligible >= 20)
                        for mode in ["hybrid", "vector"] {
                            let reply = try await KnowledgeStack.search(
                                gateway, user: user, scope: "recipes", ["q": query, "mode": mode, "k": "20", "exclude_allergens": excluded.joined(separator: ",")])
                            #expect(reply.status == 200)
                            let results = KnowledgeStack.results(reply)
                            #expect(results.count == 20, "\(mode) \(query): \(results.count) results")
                            for result in results {
                                let id = result["document_id"] as? String ?? ""
                                #expect(result["kind"] as? String == "recipe")
                                #expect(Set(allergensById[id] ?? ["unknown"]).isDisjoint(with: excluded), "\(mode) \(query) returned \(id)")
                            }
                        }
                        let text = try await KnowledgeStack.search(
                            gateway, user: user, scope: "recipes", ["q": query, "mode": "text", "k": "50", "exclude_allergens": excluded.joined(separator: ",")])
                        for result in KnowledgeStack.results(text) {
                            #expect(Set(allergensById[result["document_id"] as? String ?? ""] ?? ["unknown"]).isDisjoint(with: excluded))
                        }
                    }
                    // Common names work too: "peanuts" excludes peanut.
                    let plural = try await KnowledgeStack.search(gateway, user: user, scope: "recipes", ["q": "satay", "exclude_allergens": "peanuts", "k": "30"])
                    #expect(plural.status == 200)
                    #expect(KnowledgeStack.results(plural).allSatisfy { !(allergensById[$0["document_id"] as? String ?? ""] ?? ["peanut"]).contains("peanut") })
                }

                // kind: only that kind, and k of them (there are ten safety documents).
                for mode in ["hybrid", "vector", "text"] {
                    let reply = try await KnowledgeStack.search(gateway, user: user, scope: "knowledge", ["q": "keeping children safe", "kind": "safety", "k": "5", "mode": mode])
                    #expect(reply.status == 200)
                    let results = KnowledgeStack.results(reply)
                    if mode != "text" { #expect(results.count == 5, "\(mode)") }
                    #expect(results.allSatisfy { $0["kind"] as? String == "safety" })
                }
                // age: every result's range holds the age; recipes (no range) are for any age.
                for age in [0, 4, 15] {
                    let reply = try await KnowledgeStack.search(gateway, user: user, scope: "all", ["q": "sleep and bedtime", "age": String(age), "k": "15"])
                    #expect(reply.status == 200)
                    let results = KnowledgeStack.results(reply)
                    #expect(results.count == 15)
                    for result in results {
                        let meta = result["meta"] as? [String: Any] ?? [:]
                        let low = meta["age_min"] as? Int ?? 0, high = meta["age_max"] as? Int ?? 99
                        #expect(low <= age && age <= high, "age \(age): \(result["document_id"] ?? "") is \(low)...\(high)")
                    }
                }
                // recipes scope returns only recipes; knowledge scope none.
                let recipes = try await KnowledgeStack.search(gateway, user: user, scope: "recipes", ["q": "quick chicken dinner", "k": "10"])
                #expect(KnowledgeStack.results(recipes).count == 10 && KnowledgeStack.results(recipes).allSatisfy { $0["kind"] as? String == "recipe" })
                let knowledge = try await KnowledgeStack.search(gateway, user: user, scope: "knowledge", ["q": "quick chicken dinner", "k": "10"])
                #expect(KnowledgeStack.results(knowledge).count == 10 && KnowledgeStack.results(knowledge).allSatisfy { $0["kind"] as? String != "recipe" })
            }
        }

        @Test func badQueriesAreRefusedByNameOrAnsweredNeverA500() async throws {
            try await KnowledgeStack.with { gateway, _ in
                let user = try await GatewayUser.signIn(gateway)
                let refusals: [(String, [String: String], String)] = [
                    ("all", [:], "q"),
                    ("all", ["q": "   "], "q"),
                    ("all", ["q": String(repeating: "a", count: 10 * 1024)], "q"),
                    ("all", ["q": "sleep", "k": "0"], "k"),
                    ("all", ["q": "sleep", "k": "51"], "k"),
                    ("all", ["q": "sleep", "k": "ten"], "k"),
                    ("all", ["q": "sleep", "k": "-3"], "k"),
                    ("all", ["q": "sleep", "mode": "fuzzy"], "mode"),
                    ("knowledge", ["q": "sleep", "kind": "recipe"], "kind"),
                    ("recipes", ["q": "sleep", "kind": "safety"], "kind"),
                    ("all", ["q": "sleep", "exclude_allergens": "kryptonite"], "exclude_allergens"),
                    ("all", ["q": "sleep", "age": "-1"], "age"),
                    ("all", ["q": "sleep", "age": "old"], "age"),
                ]
                for (scope, parameters, field) in refusals {
                    let reply = try await KnowledgeStack.search(gateway, user: user, scope: scope, parameters)
                    #expect(reply.status == 400, "\(parameters.mapValues { $0.prefix(20) }) answered \(reply.status)")
                    #expect((reply.json["error"] as? [String: Any])?["field"] as? String == field, "\(parameters.mapValues { $0.prefix(20) })")
                }
                let odd = [
                    "'; DROP TABLE document_chunks; --", "\" OR 1=1 --", "sleep & | ! ( ) :* <->", "%_\\", "((((", "$1 $2 ::vector",
                    "🙂 bedtime 🙂", "a", "the and of", "SELECT * FROM content_documents", "' || pg_sleep(5) || '",
                ]
                for query in odd {
                    for mode in ["hybrid", "vector", "text"] {
                        let reply = try await KnowledgeStack.search(gateway, user: user, scope: "all", ["q": query, "mode": mode])
                        #expect(reply.status == 200, "\(query) (\(mode)) answered \(reply.status): \(String(decoding: reply.body, as: UTF8.self).prefix(300))")
                        #expect(reply.json["results"] is [Any])
                    }
                }
                let unauthenticated = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/rag/search/all"))
                #expect(unauthenticated.status == 401)
                // A query string as forms and URLSearchParams write it: '+' is a space, '%2B' a plus.
                for (raw, expected) in [("q=quick+chicken+dinner&k=3", "quick chicken dinner"), ("q=a%2Bb+c&k=3", "a+b c")] {
                    var components = URLComponents(url: gateway.baseURL.appendingPathComponent("v1/rag/search/recipes"), resolvingAgainstBaseURL: false)!
                    components.percentEncodedQuery = raw
                    let reply = try await HTTPTestClient.send("GET", components.url!, headers: user.headers)
                    #expect(reply.status == 200 && reply.json["query"] as? String == expected, "\(raw): \(reply.json)")
                }
                // The tables are all still there.
                let documents = try await TestEnvironment.withPostgres { client in
                    try await KnowledgeStack.count(client, "SELECT count(*) FROM content_documents")
                }
                #expect(documents >= KnowledgeStack.builtInCount)
            }
        }

        /// `rankedDocuments` (what the meal planner calls) answers the documents `search` answers,
        /// in its order and with its scores, in every mode and with filters.
        @Test func rankedDocumentsAreTheSearchAnswerWithoutContents() async throws {
            try await KnowledgeStack.with { _, _ in
                try await TestEnvironment.withPostgres { client in
                    let search = HearthKnowledge.KnowledgeSearch(client: client, provider: MiniLMEmbeddingProvider(), logger: TestEnvironment.logger)
                    let queries = [
                        SearchQuery(text: "quick chicken dinner", scope: .recipes, mode: .hybrid, limit: 16,
                                    filters: SearchFilters(excludeAllergens: ["peanut", "milk"])),
                        SearchQuery(text: "bedtime routine for toddlers", scope: .all, mode: .vector, limit: 5),
                        SearchQuery(text: "vegetarian pasta", scope: .recipes, mode: .text, limit: 8),
                    ]
                    for query in queries {
                        let hits = try await search.search(query)
                        let ranked = try await search.rankedDocuments(query)
                        #expect(!hits.isEmpty, "\(query.text)")
                        #expect(ranked.map(\.documentId) == hits.map(\.documentId), "\(query.text) \(query.mode)")
                        #expect(ranked.map(\.score) == hits.map(\.score), "\(query.text) \(query.mode)")
                    }
                }
            }
        }

        /// The HNSW index (at the search's ef_search) against an exact scan of the whole index, chunk by
        /// chunk, over the labelled queries and a few more.
        @Test func hnswRecallAtTenIsAtLeastNinetyFivePercentOfExactSearch() async throws {
            try await KnowledgeStack.with { _, _ in
                struct Labelled: Decodable { let query: String }
                let queries = try JSONDecoder().decode([Labelled].self, from: HearthContent.data(of: .searchQueries)).map(\.query)
                    + ["bedtime", "dinner with rice", "teenagers and phones", "toddler safety at home", "vegetarian lunch"]
                let provider = MiniLMEmbeddingProvider()
                let vectors = try await provider.embed(queries).map(\.pgvectorLiteral)
                try await TestEnvironment.withPostgres { client in
                    let logger = TestEnvironment.logger
                    var found = 0, expected = 0
                    for vector in vectors {
                        let (approximate, exact, plan) = try await client.withTransaction(logger: logger) { connection in
                            // The table is small enough for the planner to prefer a scan and a
                            // sort; this test is about the index (which covers every row), so the
                            // index it is.
                            try await connection.query("SET LOCAL enable_seqscan = off", logger: logger)
                            // The list size the search itself sets.
                            try await connection.query(PostgresQuery(unsafeSQL: "SET LOCAL hnsw.ef_search = \(HearthKnowledge.KnowledgeSearch.minimumEfSearch)"), logger: logger)
                            let plan = try await connection.query(
                                "EXPLAIN SELECT id FROM document_chunks ORDER BY embedding <=> \(vector)::vector LIMIT 10",
                                logger: logger
                            ).collect().map { try $0.decode(String.self) }.joined(separator: "\n")
                            let approximate = try await connection.query(
                                "SELECT id FROM document_chunks ORDER BY embedding <=> \(vector)::vector LIMIT 10",
                                logger: logger
                            ).collect().map { try $0.decode(String.self) }
                            let exact = try await connection.query(
                                "SELECT id FROM document_chunks ORDER BY (embedding <=> \(vector)::vector) + 0, id LIMIT 10",
                                logger: logger
                            ).collect().map { try $0.decode(String.self) }
                            return (approximate, exact, plan)
                        }
                        #expect(plan.contains("document_chunks_embedding_idx"), "\(plan.prefix(300))")
                        #expect(exact.count == 10)
                        found += Set(approximate).intersection(exact).count
                        expected += exact.count
                    }
                    let recall = Double(found) / Double(max(expected, 1))
                    #expect(recall >= 0.95, "HNSW recall@10 \(recall)")
                }
            }
        }
    }
}
