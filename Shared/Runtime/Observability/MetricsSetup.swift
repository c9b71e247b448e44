import Metrics
import Prometheus

/// The process-wide Prometheus registry behind swift-metrics; `/metrics` renders it.
public enum MetricsSetup {
    public static let registry = PrometheusCollectorRegistry()

    /// Call once per process, before any metric is recorded.
    public static func bootstrap() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
            .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
            .milliseconds(500), .seconds(1), .seconds(2), .seconds(5), .seconds(10),
        ]
        MetricsSystem.bootstrap(factory)
    }
}
