import HearthRuntime

// The embedding-worker's own projections and work arrive with its issue; until then it runs the shared
// backbone (migrations, producer, health, readiness and metrics) so the stack starts whole.
let host = ServiceHost.bootstrap(service: "embedding-worker", defaultPort: 8082, owner: .embeddingWorker)
try await host.run()
