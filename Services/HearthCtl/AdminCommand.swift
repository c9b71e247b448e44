import ArgumentParser
import Foundation
import GatewayService
import HearthConfiguration
import HearthDomain
import PostgresNIO

struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "The admin console: one-time sign-in links for development.",
        subcommands: [Link.self])

    struct Link: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a one-time link that signs an administrator into the console (/admin).",
            discussion: """
                The user is named by id, or by the name they signed in with (the dev sign-in's name). The link \
                works once, for 15 minutes, on a gateway outside production, and only for a user in \
                HEARTH_ADMIN_USER_IDS. Hearth keeps no e-mail addresses, so an e-mail works only where it is \
                the dev sign-in name.
                """)

        @Argument(help: "The administrator: a user id or a dev sign-in name.") var user: String
        @Option(name: .customLong("gateway-url"), help: "The gateway's base URL (default: $HEARTH_PUBLIC_URL, else make run's http://127.0.0.1:8080).")
        var gatewayURL: String?
        @Option(help: "The console page to open after sign-in, e.g. /admin/pipeline.") var next: String?
        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            let logger = CLILogging.logger()
            let who = user.trimmingCharacters(in: .whitespacesAndNewlines)
            let (userId, token) = try await connection.withPostgres(logger: logger) { client in
                let candidates = UUID(uuidString: who).map { [$0] } ?? [UserIdentity.userId(provider: .dev, subject: UserIdentity.devSubject(forName: who))]
                var found: UUID?
                for try await id in try await client.query(
                    "SELECT user_id FROM users WHERE user_id = ANY(\(candidates)) AND erased_at IS NULL", logger: logger
                ).decode(UUID.self) {
                    found = id
                }
                guard let found else { throw CLIFailure("no user \(who): sign in once (POST /v1/auth/dev) so the gateway knows them") }
                return (found, try await AdminConsoleLink.issue(for: found, client: client, logger: logger))
            }
            // The gateway's public URL when it has one (a link is opened from outside), else `make run`'s.
            let base = gatewayURL ?? EnvironmentReader().optionalString("HEARTH_PUBLIC_URL") ?? "http://127.0.0.1:8080"
            var components = URLComponents(string: base.hasSuffix("/") ? String(base.dropLast()) : base)
            components?.path += AdminConsoleLink.path
            components?.queryItems = [URLQueryItem(name: "token", value: token)] + (next.map { [URLQueryItem(name: "next", value: $0)] } ?? [])
            guard let link = components?.string else { throw CLIFailure("--gateway-url \(base) is not a URL") }
            let admins = EnvironmentReader().list("HEARTH_ADMIN_USER_IDS").compactMap(UUID.init(uuidString:))
            if !admins.isEmpty, !admins.contains(userId) {
                FileHandle.standardError.write(Data("warning: \(userId.uuidString.lowercased()) is not in this shell's HEARTH_ADMIN_USER_IDS; the gateway will refuse it unless its own list has it\n".utf8))
            }
            print(link)
        }
    }
}
