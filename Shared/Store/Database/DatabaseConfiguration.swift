import Foundation
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
        case "disable": tls = .disable
        case "prefer", "allow": tls = .prefer(.makeClientConfiguration())
        case "require", "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
        default: throw DatabaseConfigurationError.invalidURL("unknown sslmode \(sslMode)")
        }
        var configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: user,
            password: components.password?.removingPercentEncoding, database: database.isEmpty ? nil : database, tls: tls)
        configuration.options.maximumConnections = maximumConnections
        configuration.options.minimumConnections = 0
        self.client = configuration
        self.redacted = "\(scheme)://\(user)@\(host):\(components.port ?? 5432)/\(database)"
    }
}
