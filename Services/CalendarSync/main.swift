import HearthRuntime

// The calendar-sync's own projections and work arrive with its issue; until then it runs the shared
// backbone (migrations, producer, health, readiness and metrics) so the stack starts whole.
let host = ServiceHost.bootstrap(service: "calendar-sync", defaultPort: 8084, owner: .calendarSync)
try await host.run()
