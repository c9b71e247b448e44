import Hummingbird
import Metrics

/// Request counts and duration histograms by method, route (the matched pattern, never the raw
/// path, so ids do not explode the label space) and status.
public struct RequestMetricsMiddleware: RouterMiddleware {
    public typealias Context = HearthRequestContext

    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        var status = 500
        defer {
            let route = context.endpointPath ?? "unmatched"
            let dimensions = [("method", request.method.rawValue), ("route", route), ("status", String(status))]
            Counter(label: "hearth_http_requests_total", dimensions: dimensions).increment()
            Timer(label: "hearth_http_request_duration_seconds", dimensions: dimensions).record(duration: ContinuousClock.now - started)
        }
        do {
            let response = try await next(request, context)
            status = response.status.code
            return response
        } catch {
            status = APIError.from(error)?.status.code ?? 500
            throw error
        }
    }
}
