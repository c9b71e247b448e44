import Foundation
import HearthStore

/// One Hearth executable as `ServiceHost` runs it: its name and port, its settings (read once, at
/// start-up), its migrations, the projections it runs and what it adds beside them. Each
/// executable's library declares one; its `main.swift` calls `run()`.
public protocol HearthExecutable {
    /// What the executable reads beyond `ServiceSettings`.
    associatedtype Settings

    /// Its logs' `service`, its consumer groups' and metrics' prefix, its migrations' owner.
    static var name: String { get }
    static var defaultPort: Int { get }
    /// The folder of its `Migrations/NNNN_*.sql` (its library's resource). A folder that is not
    /// there stops the start-up (exit 78): an executable without its tables must not run.
    static var migrationsFolder: URL { get }

    /// Throws on an unusable configuration: the process then stops with exit 78.
    static func settings(from common: ServiceSettings) throws -> Settings
    /// The projections the host runs, built with the host's publisher (for those that publish).
    static func projections(settings: Settings, publisher: EventPublisher) throws -> [any Projection]
    /// The executable's own services and routes, once the host exists.
    static func assemble(host: ServiceHost, settings: Settings) async throws -> ServiceHost.Additions
}

extension HearthExecutable {
    public static func projections(settings: Settings, publisher: EventPublisher) throws -> [any Projection] { [] }

    public static func assemble(host: ServiceHost, settings: Settings) async throws -> ServiceHost.Additions {
        ServiceHost.Additions()
    }

    /// Its migrations, in order.
    public static func migrations() throws -> [Migration] {
        try Migration.load(owner: name, folder: migrationsFolder)
    }

    /// Runs the executable until SIGTERM or SIGINT (`ServiceHost.launch`).
    public static func run() async {
        await ServiceHost.launch(Self.self)
    }
}
