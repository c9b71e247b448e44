import Foundation
import HearthDomain
import HearthEvents
import Testing

@Suite struct PlanTextTests {
    static let monday = PlanningFixtures.day("2025-03-03")

    @Test func summarisesAMealPlan() {
        let plan = MealPlan(
            startDate: Self.monday, requestedDays: 3,
            days: [
                PlannedDay(date: Self.monday, meal: "dinner", recipe: RecipeSummary(id: "a", title: "Lemon herb chicken", cuisine: "italian", minutes: 35, allergens: [])),
                PlannedDay(date: Self.monday.adding(days: 1), meal: "dinner", recipe: RecipeSummary(id: "b", title: "Dal", cuisine: "indian", minutes: 40, allergens: [])),
            ],
            household: HouseholdPortions(adults: 2, childAges: [4, 9]),
            avoided: DeclaredAllergies(allergens: ["peanut", "tree_nut", "sesame"], unrecognisedTerms: ["kiwi"]),
            shortfall: MealPlanShortfall(requestedDays: 3, plannedDays: 2, note: "Only 2 recipes are safe."),
            rejectedCandidateIds: ["x"])
        #expect(PlanText.meals(plan) == """
            2 dinners for 2 adults and 2 children (ages 4, 9), avoiding peanut, tree nuts, sesame and kiwi:
            Mon 3 Mar — Lemon herb chicken (35 min, italian)
            Tue 4 Mar — Dal (40 min, indian)
            Only 2 recipes are safe.
            Left out 1 suggested recipe that is not safe for this household or not in the catalogue.
            """)
    }

    @Test func summarisesGroceries() {
        let list = GroceryList(aisles: [
            GroceryAisle(name: "produce", lines: [
                GroceryLine(item: "lemon", quantity: 2, unit: .piece, recipes: ["a"]),
                GroceryLine(item: "potato", quantity: 1.25, unit: .kilogram, recipes: ["a"]),
            ]),
            GroceryAisle(name: "spices", lines: [GroceryLine(item: "chili flakes", quantity: 2, unit: .pinch, recipes: ["a"])]),
        ])
        #expect(PlanText.groceries(list) == """
            Shopping list (3 items):
            Produce: lemon 2, potato 1.25 kg
            Spices: chili flakes 2 pinches
            """)
    }

    @Test func summarisesChoresAndRoutines() throws {
        let scheduler = ChoreScheduler(catalogue: try PlanningFixtures.choreCatalogue.get())
        let schedule = try scheduler.schedule(ChoreScheduleRequest(
            members: [HouseholdMember(name: "Alex", age: 40), HouseholdMember(name: "Maya", age: 8)], goal: "set the table and walk the dog",
            days: 2, startDate: Self.monday))
        #expect(PlanText.chores(schedule) == """
            4 chores over 2 days from Mon 3 Mar, shared by Alex and Maya:
            Alex: 2 chores, 60 min
            Maya: 2 chores, 10 min
            Mon 3 Mar: Walk the dog — Alex; Set the table — Maya
            Tue 4 Mar: Walk the dog — Alex; Set the table — Maya
            """)
        let routines = RoutineBuilder(catalogue: try PlanningFixtures.routineCatalogue.get()).build(children: [HouseholdMember(name: "Ada", age: 1)])
        let text = PlanText.routines(routines)
        #expect(text.hasPrefix("Ada (age 1, Baby):\nMorning routine, 70 min: Wake-up cuddle and fresh nappy (10 min); "))
        #expect(text.contains("\nBedtime routine, 50 min: Warm bath with parent supervising at all times (10 min); "))
    }

    @Test func textIsDeterministic() throws {
        let planner = try PlanningFixtures.planner.get()
        let request = MealPlanRequest(
            prefs: HouseholdPrefs(adults: 1, kidsAges: [], allergies: ["fish"], cuisines: []), days: 4, startDate: Self.monday)
        let first = try planner.plan(request)
        let list = GroceryListBuilder(catalogue: planner.catalogue).build(for: first)
        #expect(PlanText.meals(first, groceries: list) == PlanText.meals(try planner.plan(request), groceries: list))
        #expect(PlanText.meals(first, groceries: list).hasPrefix("4 dinners for 1 adult, avoiding fish:\nMon 3 Mar — "))
    }
}
