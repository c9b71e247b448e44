import Foundation
import HearthAssist
import HearthDomain
import HearthRuntime
import HearthStore

/// The profile-extractor executable: reads chat messages for profile facts (allergies, diets,
/// injuries, goals, tastes, schedules) and publishes them as `profile.fact_extracted`; the
/// gateway projects them into the household profile and the meal-planning constraints.
/// `HEARTH_PROFILE_EXTRACTOR` chooses the rules (the default) or a model with the rules behind
/// it (see `ProfileExtractorSelection`).
public enum ProfileExtractorExecutable: HearthExecutable {
    public static let name = "profile-extractor"
    public static let defaultPort = 8083
    public static var migrationsFolder: URL { (Bundle.module.resourceURL ?? Bundle.module.bundleURL).appendingPathComponent("Migrations") }

    public static func settings(from common: ServiceSettings) throws -> ProfileExtractorSettings {
        try ProfileExtractorSettings.load(from: common)
    }

    public static func projections(settings: ProfileExtractorSettings, publisher: EventPublisher) -> [any Projection] {
        [ProfileExtractionProjection(extractor: settings.extractor, publisher: publisher)]
    }
}

/// Everything the profile-extractor reads beyond `ServiceSettings`: `HEARTH_PROFILE_EXTRACTOR`
/// and, for a model, the router's extraction chain and provider keys (`ProfileExtractorSelection`).
public struct ProfileExtractorSettings: Sendable {
    var extractor: any ProfileFactSource

    static func load(from service: ServiceSettings) throws -> ProfileExtractorSettings {
        let rules = try ProfileFactExtractor.bundled()
        return ProfileExtractorSettings(extractor: try ProfileExtractorSelection.fromEnvironment(
            service.environment, rules: rules, vocabulary: try AllergenVocabulary.bundled()))
    }
}

public enum ProfileExtractorReadModels {
    /// The projection a replay rebuilds: the rules over the bundled vocabulary, announcing nothing.
    /// Both ship with the binary and are checked by tests, so failing to load them is a build defect.
    public static func projections() -> [any Projection] {
        do {
            return [ProfileExtractionProjection(extractor: try ProfileFactExtractor.bundled())]
        } catch {
            fatalError("bundled allergen vocabulary is unreadable: \(error)")
        }
    }
}
