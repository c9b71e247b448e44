/// Plain-text summaries of plans, written the same way every time: what the offline model
/// says, and what any reply can fall back on.
public enum PlanText {
    /// "7 dinners for 2 adults and 2 children (ages 4, 9), avoiding peanut and sesame:"
    /// followed by a line per day, any shortfall, and the grocery list when given.
    public static func meals(_ plan: MealPlan, groceries: GroceryList? = nil) -> String {
        var lines: [String] = []
        let count = plan.days.count
        var header = "\(count) \(count == 1 ? "dinner" : "dinners") for \(household(plan.household))"
        if !plan.avoided.isEmpty { header += ", avoiding \(list(plan.avoided.displayNames))" }
        lines.append(header + (count == 0 ? "." : ":"))
        for day in plan.days {
            let recipe = day.recipe
            lines.append("\(dayLabel(day.date)) — \(recipe.title) (\(recipe.minutes) min, \(recipe.cuisine))")
        }
        if let shortfall = plan.shortfall { lines.append(shortfall.note) }
        if !plan.rejectedCandidateIds.isEmpty {
            let rejected = plan.rejectedCandidateIds.count
            lines.append("Left out \(rejected) suggested \(rejected == 1 ? "recipe" : "recipes") that \(rejected == 1 ? "is" : "are") not safe for this household or not in the catalogue.")
        }
        if let groceries, !groceries.isEmpty {
            lines.append("")
            lines.append(self.groceries(groceries))
        }
        return lines.joined(separator: "\n")
    }

    /// "Shopping list (24 items):" then one line per aisle.
    public static func groceries(_ list: GroceryList) -> String {
        let itemCount = Set(list.lines.map(\.item)).count
        var lines = ["Shopping list (\(itemCount) \(itemCount == 1 ? "item" : "items")):"]
        for aisle in list.aisles {
            let entries = aisle.lines.map { "\($0.item) \(amount($0.quantity, $0.unit))" }
            lines.append("\(aisle.name.prefix(1).uppercased() + aisle.name.dropFirst()): \(entries.joined(separator: ", "))")
        }
        return lines.joined(separator: "\n")
    }

    /// Who carries what, then the chores day by day.
    public static func chores(_ schedule: ChoreSchedule) -> String {
        var lines: [String] = []
        let count = schedule.occurrences.count
        let names = schedule.loads.map(\.name)
        lines.append("\(count) \(count == 1 ? "chore" : "chores") over \(schedule.days) \(schedule.days == 1 ? "day" : "days") from \(dayLabel(schedule.startDate)), shared by \(list(names)):")
        if schedule.source == .starterSet {
            lines.append("No chores were named, so this uses a starter set of everyday ones.")
        }
        for load in schedule.loads {
            lines.append("\(load.name): \(load.occurrences) \(load.occurrences == 1 ? "chore" : "chores"), \(load.minutes) min")
        }
        var currentDate: CalendarDay?
        var dayEntries: [String] = []
        func flushDay() {
            if let currentDate { lines.append("\(dayLabel(currentDate)): \(dayEntries.joined(separator: "; "))") }
            dayEntries = []
        }
        for occurrence in schedule.occurrences {
            if occurrence.date != currentDate {
                flushDay()
                currentDate = occurrence.date
            }
            dayEntries.append("\(occurrence.chore) — \(occurrence.assignee)")
        }
        flushDay()
        for chore in schedule.unassignable {
            lines.append("Nobody is old enough for \(chore.chore) (\(chore.minAge)+), so it is left out.")
        }
        return lines.joined(separator: "\n")
    }

    /// Each child's routines with step times.
    public static func routines(_ plan: RoutinePlan) -> String {
        var lines: [String] = []
        var lastChild: String?
        for routine in plan.routines {
            if routine.child != lastChild {
                if lastChild != nil { lines.append("") }
                lines.append("\(routine.child) (age \(routine.age), \(routine.band)):")
                lastChild = routine.child
            }
            let steps = routine.steps.map { "\($0.title) (\($0.minutes) min)" }
            lines.append("\(routine.name), \(routine.totalMinutes) min: \(steps.joined(separator: "; "))")
        }
        if lines.isEmpty { lines.append("No routines: nobody in the household is a child.") }
        for member in plan.withoutRoutine where !member.isAdult {
            lines.append("No routine template covers \(member.name) at age \(member.age).")
        }
        return lines.joined(separator: "\n")
    }

    /// "a", "a and b", "a, b and c".
    public static func list(_ items: [String]) -> String {
        switch items.count {
        case 0: ""
        case 1: items[0]
        default: items.dropLast().joined(separator: ", ") + " and " + items.last!
        }
    }

    /// "2 adults and 2 children (ages 4, 9)".
    static func household(_ household: HouseholdPortions) -> String {
        var parts: [String] = []
        if household.adults > 0 { parts.append("\(household.adults) \(household.adults == 1 ? "adult" : "adults")") }
        let ages = household.childAges
        if !ages.isEmpty {
            let agesText = ages.map(String.init).joined(separator: ", ")
            parts.append(ages.count == 1 ? "1 child (age \(agesText))" : "\(ages.count) children (ages \(agesText))")
        }
        return parts.isEmpty ? "one" : list(parts)
    }

    /// "Mon 3 Mar".
    static func dayLabel(_ date: CalendarDay) -> String {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return "\(date.weekday.shortName) \(date.day) \(months[date.month - 1])"
    }

    /// "1.4 kg", "3 tbsp", "2" (pieces read best bare: "lemon 2").
    static func amount(_ quantity: Double, _ unit: MeasureUnit) -> String {
        let number = QuantityRounding.display(quantity)
        switch unit {
        case .piece: return number
        case .pinch: return "\(number) \(quantity == 1 ? "pinch" : "pinches")"
        default: return "\(number) \(unit.rawValue)"
        }
    }
}
