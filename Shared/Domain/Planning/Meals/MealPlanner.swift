/// Plans a run of dinners for a household.
///
/// Hard rules, never traded for a better score: every dish passes `AllergenMatcher` for the
/// household's declarations (and any allergen the goal rules out), and no dish appears
/// twice. When there are fewer safe dishes than days the plan is shorter and says why.
///
/// Soft preferences are scored (heaviest first):
/// - a suggested candidate recipe: +3 to +6 by its rank in the suggestion list;
/// - relevance to the goal's words: up to +4; a dish mentioning something the goal said no
///   to ("no mushrooms"): −5;
/// - a preferred cuisine: +3;
/// - kid-friendly when a child under 10 is at the table: +2;
/// - a seeded jitter below +0.5 so equally good dishes rotate between weeks.
/// Dishes are picked one at a time; each pick costs later dishes with the same main
/// ingredient 1.5 and the same cuisine 0.4, which spreads the week. The picks are then
/// ordered so the same main ingredient never falls on consecutive days when the mix allows.
/// The same request always yields the same plan: the jitter comes from a stable hash of the
/// request, and ties fall to catalogue order.
public struct MealPlanner: Sendable {
    public static let allowedDays = 1...31
    public static let mealName = "dinner"

    static let candidateBonus = 3.0...6.0
    static let goalWeight = 4.0
    static let unwantedPenalty = 5.0
    static let preferredCuisineBonus = 3.0
    static let kidFriendlyBonus = 2.0
    static let jitterRange = 0.5
    static let repeatedMainPenalty = 1.5
    static let repeatedCuisinePenalty = 0.4

    public let catalogue: RecipeCatalogue
    public let matcher: AllergenMatcher
    private let index: RecipePlanningIndex
    private let cuisineKeys: Set<String>

    public init(catalogue: RecipeCatalogue, matcher: AllergenMatcher) {
        self.catalogue = catalogue
        self.matcher = matcher
        index = RecipePlanningIndex(catalogue: catalogue, matcher: matcher)
        cuisineKeys = Set(index.cuisineKeys)
    }

    public static func bundled() throws -> MealPlanner {
        MealPlanner(catalogue: try RecipeCatalogue.bundled(), matcher: try AllergenMatcher.bundled())
    }

    /// Every catalogue recipe safe for `declared`, in catalogue order.
    public func safeRecipes(for declared: DeclaredAllergies) -> [Recipe] {
        index.safePositions(for: declared).map { catalogue.recipes[$0] }
    }

    /// What a request avoids: the household's declarations plus allergens its goal rules out.
    public func avoided(for request: MealPlanRequest) -> DeclaredAllergies {
        avoided(prefs: request.prefs.allergies, goal: MealGoal(request.goal))
    }

