import Foundation

/// Hearth's own content, shipped as data files beside the code: recipes, allergen vocabulary,
/// routine and chore templates, the knowledge base, and the labelled evaluation sets.
public enum HearthContent {
    public enum File: String, CaseIterable, Sendable {
        case recipes = "recipes.json"
        case allergenSynonyms = "allergen_synonyms.json"
        case routines = "routines.json"
        case chores = "chores.json"
        case searchQueries = "queries.json"
        case extractionMessages = "extraction.json"
        case whoGrowthLMS = "who_growth_lms.json"
        case firstFoods = "first_foods.json"
        case activities = "activities.json"
        case moderationSet = "moderation.json"
    }

    public static func url(of file: File) -> URL {
        Bundle.module.resourceURL!.appendingPathComponent(file.rawValue)
    }

    public static func data(of file: File) throws -> Data {
        try Data(contentsOf: url(of: file))
    }

    /// The wellbeing content (`wellbeing/*.json`): the offline quiz bank, the tips, the authored
    /// practice scenarios and the guided-audio script templates.
    public static func wellbeing(_ name: String) throws -> Data {
        try Data(contentsOf: Bundle.module.resourceURL!.appendingPathComponent("wellbeing", isDirectory: true).appendingPathComponent(name))
    }

    /// The knowledge documents (`knowledge/*.md`, front matter + Markdown body).
    public static var knowledgeDirectory: URL {
        Bundle.module.resourceURL!.appendingPathComponent("knowledge", isDirectory: true)
    }
}
