import Foundation
import HearthDomain
import HearthReadModels
import HearthRuntime

// Reads chat messages for profile facts (allergies, diets, injuries, goals, tastes, schedules)
// and publishes them as profile.fact_extracted; the gateway projects them into the household
// profile and the meal-planning constraints.
let extractor: ProfileFactExtractor
do {
    extractor = try ProfileFactExtractor.bundled()
} catch {
    FileHandle.standardError.write(Data("profile-extractor: cannot load the allergen vocabulary: \(error)\n".utf8))
    exit(78)  // EX_CONFIG
}
let announcer = ProfileFactAnnouncer()
let host = ServiceHost.bootstrap(service: "profile-extractor", defaultPort: 8083, owner: .profileExtractor) {
    [ProfileExtractionProjection(extractor: extractor, announcer: announcer)]
}
announcer.attach(host.publisher)
try await host.run()