    public func plan(_ request: MealPlanRequest) throws(MealPlanningError) -> MealPlan {
        guard Self.allowedDays.contains(request.days) else {
            throw .daysOutOfRange(requested: request.days, allowed: Self.allowedDays)
        }
        let household = HouseholdPortions(prefs: request.prefs)
        let cuisines = CuisinePreferences(request.prefs.cuisines, known: cuisineKeys)
        let goal = MealGoal(request.goal)
        let wanted = goal.wanted + cuisines.otherWords.filter { !goal.wanted.contains($0) }
        let declared = avoided(prefs: request.prefs.allergies, goal: goal)

        let safe = index.safePositions(for: declared)
        let safeSet = Set(safe)

        var candidateRank: [String: Int] = [:]
        var rejected: [String] = []
        for id in request.candidateRecipeIds ?? [] where candidateRank[id] == nil && !rejected.contains(id) {
            if let position = catalogue.position(ofId: id), safeSet.contains(position) {
                candidateRank[id] = candidateRank.count
            } else {
                rejected.append(id)
            }
        }

        let seed = request.stableSeed
        let hasYoungChild = household.hasYoungChild
        var score = [Double](repeating: 0, count: index.count)
        for position in safe {
            let terms = index.searchTerms[position]
            var value = Self.jitterRange * StableHash.unitInterval(seed: seed, keyHash: index.idHashes[position])
            if !candidateRank.isEmpty, let rank = candidateRank[catalogue.recipes[position].id] {
                let share = 1 - Double(rank) / Double(candidateRank.count)
                value += Self.candidateBonus.lowerBound + (Self.candidateBonus.upperBound - Self.candidateBonus.lowerBound) * share
            }
            value += Self.goalWeight * terms.relevance(to: wanted)
            if terms.mentionsAny(of: goal.unwanted) { value -= Self.unwantedPenalty }
            if cuisines.prefers(cuisineKey: index.cuisineKeys[position]) { value += Self.preferredCuisineBonus }
            if hasYoungChild && index.kidFriendly[position] { value += Self.kidFriendlyBonus }
            score[position] = value
        }

        let picked = pickDishes(count: min(request.days, safe.count), from: safe, scores: score)
        let order = MealSequenceArranger.arrange(mains: picked.map { catalogue.recipes[$0].mainIngredient })
        let days = order.enumerated().map { day, pick in
            PlannedDay(
                date: request.startDate.adding(days: day), meal: Self.mealName,
                recipe: RecipeSummary(catalogue.recipes[picked[pick]]))
        }

        return MealPlan(
            startDate: request.startDate, requestedDays: request.days, days: days, household: household,
            avoided: declared, shortfall: Self.shortfall(planned: days.count, requested: request.days, avoiding: declared),
            rejectedCandidateIds: rejected)
    }

    /// Picks `count` dishes greedily by score, each pick making later dishes with the same
    /// main ingredient or cuisine progressively costlier. Returns catalogue positions, best
    /// first.
    private func pickDishes(count: Int, from safe: [Int], scores: [Double]) -> [Int] {
        var pool = safe
        var picked: [Int] = []
        let mainNumbers = index.mainIngredientNumbers
        let cuisineNumbers = index.cuisineNumbers
        var mainUses = [Int](repeating: 0, count: index.count)
        var cuisineUses = [Int](repeating: 0, count: index.count)
        while picked.count < count {
            var best = 0
            var bestValue = -Double.infinity
            for poolIndex in pool.indices {
                let position = pool[poolIndex]
                let value = scores[position]
                    - Self.repeatedMainPenalty * Double(mainUses[mainNumbers[position]])
                    - Self.repeatedCuisinePenalty * Double(cuisineUses[cuisineNumbers[position]])
                // Ties keep the earlier catalogue position: `pool` is in catalogue order.
                if value > bestValue {
                    best = poolIndex
                    bestValue = value
                }
            }
            let position = pool.remove(at: best)
            picked.append(position)
            mainUses[mainNumbers[position]] += 1
            cuisineUses[cuisineNumbers[position]] += 1
        }
        return picked
    }

    private static func shortfall(planned: Int, requested: Int, avoiding declared: DeclaredAllergies) -> MealPlanShortfall? {
        guard planned < requested else { return nil }
        let avoiding = declared.isEmpty ? "" : " without \(PlanText.list(declared.displayNames))"
        let note = planned == 0
            ? "No catalogue recipe is safe\(avoiding), so there is nothing to plan."
            : "Only \(planned) catalogue \(planned == 1 ? "recipe is" : "recipes are") safe\(avoiding), "
                + "so this plan covers \(planned) of \(requested) days rather than repeat a dish."
        return MealPlanShortfall(requestedDays: requested, plannedDays: planned, note: note)
    }

    private func avoided(prefs allergies: [String], goal: MealGoal) -> DeclaredAllergies {
        let declared = matcher.vocabulary.resolve(allergies)
        // From the goal only recognised allergens become hard rules; "no mushrooms" is a
        // preference, handled as an unwanted word.
        let fromGoal = matcher.vocabulary.resolve(goal.negatedPhrases).allergens
        guard !fromGoal.isEmpty else { return declared }
        let all = Set(declared.allergens).union(fromGoal)
        return DeclaredAllergies(
            allergens: matcher.vocabulary.canonicalAllergens.filter(all.contains),
            unrecognisedTerms: declared.unrecognisedTerms)
    }
}
