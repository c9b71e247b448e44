import Foundation
import NIOSSL
import PostgresNIO

public enum DatabaseConfigurationError: Error, CustomStringConvertible {
    case invalidURL(String)

    public var description: String {
        switch self {
        case .invalidURL(let reason): "HEARTH_DATABASE_URL is not a usable postgres:// URL: \(reason)"
        }
    }
}

/// Reads a `postgres://user:password@host:port/database?sslmode=...` URL into PostgresNIO's
/// configuration. The password never reaches a log line: `redacted` is what gets printed.
public struct DatabaseConfiguration: Sendable {
    public var client: PostgresClient.Configuration
    /// The same server for one connection of one's own: a pool retries a failing connect for as
    /// long as it runs, while a single connect throws the server's reason.
    public var connection: PostgresConnection.Configuration
    public var redacted: String

    /// The HNSW search list size every Hearth connection starts with; a search that needs a longer
    /// list sets its own in a transaction.
    public static let sessionEfSearch = 160

    /// Session settings sent in the startup packet, so no query pays a round trip for them.
    /// pgvector's HNSW scans read them: an iterative scan keeps walking the graph when filters
    /// reject what it found first (a filtered search still fills its limit), and `ef_search` is the
    /// search list (pgvector's default, 40, misses ~4 % of the true nearest chunks here).
    static let sessionSettings: [(String, String)] = [
        ("hnsw.iterative_scan", "relaxed_order"),
        ("hnsw.ef_search", String(sessionEfSearch)),
    ]

    public init(url: String, maximumConnections: Int = 20) throws {
        guard let components = URLComponents(string: url), let scheme = components.scheme,
              ["postgres", "postgresql"].contains(scheme)
        else { throw DatabaseConfigurationError.invalidURL("expected the postgres:// scheme") }
        guard let host = components.host, !host.isEmpty else { throw DatabaseConfigurationError.invalidURL("no host") }
        guard let user = components.user, !user.isEmpty else { throw DatabaseConfigurationError.invalidURL("no user") }
        let database = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let sslMode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "disable"
        let tls: PostgresClient.Configuration.TLS
        let connectionTLS: PostgresConnection.Configuration.TLS
        switch sslMode {
        case "disable": (tls, connectionTLS) = (.disable, .disable)
        case "prefer", "allow": (tls, connectionTLS) = (.prefer(.makeClientConfiguration()), .prefer(try NIOSSLContext(configuration: .makeClientConfiguration())))
        case "require", "verify-ca", "verify-full": (tls, connectionTLS) = (.require(.makeClientConfiguration()), .require(try NIOSSLContext(configuration: .makeClientConfiguration())))
        default: throw DatabaseConfigurationError.invalidURL("unknown sslmode \(sslMode)")
        }
        let (port, password, named) = (components.port ?? 5432, components.password?.removingPercentEncoding, database.isEmpty ? nil : database)
        var configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: named, tls: tls)
        configuration.options.maximumConnections = maximumConnections
        configuration.options.minimumConnections = 0
        configuration.options.additionalStartupParameters = Self.sessionSettings
        self.client = configuration
        self.connection = PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: named, tls: connectionTLS)
        self.redacted = "\(scheme)://\(user)@\(host):\(port)/\(database)"
    }
}
