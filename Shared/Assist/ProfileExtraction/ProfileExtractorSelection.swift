import AsyncHTTPClient
import Foundation
import HearthConfiguration
import HearthDomain
import Logging

/// A profile-extractor configuration that cannot work, reported at start-up.
public struct ProfileExtractorConfigurationError: Error, CustomStringConvertible {
    public var description: String
}

/// Which extractor the profile-extractor runs, from the environment:
///
/// - `HEARTH_PROFILE_EXTRACTOR=rules` (the default): the rule-based `ProfileFactExtractor`.
/// - `HEARTH_PROFILE_EXTRACTOR=model`: `ModelProfileFactExtractor` over the router's extraction
///   chain `HEARTH_MODEL_CHAIN_EXTRACTION` (e.g. `openai:gpt-4o-mini`), with the provider keys
///   and base URLs `ModelRouter.fromEnvironment` reads; the rules read whatever the model cannot.
///   The chain must name at least one real provider: the offline model cannot read messages.
public enum ProfileExtractorSelection {
    public static func fromEnvironment(
        _ env: EnvironmentReader, rules: ProfileFactExtractor, vocabulary: AllergenVocabulary?,
        logger: Logger = Logger(label: "hearth.profile-extractor")
    ) throws -> any ProfileFactSource {
        let choice = env.trimmed("HEARTH_PROFILE_EXTRACTOR")?.lowercased() ?? ""
        switch choice {
        case "", "rules":
            logger.info("profile extraction by rules")
            return rules
        case "model":
            let router = try ModelRouter.requiringProvider(env, phase: .extraction, setting: "HEARTH_PROFILE_EXTRACTOR", logger: logger,
                refusal: { ProfileExtractorConfigurationError(description: $0) })
            let chain = router.chainDescription[.extraction] ?? []
            logger.info("profile extraction by model", metadata: ["chain": "\(chain.joined(separator: ","))"])
            return ModelProfileFactExtractor(router: router, fallback: rules, vocabulary: vocabulary, logger: logger)
        default:
            throw ProfileExtractorConfigurationError(description: "HEARTH_PROFILE_EXTRACTOR must be rules or model, not \(choice)")
        }
    }
}
