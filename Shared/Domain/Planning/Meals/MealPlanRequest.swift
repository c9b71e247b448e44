import HearthEvents

/// What to plan: a household's preferences, how many dinners from which day, and optionally
/// what the user asked for and which recipes a search ranked for it.
public struct MealPlanRequest: Codable, Sendable, Hashable {
    public let prefs: HouseholdPrefs
    public let days: Int
    public let startDate: CalendarDay
    /// The user's words ("quick vegetarian dinners, no mushrooms").
    public let goal: String?
    /// Recipe ids from retrieval, best first. They are preferred in that order, but are
    /// screened like any other recipe.
    public let candidateRecipeIds: [String]?

    public init(prefs: HouseholdPrefs, days: Int, startDate: CalendarDay, goal: String? = nil, candidateRecipeIds: [String]? = nil) {
        self.prefs = prefs
        self.days = days
        self.startDate = startDate
        self.goal = goal
        self.candidateRecipeIds = candidateRecipeIds
    }

    /// A seed that depends on every input and nothing else, so the same request always
    /// gives the same plan, and a different week or household gets a different shuffle of
    /// equally good recipes. Lists whose order carries no meaning are sorted first.
    var stableSeed: UInt64 {
        let fields = [
            "adults=\(prefs.adults)",
            "kids=\(prefs.kidsAges.sorted().map(String.init).joined(separator: ","))",
            "allergies=\(prefs.allergies.map { $0.lowercased() }.sorted().joined(separator: "|"))",
            "cuisines=\(prefs.cuisines.map { $0.lowercased() }.sorted().joined(separator: "|"))",
            "days=\(days)",
            "start=\(startDate.isoDate)",
            "goal=\(goal ?? "")",
            "candidates=\((candidateRecipeIds ?? []).joined(separator: "|"))",
        ]
        return StableHash.fnv1a(fields.joined(separator: "\n"))
    }

    enum CodingKeys: String, CodingKey {
        case prefs, days
        case startDate = "start_date"
        case goal
        case candidateRecipeIds = "candidate_recipe_ids"
    }
}
