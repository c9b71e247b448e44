import HearthStore
import Hummingbird
import Synchronization
import Tracing

/// One server span per request, the root of the request's trace, current while the handler runs:
/// the events it publishes carry it on.
///
/// A `traceparent` or `tracestate` the caller sent is ignored: on a public API it would let any
/// client force its requests into the sample, pick trace ids that merge into someone else's
/// trace, and have its own text copied into every event of the request. Only what identifies the
/// call is recorded (method, the matched route pattern, status, the request and correlation ids):
/// never the raw path or query, which can hold what a user typed. The span of a streamed answer
/// ends when its last byte is written. The ops routes (`/metrics`, `/readyz`, `/healthz`),
/// polled every few seconds, make no trace. Installed only when tracing is on (`TracingSetup`).
public struct RequestTracingMiddleware: RouterMiddleware {
    public typealias Context = HearthRequestContext

    static let untracedPaths: Set<String> = ["/metrics", "/readyz", "/healthz", "/livez"]

    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !Self.untracedPaths.contains(request.uri.path),
              let span = EventTracing.startSpan("HTTP \(request.method.rawValue)", context: .topLevel, ofKind: .server)
        else { return try await next(request, context) }
        span.attributes["http.request.method"] = request.method.rawValue
        span.attributes["hearth.request_id"] = context.requestId
        span.attributes["hearth.correlation_id"] = context.correlationId
        do {
            var response = try await ServiceContext.$current.withValue(span.context) {
                try await next(request, context)
            }
            describe(span, route: context.endpointPath, status: response.status.code)
            let body = response.body
            let ending = SpanEnding(span)
            response.body = ResponseBody(contentLength: body.contentLength) { writer in
                // Ends with the last byte, or with the failure to write it (a client gone).
                defer { ending.end() }
                do {
                    try await body.write(writer)
                } catch {
                    span.recordError(error)
                    throw error
                }
            }
            return response
        } catch {
            let status = APIError.from(error)?.status.code ?? 500
            describe(span, route: context.endpointPath, status: status)
            if status >= 500 {
                span.recordError(error)
                span.setStatus(SpanStatus(code: .error))
            }
            span.end()
            throw error
        }
    }

    private func describe(_ span: any Span, route: String?, status: Int) {
        let route = route ?? "unmatched"
        span.operationName = "\(span.operationName) \(route)"
        span.attributes["http.route"] = route
        span.attributes["http.response.status_code"] = status
    }
}

/// Ends a request's span exactly once: when its body is written, or, when the server never gets
/// to write it (the response head could not be sent), when the body is let go.
private final class SpanEnding: Sendable {
    let span: any Span
    private let ended = Atomic<Bool>(false)

    init(_ span: any Span) { self.span = span }

    func end() {
        if !ended.exchange(true, ordering: .acquiringAndReleasing) { span.end() }
    }

    deinit { end() }
}
