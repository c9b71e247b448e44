import Hummingbird
import Metrics
import Synchronization

/// Request counts and duration histograms by method, route (the matched pattern, never the raw
/// path, so ids do not explode the label space) and status.
public struct RequestMetricsMiddleware: RouterMiddleware {
    public typealias Context = HearthRequestContext

    private let instruments = RequestInstruments()

    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        var status = 500
        defer {
            let recorders = instruments.recorders(method: request.method.rawValue, route: context.endpointPath ?? "unmatched", status: status)
            recorders.requests.increment()
            recorders.duration.record(duration: ContinuousClock.now - started)
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

/// The counter and timer of each (method, route, status), made once and reused: making them
/// per request goes through the metrics factory and the Prometheus registry's lock, and builds
/// the label set anew every time. The label space is bounded by the routes the router knows.
final class RequestInstruments: Sendable {
    struct Key: Hashable {
        let method: String
        let route: String
        let status: Int
    }

    struct Recorders: Sendable {
        let requests: Counter
        let duration: Metrics.Timer
    }

    private let made = Mutex<[Key: Recorders]>([:])

    func recorders(method: String, route: String, status: Int) -> Recorders {
        let key = Key(method: method, route: route, status: status)
        if let known = made.withLock({ $0[key] }) { return known }
        let dimensions = [("method", method), ("route", route), ("status", String(status))]
        let recorders = Recorders(
            requests: Counter(label: "hearth_http_requests_total", dimensions: dimensions),
            duration: Metrics.Timer(label: "hearth_http_request_duration_seconds", dimensions: dimensions))
        // Two first requests may both make them; the registry hands both the same series.
        made.withLock { $0[key] = recorders }
        return recorders
    }
}
