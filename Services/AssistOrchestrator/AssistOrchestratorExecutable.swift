import Foundation
import HearthRuntime
import HearthStore

/// The assist-orchestrator executable: claims assist requests and runs them (meals, chores,
/// routines, the assistant), streaming each run's events.
public enum AssistOrchestratorExecutable: HearthExecutable {
    public static let name = "assist-orchestrator"
    public static let defaultPort = 8081
    public static var migrationsFolder: URL { (Bundle.module.resourceURL ?? Bundle.module.bundleURL).appendingPathComponent("Migrations") }

    public static func settings(from common: ServiceSettings) throws -> OrchestratorSettings {
        try OrchestratorSettings.load(from: common)
    }

    public static func projections(settings: OrchestratorSettings, publisher: EventPublisher) -> [any Projection] {
        AssistOrchestratorReadModels.projections()
    }

    public static func assemble(host: ServiceHost, settings: OrchestratorSettings) throws -> ServiceHost.Additions {
        ServiceHost.Additions(services: try OrchestratorAssembly.make(host: host, settings: settings).services)
    }
}

/// The projection that fills the orchestrator's run tables.
public enum AssistOrchestratorReadModels {
    public static func projections() -> [any Projection] {
        [AssistRunsProjection()]
    }
}
