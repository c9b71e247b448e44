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
public enum ProfileExtractorExecutable {
    public static let name = "profile-extractor"
    public static let defaultPort = 8083

    public static func run() async {
        await ServiceHost.launch(
            service: name, defaultPort: defaultPort, migrations: ProfileExtractorReadModels.migrations,
            configure: ProfileExtractorSettings.load(from:),
            projections: { settings, publisher in
                [ProfileExtractionProjection(extractor: settings.extractor, announcer: ProfileFactAnnouncer(publisher: publisher))]
            })
    }
}

/// Everything the profile-extractor reads beyond `ServiceSettings`: `HEARTH_PROFILE_EXTRACTOR`
/// and, for a model, the router's extraction chain and provider keys (`ProfileExtractorSelection`).
struct ProfileExtractorSettings: Sendable {
    var extractor: any ProfileFactSource

    static func load(from service: ServiceSettings) throws -> ProfileExtractorSettings {
        let rules = try ProfileFactExtractor.bundled()
        return ProfileExtractorSettings(extractor: try ProfileExtractorSelection.fromEnvironment(
            service.environment, rules: rules, vocabulary: try AllergenVocabulary.bundled()))
    }
}

/// The tables the profile-extractor owns (`Migrations/`) and the projection that fills them.
public enum ProfileExtractorReadModels {
    public static func migrations() throws -> [Migration] {
        try Migration.load(owner: ProfileExtractorExecutable.name, folder: Bundle.module.resourceURL!.appendingPathComponent("Migrations"))
    }

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
