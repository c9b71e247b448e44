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
    public var redacted: String
    /// Whether to use TLS, kept to build `connection` from; the pool's `client.tls` does not
    /// show it.
    private let sslMode: SSLMode

    private enum SSLMode {
        case disable, prefer, require
    }

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
        switch sslMode {
        case "disable": (self.sslMode, tls) = (.disable, .disable)
        case "prefer", "allow": (self.sslMode, tls) = (.prefer, .prefer(.makeClientConfiguration()))
        case "require", "verify-ca", "verify-full": (self.sslMode, tls) = (.require, .require(.makeClientConfiguration()))
        default: throw DatabaseConfigurationError.invalidURL("unknown sslmode \(sslMode)")
        }
        let port = components.port ?? 5432
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: user,
            password: components.password?.removingPercentEncoding, database: database.isEmpty ? nil : database, tls: tls)
        configuration.options.maximumConnections = maximumConnections
        configuration.options.minimumConnections = 0
        configuration.options.additionalStartupParameters = Self.sessionSettings
        self.client = configuration
        self.redacted = "\(scheme)://\(user)@\(host):\(port)/\(database)"
    }

    /// The same server for one connection of one's own: a pool retries a failing connect for as
    /// long as it runs, while a single connect throws the server's reason. Built when asked (a
    /// TLS context loads the trust roots), which only hearthctl does.
    public var connection: PostgresConnection.Configuration {
        get throws {
            let tls: PostgresConnection.Configuration.TLS
            switch sslMode {
            case .disable: tls = .disable
            case .prefer: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
            return PostgresConnection.Configuration(
                host: client.host ?? "", port: client.port ?? 5432, username: client.username, password: client.password,
                database: client.database, tls: tls)
        }
    }
}
