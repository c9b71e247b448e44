import Foundation

/// One event of an assist stream as a client reads it off the wire.
struct StreamedEvent {
    let event: String
    let seq: Int
    let runId: String
    let data: Any
    let elapsedMs: Int?
    /// The JSON object's exact text (the `data:` line of SSE, or the NDJSON line).
    let text: String
    /// SSE only: the `id:` and `event:` fields.
    let sseId: String?
    let sseEvent: String?

    var object: [String: Any] { data as? [String: Any] ?? [:] }
}

/// The assist stream's two wire formats, parsed strictly: anything that is not a well-formed
/// frame fails the test.
enum AssistWire: String, CaseIterable {
    case sse = "text/event-stream"
    case ndjson = "application/x-ndjson"

    struct Malformed: Error, CustomStringConvertible {
        let reason: String
        var description: String { "malformed stream: \(reason)" }
    }

    func parse(_ body: Data) throws -> (events: [StreamedEvent], heartbeats: Int) {
        let text = String(decoding: body, as: UTF8.self)
        switch self {
        case .ndjson:
            var events: [StreamedEvent] = []
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.isEmpty { continue }
                events.append(try Self.event(String(line), id: nil, name: nil))
            }
            guard text.isEmpty || text.hasSuffix("\n") else { throw Malformed(reason: "last line not terminated") }
            return (events, 0)
        case .sse:
            var events: [StreamedEvent] = []
            var heartbeats = 0
            let frames = text.components(separatedBy: "\n\n")
            guard frames.last == "" else { throw Malformed(reason: "last frame not terminated by a blank line") }
            for frame in frames.dropLast() {
                var id: String?, name: String?, data: String?
                for line in frame.split(separator: "\n") {
                    if line.hasPrefix(":") { heartbeats += 1; continue }
                    guard let colon = line.firstIndex(of: ":") else { throw Malformed(reason: "line without a field: \(line)") }
                    let field = line[..<colon]
                    var value = line[line.index(after: colon)...]
                    if value.hasPrefix(" ") { value = value.dropFirst() }
                    switch field {
                    case "id": id = String(value)
                    case "event": name = String(value)
                    case "data": data = String(value)
                    default: throw Malformed(reason: "unknown field \(field)")
                    }
                }
                guard let data else { continue }
                events.append(try Self.event(data, id: id, name: name))
            }
            return (events, heartbeats)
        }
    }

    private static func event(_ text: String, id: String?, name: String?) throws -> StreamedEvent {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) as? [String: Any],
              let event = object["event"] as? String, let seq = object["seq"] as? Int, let runId = object["run_id"] as? String,
              let data = object["data"]
        else { throw Malformed(reason: "not an event object: \(text)") }
        return StreamedEvent(
            event: event, seq: seq, runId: runId, data: data, elapsedMs: object["elapsed_ms"] as? Int, text: text,
            sseId: id, sseEvent: name)
    }
}

/// Starts the two executables an assist run needs, the orchestrator first (its consumer group
/// join is the slow part), and hands both to `body`.
enum AssistStack {
    static func with<T>(
        gateway gatewayEnvironment: [String: String] = [:], orchestrator orchestratorEnvironment: [String: String] = [:],
        _ body: (_ gateway: ServiceProcess, _ orchestrator: ServiceProcess) async throws -> T
    ) async throws -> T {
        // Assist tests make many requests from one address; the rate limit is tested elsewhere.
        let gatewayEnvironment = ["HEARTH_RATE_LIMIT_PER_MIN": "100000"].merging(gatewayEnvironment) { _, new in new }
        return try await ServiceProcess.with("assist-orchestrator", environment: orchestratorEnvironment) { orchestrator in
            try await ServiceProcess.with("gateway", environment: gatewayEnvironment) { gateway in
                try await body(gateway, orchestrator)
            }
        }
    }

    /// One run over HTTP, read to its end. Fails unless the status is 200 and the body parses.
    static func run(
        _ gateway: ServiceProcess, user: GatewayUser, _ body: [String: Any], wire: AssistWire = .sse
    ) async throws -> (events: [StreamedEvent], reply: HTTPTestClient.Reply) {
        let reply = try await HTTPTestClient.postJSON(
            gateway.baseURL.appendingPathComponent("v1/assist/stream"), body, headers: user.headers(["Accept": wire.rawValue]))
        guard reply.status == 200 else {
            throw AssistWire.Malformed(reason: "status \(reply.status): \(String(decoding: reply.body, as: UTF8.self))")
        }
        return (try wire.parse(reply.body).events, reply)
    }

    /// Polls `GET /v1/assist/runs/{id}` until the read model has the finished run.
    static func finishedRun(_ gateway: ServiceProcess, user: GatewayUser, runId: String, timeout: Duration = .seconds(10)) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + timeout
        var last: [String: Any] = [:]
        while ContinuousClock.now < deadline {
            let reply = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/assist/runs/\(runId)"), headers: user.headers)
            if reply.status == 200 {
                last = reply.json
                if let state = last["state"] as? String, state != "running" { return last }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw AssistWire.Malformed(reason: "run \(runId) not finished in the read model: \(last)")
    }
}

/// The checks every complete stream must pass: seqs 1...n in order on one run id, `context`
/// first, exactly one terminal event, `done` last with `elapsed_ms` at the top level, and (for
/// SSE) `id:`/`event:` matching the object.
func expectWellFormedStream(_ events: [StreamedEvent], terminal expected: String, wire: AssistWire) throws -> [StreamedEvent] {
    struct Broken: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }
    func check(_ condition: Bool, _ reason: @autoclosure () -> String) throws {
        if !condition { throw Broken(reason: reason() + " in " + events.map { "\($0.seq):\($0.event)" }.joined(separator: " ")) }
    }
    try check(!events.isEmpty, "no events")
    try check(events.map(\.seq) == Array(1...events.count), "seqs are not 1...n")
    try check(Set(events.map(\.runId)).count == 1, "more than one run id")
    // A request over quota never starts a run: its stream is only the terminal event and done.
    if expected != "quota_exceeded" { try check(events.first?.event == "context", "context is not first") }
    let terminals = events.filter { ["final", "refusal", "quota_exceeded", "error"].contains($0.event) }
    try check(terminals.count == 1 && terminals[0].event == expected, "expected exactly one terminal \(expected)")
    try check(events.last?.event == "done" && events.last?.elapsedMs != nil, "done with elapsed_ms is not last")
    try check(events[events.count - 2].event == expected, "the terminal event does not come right before done")
    let allowed: Set<String> = ["context", "token", "tool_call", "tool_result", expected, "done"]
    try check(events.allSatisfy { allowed.contains($0.event) }, "unexpected event names")
    if wire == .sse {
        try check(events.allSatisfy { $0.sseId == String($0.seq) && $0.sseEvent == $0.event }, "SSE id/event fields do not match the objects")
    }
    return terminals
}
