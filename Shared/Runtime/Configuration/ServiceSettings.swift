import HearthConfiguration
import HearthPrivacy
import HearthStore
import Logging

/// What every executable reads at start-up. Defaults are for `make run` on one machine; compose
/// overrides them. The README's configuration table lists the same variables.
public struct ServiceSettings: Sendable {
    public enum Mode: String, Sendable { case dev, test, production }

    public var serviceName: String
    public var mode: Mode
    public var httpHost: String
    public var httpPort: Int
    public var databaseURL: String
    public var kafkaBootstrap: String
    public var logLevel: Logger.Level
    public var logFormat: LogFormat
    public var runDirectory: String
    /// Options shared by this process's projection runners; see `projectionOptions(for:)`.
    public var projection: ProjectionOptions
    /// Whether `HEARTH_PROJECTION_BATCH_SIZE` was set: it then wins over a projection's own size.
    public var projectionBatchSizeIsSet: Bool
    /// `linger.ms` of the shared producer (`HEARTH_PRODUCER_LINGER_MS`, milliseconds, fractions
    /// allowed; default 0: it batches while a request is in flight instead, see
    /// `KafkaProducerConfiguration.maxInFlightRequests`).
    public var producerLingerMs: Double
    /// How long an event may wait for Kafka's acknowledgement (`HEARTH_KAFKA_DELIVERY_TIMEOUT_MS`,
    /// default 10 s); then the send fails and a request answers 503 `event_not_acknowledged`.
    public var producerDeliveryTimeoutMs: Int
    /// Seconds a connection may send nothing (or half a request) before it is closed
    /// (`HEARTH_HTTP_IDLE_TIMEOUT_S`, default 30).
    public var httpIdleTimeoutSeconds: Int
    /// How long a graceful shutdown may take before the process exits anyway
    /// (`HEARTH_SHUTDOWN_TIMEOUT_S`, default 30; see `ShutdownDeadline`).
    public var shutdownTimeoutSeconds: Int
    public var environment: EnvironmentReader
    /// What wraps the data keys that seal personal data in events (`HEARTH_MASTER_KEY`; dev and
    /// test generate one under the run directory, production must set it).
    public var masterKey: MasterKey
    /// Where this process's spans go, if anywhere (`TracingSettings`).
    public var tracing: TracingSettings

    public static let defaultDatabaseURL = "postgres://hearth:hearth@127.0.0.1:55432/hearth"
    public static let defaultKafkaBootstrap = "127.0.0.1:9092"

    public static func load(service: String, defaultPort: Int, environment: EnvironmentReader = EnvironmentReader()) throws -> ServiceSettings {
        let modeText = environment.string("HEARTH_ENV", default: "production")
        guard let mode = Mode(rawValue: modeText) else {
            throw ConfigurationError(variable: "HEARTH_ENV", reason: "expected dev, test or production, got \(modeText)")
        }
        let levelText = environment.string("HEARTH_LOG_LEVEL", default: "info")
        guard let level = Logger.Level(rawValue: levelText) else {
            throw ConfigurationError(variable: "HEARTH_LOG_LEVEL", reason: "expected trace, debug, info, notice, warning, error or critical")
        }
        let formatText = environment.string("HEARTH_LOG_FORMAT", default: "json")
        guard let format = LogFormat(rawValue: formatText) else {
            throw ConfigurationError(variable: "HEARTH_LOG_FORMAT", reason: "expected json or text")
        }
        var projection = ProjectionOptions()
        projection.maxBatchSize = try environment.int("HEARTH_PROJECTION_BATCH_SIZE", default: projection.maxBatchSize, range: 1...100_000)
        projection.linger = .milliseconds(try environment.int("HEARTH_PROJECTION_LINGER_MS", default: 2, range: 0...10_000))
        projection.maxAttempts = try environment.int("HEARTH_PROJECTION_MAX_ATTEMPTS", default: projection.maxAttempts, range: 1...100)
        projection.stuckAfter = .seconds(try environment.int("HEARTH_PROJECTION_STUCK_SECONDS", default: 60, range: 1...86_400))
        projection.commitTimeout = .seconds(try environment.int("HEARTH_PROJECTION_COMMIT_TIMEOUT_SECONDS", default: 300, range: 1...86_400))
        let runDirectory = environment.string("HEARTH_RUN_DIR", default: ".run")
        let masterKey: MasterKey
        do {
            masterKey = try MasterKey.load(environment: environment, runDirectory: runDirectory, allowGenerated: mode != .production)
        } catch {
            throw ConfigurationError(variable: "HEARTH_MASTER_KEY", reason: "\(error)")
        }
        return ServiceSettings(
            serviceName: service,
            mode: mode,
            httpHost: environment.string("HEARTH_HTTP_HOST", default: "127.0.0.1"),
            httpPort: try environment.int("HEARTH_HTTP_PORT", default: defaultPort, range: 0...65535),
            databaseURL: environment.string("HEARTH_DATABASE_URL", default: defaultDatabaseURL),
            kafkaBootstrap: environment.string("HEARTH_KAFKA_BOOTSTRAP", default: defaultKafkaBootstrap),
            logLevel: level,
            logFormat: format,
            runDirectory: runDirectory,
            projection: projection,
            projectionBatchSizeIsSet: environment.values["HEARTH_PROJECTION_BATCH_SIZE"] != nil,
            producerLingerMs: try environment.decimal("HEARTH_PRODUCER_LINGER_MS", default: 0, range: 0...1_000),
            producerDeliveryTimeoutMs: try environment.int("HEARTH_KAFKA_DELIVERY_TIMEOUT_MS", default: 10_000, range: 1_000...300_000),
            httpIdleTimeoutSeconds: try environment.int("HEARTH_HTTP_IDLE_TIMEOUT_S", default: 30, range: 1...3600),
            shutdownTimeoutSeconds: try environment.int("HEARTH_SHUTDOWN_TIMEOUT_S", default: 30, range: 1...3600),
            environment: environment,
            masterKey: masterKey,
            tracing: try TracingSettings.load(environment: environment))
    }
}

extension ServiceSettings {
    /// The runner options for `projection`: its own batch size (`Projection.maxBatchSize`, for
    /// projections whose events are slow to apply) unless `HEARTH_PROJECTION_BATCH_SIZE` is set.
    public func projectionOptions(for projection: any Projection) -> ProjectionOptions {
        var options = self.projection
        if !projectionBatchSizeIsSet, let size = projection.maxBatchSize {
            options.maxBatchSize = size
        }
        return options
    }
}
