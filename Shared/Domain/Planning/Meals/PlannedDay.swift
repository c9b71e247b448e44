/// One day's planned meal.
public struct PlannedDay: Codable, Sendable, Hashable {
    public let date: CalendarDay
    public let meal: String
    public let recipe: RecipeSummary

    public init(date: CalendarDay, meal: String, recipe: RecipeSummary) {
        self.date = date
        self.meal = meal
        self.recipe = recipe
    }
}
