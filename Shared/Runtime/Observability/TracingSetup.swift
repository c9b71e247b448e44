import HearthConfiguration
import HearthStore
import Logging
import OTel
import ServiceLifecycle
import Tracing

/// Where spans go: an OTLP/HTTP collector (Jaeger, Tempo, the OpenTelemetry Collector), or
/// nowhere. Off unless `HEARTH_OTLP_ENDPOINT` is set: `make run` and the tests have no collector,
/// compose has Jaeger.
public struct TracingSettings: Sendable, Equatable {
    public enum WireFormat: String, Sendable { case protobuf = "http/protobuf", json = "http/json" }

    /// The collector's base URL (`http://jaeger:4318`); spans are posted to `<endpoint>/v1/traces`.
    public var endpoint: String?
    /// The share of new traces recorded (`HEARTH_TRACE_SAMPLE_RATIO`, 0…1, default 1). A trace
    /// that arrives with a request or an event keeps its sampling decision, so a trace is whole
    /// or absent, never cut at a hop.
    public var sampleRatio: Double
    /// `HEARTH_OTLP_PROTOCOL`: `http/protobuf` (default) or `http/json`.
    public var wireFormat: WireFormat

    public var isEnabled: Bool { endpoint != nil }

    /// The endpoint for logs: a password in its user part (`https://user:token@…`) is not printed.
    public var redactedEndpoint: String? {
        guard let endpoint, let scheme = endpoint.range(of: "://") else { return endpoint }
        let rest = endpoint[scheme.upperBound...]
        let authority = rest.prefix { $0 != "/" }
        guard let at = authority.lastIndex(of: "@") else { return endpoint }
        return String(endpoint[..<scheme.upperBound]) + "…@" + String(rest[rest.index(after: at)...])
    }

    public static func load(environment: EnvironmentReader) throws -> TracingSettings {
        let endpoint = environment.optionalString("HEARTH_OTLP_ENDPOINT")
        if let endpoint, !(endpoint.hasPrefix("http://") || endpoint.hasPrefix("https://")) {
            throw ConfigurationError(variable: "HEARTH_OTLP_ENDPOINT", reason: "expected an http:// or https:// URL, got \(endpoint)")
        }
        let formatText = environment.string("HEARTH_OTLP_PROTOCOL", default: WireFormat.protobuf.rawValue)
        guard let format = WireFormat(rawValue: formatText) else {
            throw ConfigurationError(variable: "HEARTH_OTLP_PROTOCOL", reason: "expected http/protobuf or http/json, got \(formatText)")
        }
        return TracingSettings(
            endpoint: endpoint.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 },
            sampleRatio: try environment.decimal("HEARTH_TRACE_SAMPLE_RATIO", default: 1, range: 0...1),
            wireFormat: format)
    }
}

/// Installs the process's tracer. One way for every executable: the host calls it at start-up
/// and runs the service it returns (the batching exporter) first, so it stops last and sends
/// the spans of everything that stopped before it. The tracer is Hearth's own (`EventTracing`),
/// not `InstrumentationSystem`'s: libraries that trace through the global one stay untraced.
/// swift-otel's own `OTEL_*` variables, when set, override what is configured here.
public enum TracingSetup {
    /// The exporter to run beside the process's services, or nil when tracing is off.
    public static func bootstrap(service: String, settings: TracingSettings, logger: Logger) throws -> (any Service)? {
        guard let endpoint = settings.endpoint else { return nil }
        var configuration = OTel.Configuration.default
        configuration.serviceName = "hearth-\(service)"
        configuration.diagnosticLogger = .custom(logger)
        configuration.diagnosticLogLevel = .warning
        // Logs and metrics have their own paths (JSON lines on stdout, Prometheus on /metrics).
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.enabled = true
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.endpoint = "\(endpoint)/v1/traces"
        configuration.traces.otlpExporter.protocol = settings.wireFormat == .json ? .httpJSON : .httpProtobuf
        // A trace should be readable a moment after the request, not after the default 5 s.
        configuration.traces.batchSpanProcessor.scheduleDelay = .seconds(1)
        configuration.traces.sampler = settings.sampleRatio >= 1
            ? .parentBasedAlwaysOn
            : (.parentBasedTraceIDRatio(ratio: settings.sampleRatio) ?? .parentBasedAlwaysOn)
        configuration.propagators = [.traceContext]
        let (tracer, exporter) = try OTel.makeTracingBackend(configuration: configuration)
        EventTracing.install(tracer)
        logger.info("tracing on", metadata: ["otlp_endpoint": "\(settings.redactedEndpoint ?? "")", "sample_ratio": "\(settings.sampleRatio)"])
        return exporter
    }
}
