import Foundation
import HearthEvents
import HearthKafka
import HearthPrivacy
import HearthStore
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle

/// Everything an executable needs, wired the same way in all six: settings, logs, metrics,
/// Postgres, the Kafka producer, its projections, and an HTTP server with the ops routes.
/// Shutdown (SIGTERM/SIGINT) runs in reverse: HTTP stops taking requests, projections finish
/// their batch, the producer flushes, and Postgres closes last.
public struct ServiceHost: Sendable {
    public let settings: ServiceSettings
    public let logger: Logger
    public let postgres: PostgresClient
    public let producer: KafkaProducer
    public let publisher: EventPublisher
    /// The data keys: the publisher seals personal fields with them, the runners open them.
    public let keys: DataKeyRing
    public let runners: [ProjectionRunner]
    /// Copies what this process's projections parked to the dead-letter topics.
    let deadLetterRelay: DeadLetterRelay?
    public let gate: StartupGate
    public let readiness: Readiness
    /// Commits of read model changes, as Postgres announces them: what keeps this process's
    /// caches of read models valid. Listens only once something asked for a generation.
    public let readModelChanges: ReadModelChangeFeed
    let migrations: [Migration]

    /// What an executable adds to its host once the host exists: services that run beside the
    /// projections (behind the same start-up gate) and its own HTTP routes.
    public struct Additions {
        public var services: [any Service]
        public var routes: (Router<HearthRequestContext>) -> Void
        /// WebSocket routes (`router.ws(...)`), when the executable has any: the server then
        /// accepts the upgrade on exactly these paths.
        public var webSocketRoutes: ((Router<BasicWebSocketRequestContext>) -> Void)?

        public init(
            services: [any Service] = [], routes: @escaping (Router<HearthRequestContext>) -> Void = { _ in },
            webSocketRoutes: ((Router<BasicWebSocketRequestContext>) -> Void)? = nil
        ) {
            self.services = services
            self.routes = routes
            self.webSocketRoutes = webSocketRoutes
        }
    }

    /// The one way an executable starts: reads the common settings and then the executable's own
    /// (once), sets up logging and metrics, builds the host (migrations, then the projections given
    /// those settings and the host's publisher), lets the executable add its own services and
    /// routes, and runs until SIGTERM or SIGINT.
    ///
    /// Anything thrown before running is a configuration error: one line naming the executable
    /// and the cause on stderr, and exit status 78 (EX_CONFIG), which tells an orchestrator that
    /// restarting will not help.
    public static func launch<Executable: HearthExecutable>(_ executable: Executable.Type) async {
        let host: ServiceHost
        let additions: Additions
        let tracingExporter: (any Service)?
        do {
            let common = try ServiceSettings.load(service: Executable.name, defaultPort: Executable.defaultPort)
            LoggingSetup.bootstrap(service: Executable.name, level: common.logLevel, format: common.logFormat)
            MetricsSetup.bootstrap()
            tracingExporter = try TracingSetup.bootstrap(
                service: Executable.name, settings: common.tracing, logger: Logger(label: "hearth.\(Executable.name).tracing"))
            let settings = try Executable.settings(from: common)
            host = try ServiceHost(settings: common, migrations: try Executable.migrations()) {
                try Executable.projections(settings: settings, publisher: $0)
            }
            additions = try await Executable.assemble(host: host, settings: settings)
        } catch {
            FileHandle.standardError.write(Data("\(Executable.name): cannot start: \(error)\n".utf8))
            exit(78)  // EX_CONFIG
        }
        await host.run(
            extraServices: additions.services, routes: additions.routes, webSocketRoutes: additions.webSocketRoutes,
            tracingExporter: tracingExporter)
    }

    /// Builds the clients: the producer and publisher first, so that projections which publish
    /// (embedding and profile announcements, Google link alerts) receive it in their constructors.
    public init(
        settings: ServiceSettings, migrations: [Migration], projections: (EventPublisher) throws -> [any Projection] = { _ in [] }
    ) throws {
        self.settings = settings
        let logger = Logger(label: "hearth.\(settings.serviceName)")
        self.logger = logger
        let database = try DatabaseConfiguration(url: settings.databaseURL)
        self.postgres = PostgresClient(configuration: database.client, backgroundLogger: logger)
        self.producer = try KafkaProducer(
            configuration: KafkaProducerConfiguration(
                bootstrapServers: settings.kafkaBootstrap, clientId: "hearth-\(settings.serviceName)", lingerMs: settings.producerLingerMs,
                deliveryTimeoutMs: settings.producerDeliveryTimeoutMs),
            logger: logger)
        self.keys = DataKeyRing(client: postgres, wrapping: settings.masterKey, logger: logger)
        self.publisher = EventPublisher(producer: producer, source: settings.serviceName, keys: keys)
        self.migrations = migrations
        self.gate = StartupGate()
        self.runners = try projections(publisher).map { [postgres, keys] projection in
            ProjectionRunner(
                projection: projection, client: postgres, keys: keys, bootstrapServers: settings.kafkaBootstrap,
                options: settings.projectionOptions(for: projection), logger: logger)
        }
        self.deadLetterRelay = runners.isEmpty ? nil : DeadLetterRelay(client: postgres, producer: producer, projections: runners.map(\.projection.name), logger: logger)
        self.readModelChanges = ReadModelChangeFeed(client: postgres, logger: logger)
        self.readiness = Readiness(
            client: postgres, admin: KafkaAdmin(bootstrapServers: settings.kafkaBootstrap, logger: logger),
            gate: gate, runners: runners, producer: producer, logger: logger)
        logger.info("configured", metadata: [
            "database": "\(database.redacted)", "kafka": "\(settings.kafkaBootstrap)",
            "http": "\(settings.httpHost):\(settings.httpPort)", "mode": "\(settings.mode.rawValue)",
        ])
    }

