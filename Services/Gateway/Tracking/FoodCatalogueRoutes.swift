import Foundation
import HearthDomain
import HearthRuntime
import Hummingbird

/// `GET /v1/foods?q=&limit=`: the first-foods catalogue (`Shared/Content/first_foods.json`) a food
/// explorer picks from: each food's colour, allergens, the age it suits and how to serve it.
struct FoodCatalogueRoutes: Sendable {
    let catalogue: FoodCatalogue

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.get("foods") { request, context in try search(request, context: context) }
    }

    struct Answer: ResponseEncodable {
        let foods: [CatalogueFood]
    }

    func search(_ request: Request, context: HearthRequestContext) throws -> Answer {
        _ = try context.authenticatedUser()
        let limit = try TrackingInsightRoutes.limit(request)
        guard let query = request.uri.queryParameters.get("q")?.trimmingCharacters(in: .whitespacesAndNewlines), !query.isEmpty else {
            return Answer(foods: Array(catalogue.foods.prefix(limit)))
        }
        guard query.count <= 100 else { throw APIError.invalid("q", "q must be at most 100 characters") }
        return Answer(foods: catalogue.search(query, limit: limit))
    }
}
