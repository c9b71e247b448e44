import Tracing

/// A span around one step of the work a request causes (a model call, a tool), child of the
/// current span. Without tracing, or outside any trace, it only runs the step, which then sees no span.
public enum OperationTracing {
    public static func span<T>(
        _ name: String, attributes: [String: String] = [:], ofKind kind: SpanKind = .internal,
        isolation: isolated (any Actor)? = #isolation, _ body: ((any Span)?) async throws -> T
    ) async rethrows -> T {
        guard EventTracing.isEnabled, let parent = ServiceContext.current, let span = EventTracing.startSpan(name, context: parent, ofKind: kind) else {
            return try await body(nil)
        }
        for (key, value) in attributes { span.attributes[key] = value }
        return try await EventTracing.run(in: span) { try await body($0) }
    }
}
