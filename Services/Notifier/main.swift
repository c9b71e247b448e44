import HearthRuntime

// The notifier's own projections and work arrive with its issue; until then it runs the shared
// backbone (migrations, producer, health, readiness and metrics) so the stack starts whole.
let host = ServiceHost.bootstrap(service: "notifier", defaultPort: 8085, owner: .notifier)
try await host.run()
