import HearthDomain
import HearthEvents
import HearthKnowledge
import HearthStore
import Logging

/// Meals: planning query → `fetch_recipes` → `MealPlanner` (allergen-safe by construction, and
/// checked again by `AllergenGuard`) → grocery list → synthesis.
struct MealsFlow: AssistFlow {
    let planner: MealPlanner
    let retrieval: SearchedRecipeRetrieval
    let groceries: GroceryListBuilder
    let guardrail: AllergenGuard

    /// `search` nil: recipes are found by the catalogue's term search alone.
    init(catalogue: RecipeCatalogue, matcher: AllergenMatcher, search: KnowledgeSearch? = nil, logger: Logger = Logger(label: "hearth.meals")) {
        planner = MealPlanner(catalogue: catalogue, matcher: matcher)
        retrieval = SearchedRecipeRetrieval(search: search, catalogue: catalogue, matcher: matcher, logger: logger)
        groceries = GroceryListBuilder(catalogue: catalogue)
        guardrail = AllergenGuard(catalogue: catalogue, matcher: matcher)
    }

    func run(_ input: RunInput, tools: FlowTools, emitter: RunEmitter, usage: inout ModelUsage) async throws -> JSONValue {
        try await emitter.emit(.token, .string("Planning meals..."))
        let query = try await tools.plan(
            input, prompt: Prompts.planning(input), offlineAnswer: OfflineQuery.meals(goal: input.goal, prefs: input.prefs), usage: &usage)

        try await emitter.emit(.token, .string("Fetching recipes..."))
        try await emitter.emit(.toolCall, .object([
            "name": .string("fetch_recipes"),
            "args": .object(["query": .string(query), "k": .int(RecipeRetrieval.defaultCount), "dietary": .strings(input.prefs.allergies)]),
        ]))
        let request = MealPlanRequest(prefs: input.prefs, days: input.days, startDate: input.startDate, goal: input.goal)
        let retrieved = await OperationTracing.span("tool fetch_recipes") { _ in
            await retrieval.search(query, avoiding: planner.avoided(for: request))
        }
        let found = retrieved.recipes
        try await emitter.emit(.toolResult, .object([
            "name": .string("fetch_recipes"),
            "count": .int(found.count),
            "source": .string(retrieved.source),
            "recipes": .array(found.map { .object(["id": .string($0.id), "title": .string($0.title)]) }),
        ]))

        let plan = try planner.plan(MealPlanRequest(
            prefs: input.prefs, days: input.days, startDate: input.startDate, goal: input.goal, candidateRecipeIds: found.map(\.id)))
        // The hard rule, in code, after every model call and before anything is sent.
        try guardrail.check(plan, declared: input.prefs.allergies)
        let list = groceries.build(for: plan)

        let titles = plan.days.map(\.recipe.title)
        let text = try await tools.synthesize(
            input,
            prompt: "Create a concise meal outline for \(plan.days.count) days using these recipe titles, in this order: \(titles.joined(separator: "; ")).\nTone: family-friendly, encouraging.",
            offlineAnswer: PlanText.meals(plan), emitter: emitter, usage: &usage)

        var final: [String: JSONValue] = [
            "query": .string(query),
            "plan_text": .string(text),
            "recipes": .array(found.map { .object([
                "id": .string($0.id), "title": .string($0.title), "cuisine": .string($0.cuisine),
                "minutes": .int($0.minutes), "allergens": .strings($0.allergens),
            ]) }),
            "days": .array(try plan.days.map { day in
                .object([
                    "date": .string(day.date.isoDate), "weekday": .string(day.date.weekday.name), "meal": .string(day.meal),
                    "recipe": try JSONValue(encoding: day.recipe),
                ])
            }),
            "grocery": try JSONValue(encoding: list),
            "avoided": .strings(plan.avoided.displayNames),
        ]
        if let shortfall = plan.shortfall { final["shortfall"] = try JSONValue(encoding: shortfall) }
        return .object(final)
    }
}
