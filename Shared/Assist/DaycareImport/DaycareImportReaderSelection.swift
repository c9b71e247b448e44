import AsyncHTTPClient
import Foundation
import HearthConfiguration
import HearthDomain
import Logging

/// A daycare-import configuration that cannot work, reported at start-up.
public struct DaycareImportConfigurationError: Error, CustomStringConvertible {
    public var description: String
}

/// Which reader the gateway's daycare import uses, from the environment:
///
/// - `HEARTH_DAYCARE_IMPORT_PARSER=rules` (the default): `DaycareReportParser`.
/// - `HEARTH_DAYCARE_IMPORT_PARSER=model`: `ModelDaycareReportReader` over the router's extraction
///   chain `HEARTH_MODEL_CHAIN_EXTRACTION`, with the provider keys and base URLs
///   `ModelRouter.fromEnvironment` reads; the rules read whatever the model cannot. The chain must
///   name a real provider: the offline model cannot read sheets.
public enum DaycareImportReaderSelection {
    public static func fromEnvironment(
        _ env: EnvironmentReader, httpClient: HTTPClient = .shared, logger: Logger = Logger(label: "hearth.daycare-import")
    ) throws -> any DaycareReportReader {
        let choice = env.trimmed("HEARTH_DAYCARE_IMPORT_PARSER")?.lowercased() ?? ""
        switch choice {
        case "", "rules":
            return DaycareReportParser()
        case "model":
            let router = try ModelRouter.requiringProvider(env, phase: .extraction, setting: "HEARTH_DAYCARE_IMPORT_PARSER", httpClient: httpClient, logger: logger,
                refusal: { DaycareImportConfigurationError(description: $0) })
            let chain = router.chainDescription[.extraction] ?? []
            logger.info("daycare import by model", metadata: ["chain": "\(chain.joined(separator: ","))"])
            return ModelDaycareReportReader(router: router, fallback: DaycareReportParser(), logger: logger)
        default:
            throw DaycareImportConfigurationError(description: "HEARTH_DAYCARE_IMPORT_PARSER must be rules or model, not \(choice)")
        }
    }
}
