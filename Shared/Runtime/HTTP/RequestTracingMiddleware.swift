import HTTPTypes
import Hummingbird
import Tracing

/// One server span per request, joined to the caller's trace when the request carries a W3C
/// `traceparent`, and current while the handler runs: the events it publishes carry it on.
///
/// Only what identifies the call is recorded (method, the matched route pattern, status, the
/// request and correlation ids): never the raw path or query, which can hold what a user typed.
/// The span of a streamed answer ends when its last byte is written. Installed only when tracing
/// is on (`TracingSetup`).
public struct RequestTracingMiddleware: RouterMiddleware {
    public typealias Context = HearthRequestContext

    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var parent = ServiceContext.current ?? .topLevel
        InstrumentationSystem.instrument.extract(request.headers, into: &parent, using: HTTPFieldsExtractor())
        let span = startSpan("HTTP \(request.method.rawValue)", context: parent, ofKind: .server)
        span.attributes["http.request.method"] = request.method.rawValue
        span.attributes["hearth.request_id"] = context.requestId
        span.attributes["hearth.correlation_id"] = context.correlationId
        do {
            var response = try await ServiceContext.$current.withValue(span.context) {
                try await next(request, context)
            }
            describe(span, route: context.endpointPath, status: response.status.code)
            let body = response.body
            response.body = ResponseBody(contentLength: body.contentLength) { writer in
                defer { span.end() }
                try await body.write(writer)
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

/// Reads the propagator's fields (`traceparent`, `tracestate`) from the request's headers.
private struct HTTPFieldsExtractor: Extractor {
    func extract(key: String, from carrier: HTTPFields) -> String? {
        HTTPField.Name(key).flatMap { carrier[$0] }
    }
}
