import Foundation
import PostgresNIO
import Testing

extension BackboneSuite {
    /// The meal planner's `fetch_recipes` goes through the knowledge search once recipes are indexed.
    @Suite struct AssistRecipeSearch {
        @Test func mealPlansFetchSafeRecipesThroughTheSearch() async throws {
            try await KnowledgeStack.with { gateway, _ in
                try await ServiceProcess.with("assist-orchestrator") { _ in
                    let user = try await BackboneSuite.AssistFlow.family(gateway)  // allergic to peanuts and shellfish
                    let (events, _) = try await AssistStack.run(
                        gateway, user: user, ["goal": "quick noodle and curry dinners", "mode": "meals", "days": 5], wire: .ndjson)
                    _ = try expectWellFormedStream(events, terminal: "final", wire: .ndjson)
                    let result = try #require(events.first { $0.event == "tool_result" }?.object)
                    #expect(result["name"] as? String == "fetch_recipes")
                    #expect(result["source"] as? String == "search", "\(result)")
                    let ids = (result["recipes"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                    #expect(ids.count == 8)
                    let allergens = try await TestEnvironment.withPostgres { client in
                        var found: [String: [String]] = [:]
                        for try await (id, list) in try await client.query(
                            "SELECT document_id, allergens FROM content_documents WHERE document_id = ANY(\(ids)::text[])", logger: TestEnvironment.logger
                        ).decode((String, [String]).self) { found[id] = list }
                        return found
                    }
                    for id in ids {
                        let list = try #require(allergens[id], "\(id) is not an indexed recipe")
                        #expect(Set(list).isDisjoint(with: ["peanut", "shellfish", "mollusc"]), "\(id): \(list)")
                    }
                }
            }
        }
    }
}
