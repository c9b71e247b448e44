import Foundation
import HearthEvents
import HearthKafka
import HearthStore
import HTTPTypes
import Hummingbird
import PostgresNIO

/// Every error a client sees: `{"error": {"code", "message", "field"?, "request_id"}}`.
public struct APIError: Error, Sendable {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String
    public var field: String?
    public var headers: HTTPFields

    public init(_ status: HTTPResponse.Status, code: String, message: String, field: String? = nil, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.headers = headers
    }

    public static func invalid(_ field: String, _ message: String) -> APIError {
        APIError(.badRequest, code: "invalid_request", message: Excerpt.clipped(message, to: 400), field: Excerpt.clipped(field, to: 200))
    }

    public static func notFound(_ what: String) -> APIError {
        APIError(.notFound, code: "not_found", message: "\(what) not found")
    }

    struct Body: Encodable {
        struct Detail: Encodable {
            let code: String
            let message: String
            let field: String?
            let requestId: String

            enum CodingKeys: String, CodingKey {
                case code, message, field
                case requestId = "request_id"
            }
        }
        let error: Detail
    }

    func response(requestId: String) -> Response {
        let body = Body(error: .init(code: code, message: message, field: field, requestId: requestId))
        let data = (try? JSONEncoder().encode(body)) ?? Data(#"{"error":{"code":"internal"}}"#.utf8)
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Maps errors from anywhere in a request to what the client is told.
    static func from(_ error: any Error) -> APIError? {
        switch error {
        case let error as APIError:
            return error
        case let error as HTTPError:
            let code: String = switch error.status {
            case .notFound: "not_found"
            case .contentTooLarge: "payload_too_large"
            case .methodNotAllowed: "method_not_allowed"
            case .unauthorized: "unauthorized"
            case .badRequest: "invalid_request"
            default: error.status.code >= 500 ? "internal" : "http_\(error.status.code)"
            }
            return APIError(error.status, code: code, message: error.body ?? error.status.reasonPhrase, headers: error.headers)
        case let error as KafkaError where error.code == KafkaErrorCode.messageSizeTooLarge:
            // The request's event is bigger than Kafka takes: nothing was written, and the same
            // request will never fit. The routes' own limits should make this unreachable.
            return APIError(.contentTooLarge, code: "payload_too_large", message: "the change is too large to record")
        case let error as KafkaError where error.isRetriable && !error.isFatal:
            // Kafka did not acknowledge in time (a broker down, `HEARTH_KAFKA_DELIVERY_TIMEOUT_MS`):
            // the change may or may not have been recorded; the client retries.
            return APIError(.serviceUnavailable, code: "event_not_acknowledged", message: "the change was not acknowledged in time; retry shortly",
                            headers: [.retryAfter: "1"])
        case _ where FailureClassification.underlying(error) is PSQLError && FailureClassification.isTransient(error):
            // Postgres restarting, failing over or refusing connections: what the request was
            // doing may or may not have been recorded (a COMMIT whose answer was lost); the client
            // retries, with its Idempotency-Key if the request changes something.
            return APIError(.serviceUnavailable, code: "database_unavailable", message: "the database is not answering right now; retry shortly",
                            headers: [.retryAfter: "1"])
        default:
            return nil
        }
    }
}
