import Foundation
import HearthDomain
import HearthKnowledge
import PostgresNIO
import Testing

/// The embedding-worker and a gateway, with the built-in content ingested through Kafka and
/// embedded. The first test to call `with` pays for embedding the whole content library; the
/// database keeps it for the rest of the run (re-ingesting unchanged content is a no-op).
enum KnowledgeStack {
    static let adminName = "Knowledge admin"

    static var adminId: String {
        UserIdentity.userId(provider: .dev, subject: UserIdentity.devSubject(forName: adminName)).uuidString.lowercased()
    }

    static let builtInCount: Int = (try? ContentLibrary.builtIn().count) ?? 0

    static func with<T>(_ body: (_ gateway: ServiceProcess, _ worker: ServiceProcess) async throws -> T) async throws -> T {
        try await ServiceProcess.with("embedding-worker") { worker in
            try await ServiceProcess.with(
                "gateway", environment: ["HEARTH_ADMIN_USER_IDS": adminId, "HEARTH_RATE_LIMIT_PER_MIN": "100000"]
            ) { gateway in
                let ingest = try await CommandLineTool.run(["ingest"])
                #expect(ingest.status == 0, "\(ingest.errors)")
                let indexed = try await TestEnvironment.withPostgres { client in
                    await KafkaTestEnvironment.eventually(timeout: .seconds(900)) {
                        (try? await count(client, "SELECT count(*) FROM content_documents WHERE model = 'all-MiniLM-L6-v2'")) ?? 0 >= builtInCount
                    }
                }
                try #require(indexed, "the built-in content was not embedded in time; worker log:\n\(worker.logTail())")
                return try await body(gateway, worker)
            }
        }
    }

    static func count(_ client: PostgresClient, _ sql: String) async throws -> Int {
        try await client.query(PostgresQuery(unsafeSQL: sql), logger: TestEnvironment.logger).collect().first?.decode(Int.self) ?? -1
    }

    /// `GET /v1/rag/search/{scope}` with these parameters.
    static func search(_ gateway: ServiceProcess, user: GatewayUser, scope: String, _ parameters: [String: String]) async throws -> HTTPTestClient.Reply {
        var components = URLComponents(url: gateway.baseURL.appendingPathComponent("v1/rag/search/\(scope)"), resolvingAgainstBaseURL: false)!
        components.queryItems = parameters.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        // URLComponents leaves '+' and ';' alone; encode them so they arrive as written.
        components.percentEncodedQuery = components.percentEncodedQuery?
            .replacingOccurrences(of: "+", with: "%2B").replacingOccurrences(of: ";", with: "%3B")
        return try await HTTPTestClient.send("GET", components.url!, headers: user.headers)
    }

    static func results(_ reply: HTTPTestClient.Reply) -> [[String: Any]] {
        reply.json["results"] as? [[String: Any]] ?? []
    }
}
