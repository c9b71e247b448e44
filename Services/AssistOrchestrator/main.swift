import HearthReadModels
import HearthRuntime

let host = ServiceHost.bootstrap(service: "assist-orchestrator", defaultPort: 8081, owner: .assistOrchestrator)
let orchestrator = OrchestratorAssembly.make(host: host)
await host.run(extraServices: orchestrator.services)