    /// Runs until SIGTERM or SIGINT. `routes` adds the executable's own API beside the ops routes.
    /// A failure to serve (the HTTP port taken, a service that stops on an error) ends the process
    /// with one line saying why and exit status 1, not a trap with a stack trace.
    /// `tracingExporter` (from `TracingSetup`) runs first so that it stops last, sending the spans
    /// of everything that stopped before it.
    public func run(
        extraServices: [any Service] = [], routes: (Router<HearthRequestContext>) -> Void = { _ in },
        webSocketRoutes: ((Router<BasicWebSocketRequestContext>) -> Void)? = nil, tracingExporter: (any Service)? = nil
    ) async {
        do {
            try await serve(extraServices: extraServices, routes: routes, webSocketRoutes: webSocketRoutes, tracingExporter: tracingExporter)
        } catch {
            logger.critical("stopped on an error", metadata: ["error": "\(error)"])
            FileHandle.standardError.write(Data("\(settings.serviceName): stopped: \(describe(error))\n".utf8))
            exit(1)
        }
    }

    /// NIO's socket errors describe themselves as `bind(descriptor:ptr:bytes:): Address already in
    /// use) (errno: 98)`; the address the executable tried is what an operator needs beside it.
    private func describe(_ error: any Error) -> String {
        if let io = error as? IOError, io.errnoCode == EADDRINUSE {
            return "cannot listen on \(settings.httpHost):\(settings.httpPort): the address is already in use (HEARTH_HTTP_PORT)"
        }
        return "\(error)"
    }

    private func serve(
        extraServices: [any Service], routes: (Router<HearthRequestContext>) -> Void, webSocketRoutes: ((Router<BasicWebSocketRequestContext>) -> Void)?,
        tracingExporter: (any Service)?
    ) async throws {
        let router = Router(context: HearthRequestContext.self)
        router.add(middleware: RequestIdMiddleware())
        if EventTracing.isEnabled { router.add(middleware: RequestTracingMiddleware()) }
        router.add(middleware: RequestMetricsMiddleware())
        OpsRoutes.register(on: router, readiness: readiness)
        routes(router)

        let services: [any Service] =
            [ShutdownDeadline(seconds: settings.shutdownTimeoutSeconds, logger: logger)]
            + (tracingExporter.map { [$0] } ?? [])
            + [producer, MigrationService(client: postgres, migrations: migrations, gate: gate, logger: logger)]
            + runners.map { GatedService(gate: gate, service: $0) }
            + (deadLetterRelay.map { [GatedService(gate: gate, service: $0)] } ?? [])
            + extraServices.map { GatedService(gate: gate, service: $0) }
            + (readModelChanges.isNeeded ? [GatedService(gate: gate, service: readModelChanges)] : [])
        // A connection that sends nothing (or half a request: slowloris) for the idle timeout is
        // closed; one whose answer is still streaming is not idle.
        let http1 = HTTP1Channel.Configuration(idleTimeout: .seconds(Int64(settings.httpIdleTimeoutSeconds)))
        var server = HTTPServerBuilder.eventLoopPinnedHTTP1(configuration: http1)
        if let webSocketRoutes {
            let webSocketRouter = Router(context: BasicWebSocketRequestContext.self)
            webSocketRoutes(webSocketRouter)
            server = .eventLoopPinnedHTTP1WebSocketUpgrade(webSocketRouter: webSocketRouter, configuration: .init(http1: http1))
        }
        let application = Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(settings.httpHost, port: settings.httpPort), serverName: "hearth-\(settings.serviceName)"),
            services: services,
            logger: logger)

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await postgres.run() }
            defer { group.cancelAll() }
            try await application.runService()
        }
        logger.info("stopped")
    }
}
