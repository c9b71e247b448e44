import Foundation
import HearthRuntime
import HearthStore

/// The assist-orchestrator executable: claims assist requests and runs them (meals, chores,
/// routines, the assistant), streaming each run's events.
public enum AssistOrchestratorExecutable {
    public static let name = "assist-orchestrator"
    public static let defaultPort = 8081

    public static func run() async {
        await ServiceHost.launch(
            service: name, defaultPort: defaultPort, migrations: AssistOrchestratorReadModels.migrations,
            configure: OrchestratorSettings.load(from:), projections: { _, _ in AssistOrchestratorReadModels.projections() }
        ) { host, settings in
            ServiceHost.Additions(services: try OrchestratorAssembly.make(host: host, settings: settings).services)
        }
    }
}

/// The tables the orchestrator owns (`Migrations/`) and the projection that fills them.
public enum AssistOrchestratorReadModels {
    public static func migrations() throws -> [Migration] {
        try Migration.load(owner: AssistOrchestratorExecutable.name, folder: Bundle.module.resourceURL!.appendingPathComponent("Migrations"))
    }

    public static func projections() -> [any Projection] {
        [AssistRunsProjection()]
    }
}
