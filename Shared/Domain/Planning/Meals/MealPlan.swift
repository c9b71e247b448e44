/// A plan of dinners, one distinct recipe per day, all safe for the household.
public struct MealPlan: Codable, Sendable, Hashable {
    public let startDate: CalendarDay
    public let requestedDays: Int
    public let days: [PlannedDay]
    public let household: HouseholdPortions
    /// What the plan avoids: the household's declarations plus any allergen the goal ruled
    /// out ("nut-free").
    public let avoided: DeclaredAllergies
    public let shortfall: MealPlanShortfall?
    /// Suggested recipes left out because they are unsafe or not in the catalogue, in the
    /// order they were suggested.
    public let rejectedCandidateIds: [String]

    public init(
        startDate: CalendarDay, requestedDays: Int, days: [PlannedDay], household: HouseholdPortions,
        avoided: DeclaredAllergies, shortfall: MealPlanShortfall?, rejectedCandidateIds: [String]
    ) {
        self.startDate = startDate
        self.requestedDays = requestedDays
        self.days = days
        self.household = household
        self.avoided = avoided
        self.shortfall = shortfall
        self.rejectedCandidateIds = rejectedCandidateIds
    }

    public var recipeIds: [String] { days.map(\.recipe.id) }

    enum CodingKeys: String, CodingKey {
        case startDate = "start_date"
        case requestedDays = "requested_days"
        case days, household, avoided, shortfall
        case rejectedCandidateIds = "rejected_candidate_ids"
    }
}
