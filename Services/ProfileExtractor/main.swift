import HearthRuntime

// The profile-extractor's own projections and work arrive with its issue; until then it runs the shared
// backbone (migrations, producer, health, readiness and metrics) so the stack starts whole.
let host = ServiceHost.bootstrap(service: "profile-extractor", defaultPort: 8083, owner: .profileExtractor)
try await host.run()
