import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization

/// A JWKS endpoint on 127.0.0.1 that stands in for `https://appleid.apple.com/auth/keys`, and
/// counts how often it was asked.
enum LocalJWKSServer {
    /// Serves `keys` at `/auth/keys` for as long as `body` runs; passes the URL to fetch them from.
    static func with<T: Sendable>(
        keys: [TestSigningKey], _ body: @Sendable (_ url: String, _ fetches: FetchCounter) async throws -> T
    ) async throws -> T {
        let document = try JSONSerialization.data(withJSONObject: ["keys": keys.map(\.jwk)])
        let fetches = FetchCounter()
        let router = Router()
        router.get("/auth/keys") { _, _ -> Response in
            fetches.increment()
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: document)))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        return try await app.test(.live) { client in
            guard let port = client.port else { throw JWKSServerWithoutPort() }
            return try await body("http://127.0.0.1:\(port)/auth/keys", fetches)
        }
    }

    struct JWKSServerWithoutPort: Error {}
}

/// How many times the JWKS was fetched.
final class FetchCounter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
