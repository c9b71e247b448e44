import Foundation
import HearthAssist
import HearthDomain
import HearthReadModels
import HearthRuntime

// Reads chat messages for profile facts (allergies, diets, injuries, goals, tastes, schedules)
// and publishes them as profile.fact_extracted; the gateway projects them into the household
// profile and the meal-planning constraints. HEARTH_PROFILE_EXTRACTOR chooses the rules (the
// default) or a model with the rules behind it (see ProfileExtractorSelection).
let announcer = ProfileFactAnnouncer()
let host = ServiceHost.bootstrap(service: "profile-extractor", defaultPort: 8083, owner: .profileExtractor) {
    let rules = try ProfileFactExtractor.bundled()
    let extractor = try ProfileExtractorSelection.fromEnvironment(
        ProcessInfo.processInfo.environment, rules: rules, vocabulary: try AllergenVocabulary.bundled())
    return [ProfileExtractionProjection(extractor: extractor, announcer: announcer)]
}
announcer.attach(host.publisher)
await host.run()
