import Foundation
import HTTPTypes
import NIOCore

/// The two wire formats of a run's stream, chosen by `Accept`:
/// - `text/event-stream` (SSE, the default): `id: <seq>`, `event: <name>`, `data: <json>`, blank
///   line; a `: heartbeat` comment keeps idle connections open;
/// - `application/x-ndjson`: one JSON object per line.
/// Either way each object is `{"event", "data", "seq", "run_id"}`, and `done` also carries
/// `elapsed_ms` at the top level.
enum RunStreamFormat: Sendable {
    case serverSentEvents
    case ndjson

    init(accept: String?) {
        let accepted = (accept ?? "").lowercased()
        self = accepted.contains("application/x-ndjson") && !accepted.contains("text/event-stream") ? .ndjson : .serverSentEvents
    }

    var contentType: String {
        switch self {
        case .serverSentEvents: "text/event-stream; charset=utf-8"
        case .ndjson: "application/x-ndjson; charset=utf-8"
        }
    }

    /// Headers of a stream response: no caching, no proxy buffering.
    var headers: HTTPFields {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.cacheControl] = "no-cache"
        if let buffering = HTTPField.Name("X-Accel-Buffering") { headers[buffering] = "no" }
        return headers
    }

    /// The JSON object of one event. `data` is already JSON; names are Hearth's own (no escaping needed).
    static func object(_ event: RunStreamEventText, runId: String) -> String {
        var text = #"{"event":"\#(event.event)","data":\#(event.data),"seq":\#(event.seq),"run_id":"\#(runId)""#
        if let elapsed = event.elapsedMs { text += #","elapsed_ms":\#(elapsed)"# }
        return text + "}"
    }

    func frame(_ event: RunStreamEventText, runId: String) -> ByteBuffer {
        let object = Self.object(event, runId: runId)
        switch self {
        case .serverSentEvents:
            return ByteBuffer(string: "id: \(event.seq)\nevent: \(event.event)\ndata: \(object)\n\n")
        case .ndjson:
            return ByteBuffer(string: object + "\n")
        }
    }

    /// A keep-alive: an SSE comment. NDJSON has no comment syntax, so it gets none: every line
    /// of it is an event.
    var heartbeat: ByteBuffer? {
        switch self {
        case .serverSentEvents: ByteBuffer(string: ": heartbeat\n\n")
        case .ndjson: nil
        }
    }
}
