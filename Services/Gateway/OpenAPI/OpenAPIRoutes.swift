import Foundation
import HearthConfiguration
import HearthRuntime
import Hummingbird

/// `GET /openapi.json`: the OpenAPI 3.1 document kept beside this file (`openapi.json`), bundled
/// as a resource and served as it is. A test compares its paths with the router's routes.
struct OpenAPIRoutes: Sendable {
    let document: ByteBuffer

    /// Reads the bundled document; a build without it cannot start.
    static func load() throws -> OpenAPIRoutes {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json") else {
            throw ConfigurationError(variable: "openapi.json", reason: "the OpenAPI document is missing from the gateway's resource bundle")
        }
        return OpenAPIRoutes(document: ByteBuffer(bytes: try Data(contentsOf: url)))
    }

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.get("openapi.json") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: document))
        }
    }
}
