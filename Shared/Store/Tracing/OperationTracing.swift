import Tracing

/// A span around one step of the work a request causes (a model call, a tool), child of the
/// current span. Without tracing (`EventTracing.isEnabled` false) it only runs the step, and the
/// step sees no span.
public enum OperationTracing {
    public static func span<T>(
        _ name: String, attributes: [String: String] = [:], ofKind kind: SpanKind = .internal,
        isolation: isolated (any Actor)? = #isolation, _ body: ((any Span)?) async throws -> T
    ) async rethrows -> T {
        guard EventTracing.isEnabled else { return try await body(nil) }
        return try await withSpan(name, ofKind: kind) { span in
            for (key, value) in attributes { span.attributes[key] = value }
            return try await body(span)
        }
    }
}
