import HearthDomain

/// Content loaded once for all planning tests. Kept as `Result` so a broken content file
/// fails the tests that need it instead of crashing the whole test process.
enum PlanningFixtures {
    static let catalogue = Result { try RecipeCatalogue.bundled() }
    static let vocabulary = Result { try AllergenVocabulary.bundled() }
    static let planner = Result { try MealPlanner(catalogue: catalogue.get(), matcher: AllergenMatcher(vocabulary: vocabulary.get())) }
    static let choreCatalogue = Result { try ChoreCatalogue.bundled() }
    static let routineCatalogue = Result { try RoutineCatalogue.bundled() }

    static func day(_ iso: String) -> CalendarDay {
        CalendarDay(isoDate: iso)!
    }
}
