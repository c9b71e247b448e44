import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// The outermost middleware: gives every request an id (echoed in `X-Request-Id`), puts the ids on
/// the request's logger, turns every error into the JSON error body, and logs one line per request.
public struct RequestIdMiddleware: RouterMiddleware {
    public typealias Context = HearthRequestContext

    static let requestIdHeader = HTTPField.Name("X-Request-Id")!
    static let correlationIdHeader = HTTPField.Name("X-Correlation-Id")!

    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let requestId = Self.sanitized(request.headers[Self.requestIdHeader]) ?? UUID().uuidString.lowercased()
        context.requestId = requestId
        context.correlationId = Self.sanitized(request.headers[Self.correlationIdHeader]) ?? requestId
        context.logger[metadataKey: "request_id"] = .string(requestId)
        context.logger[metadataKey: "correlation_id"] = .string(context.correlationId)
        let started = ContinuousClock.now
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            if let apiError = APIError.from(error) {
                response = apiError.response(requestId: requestId)
            } else {
                context.logger.error("request failed", metadata: ["error": "\(String(reflecting: type(of: error)))", "detail": "\(error)"])
                response = APIError(.internalServerError, code: "internal", message: "something went wrong; quote the request id when reporting it")
                    .response(requestId: requestId)
            }
        }
        response.headers[Self.requestIdHeader] = requestId
        let elapsed = ContinuousClock.now - started
        let level: Logger.Level = response.status.code >= 500 ? .error : .debug
        context.logger.log(level: level, "request", metadata: [
            "method": "\(request.method.rawValue)", "path": "\(request.uri.path)", "status": "\(response.status.code)",
            "duration_ms": "\(Double(elapsed.components.attoseconds / 1_000_000_000_000) / 1000 + Double(elapsed.components.seconds) * 1000)",
        ])
        return response
    }

    /// Accepts client ids of sane length and characters, so they can go into logs unescaped.
    static func sanitized(_ value: String?) -> String? {
        guard let value, (1...128).contains(value.utf8.count),
              value.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
        else { return nil }
        return value
    }
}
