import AsyncHTTPClient
import ServiceLifecycle

/// Shuts the notifier's HTTP client down after the dispatcher stopped (services stop in reverse
/// order of their listing, so this one is listed before it).
struct HTTPClientService: Service {
    let client: HTTPClient

    func run() async throws {
        try? await gracefulShutdown()
        try await client.shutdown()
    }
}
