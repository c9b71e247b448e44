import Foundation
import HearthEvents
import HearthRuntime
import Hummingbird

/// A JSON answer built as a `JSONValue` (tracking logs are the detail's fields beside the log's
/// own, whatever the kind).
struct TrackingJSON: ResponseGenerator {
    var status: HTTPResponse.Status = .ok
    var value: JSONValue

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }

    /// A refusal that carries the log it is about: `{"error": {...}, "current": log}`.
    static func conflict(code: String, message: String, field: String? = nil, current: StoredLog, requestId: String) -> TrackingJSON {
        var error: [String: JSONValue] = [
            "code": .string(code), "message": .string(message), "request_id": .string(requestId),
        ]
        if let field { error["field"] = .string(field) }
        return TrackingJSON(status: .conflict, value: .object(["error": .object(error), "current": current.json]))
    }
}

/// A warning in a write's answer: accepted, but worth a second look.
struct TrackingWarning: Sendable {
    var code: String
    var message: String
    var field: String?

    var json: JSONValue {
        var fields: [String: JSONValue] = ["code": .string(code), "message": .string(message)]
        if let field { fields["field"] = .string(field) }
        return .object(fields)
    }
}
