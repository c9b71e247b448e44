import HearthRuntime

// The assist-orchestrator's own projections and work arrive with its issue; until then it runs the shared
// backbone (migrations, producer, health, readiness and metrics) so the stack starts whole.
let host = ServiceHost.bootstrap(service: "assist-orchestrator", defaultPort: 8081, owner: .assistOrchestrator)
try await host.run()
