import Foundation

/// A person of the household as an assist run sees them: enough to share out chores and build
/// children's routines. `age` is nil when the household gave no birthdate.
public struct AssistMember: Codable, Sendable, Equatable, Hashable {
    public var name: String
    public var role: String
    public var age: Int?

    public init(name: String, role: String, age: Int?) {
        self.name = name
        self.role = role
        self.age = age
    }
}

/// `assist.requested` v1: a user asked for a plan. Published by the gateway once the request is
/// valid and within quota; the assist-orchestrator runs it exactly once. Keyed by the run id.
///
/// The goal is already PII-redacted: the raw text never reaches Kafka. The household's
/// preferences travel with the request (as the gateway read them), so the run needs no database
/// read and plans against what the user saw when asking.
public struct AssistRequested: EventPayload {
    public static let eventType = "assist.requested"
    public static let version = 1
    public static let topic = Topic.assistRequests
    public static let privacy = PayloadPrivacy(
        personal: [
            // The run's key, not the user's: the goal ages out with the run (retention), and is
            // erased with the user, whose runs' keys go with theirs.
            "goal": .run("run_id", erased: .string("")),
            "prefs.kidsAges": .user("user_id", erased: .array([])),
            "prefs.allergies": .user("user_id", erased: .array([])),
            "prefs.cuisines": .user("user_id", erased: .array([])),
            "members[].name": .user("user_id", erased: .string("")),
            "members[].age": .user("user_id"),
        ],
        notPersonal: ["run_id", "user_id", "household_id", "mode", "days", "start_date", "prefs.adults", "members[].role"])

    public var runId: UUID
    public var userId: UUID
    public var householdId: UUID?
    /// `meals`, `chores` or `routines`.
    public var mode: String
    public var goal: String
    public var days: Int
    /// `YYYY-MM-DD`, the first planned day.
    public var startDate: String
    public var prefs: HouseholdPrefs
    public var members: [AssistMember]

    public var aggregateKey: String { runId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case runId = "run_id"
        case userId = "user_id"
        case householdId = "household_id"
        case mode, goal, days
        case startDate = "start_date"
        case prefs, members
    }

    public init(
        runId: UUID, userId: UUID, householdId: UUID?, mode: String, goal: String, days: Int, startDate: String,
        prefs: HouseholdPrefs, members: [AssistMember]
    ) {
        self.runId = runId
        self.userId = userId
        self.householdId = householdId
        self.mode = mode
        self.goal = goal
        self.days = days
        self.startDate = startDate
        self.prefs = prefs
        self.members = members
    }
}

/// `assist.run_started` v1: the orchestrator claimed a request and began the run. First event of
/// every run on `assist.events`; it opens the run's `agent_runs` row.
public struct AssistRunStarted: EventPayload {
    public static let eventType = "assist.run_started"
    public static let version = 1
    public static let topic = Topic.assistEvents
    public static let privacy = PayloadPrivacy(
        personal: ["goal": .run("run_id", erased: .string(""))],
        notPersonal: ["run_id", "user_id", "household_id", "mode", "days", "start_date"])

    public var runId: UUID
    public var userId: UUID
    public var householdId: UUID?
    public var mode: String
    /// PII-redacted.
    public var goal: String
    public var days: Int
    public var startDate: String

    public var aggregateKey: String { runId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case runId = "run_id"
        case userId = "user_id"
        case householdId = "household_id"
        case mode, goal, days
        case startDate = "start_date"
    }

    public init(runId: UUID, userId: UUID, householdId: UUID?, mode: String, goal: String, days: Int, startDate: String) {
        self.runId = runId
        self.userId = userId
        self.householdId = householdId
        self.mode = mode
        self.goal = goal
        self.days = days
        self.startDate = startDate
    }
}

/// `assist.run_event` v1: one event of a run's stream, exactly as clients receive it: `context`,
/// `token`, `tool_call`, `tool_result`, one terminal event (`final`, `refusal`, `error`), `done`.
/// `seq` counts from 1 within the run, so a client resuming with `Last-Event-ID` misses nothing.
public struct AssistRunEvent: EventPayload {
    public static let eventType = "assist.run_event"
    public static let version = 1
    public static let topic = Topic.assistEvents
    public static let privacy = PayloadPrivacy(
        personal: ["data": .run("run_id", erased: .object([:]))],
        notPersonal: ["run_id", "seq", "event", "elapsed_ms"])

    public var runId: UUID
    public var seq: Int
    public var event: String
    public var data: JSONValue
    /// Only on `done`: the run's wall time in the orchestrator.
    public var elapsedMs: Int?

    public var aggregateKey: String { runId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case runId = "run_id"
        case seq, event, data
        case elapsedMs = "elapsed_ms"
    }

    public init(runId: UUID, seq: Int, event: String, data: JSONValue, elapsedMs: Int? = nil) {
        self.runId = runId
        self.seq = seq
        self.event = event
        self.data = data
        self.elapsedMs = elapsedMs
    }
}

/// One call to a model provider during a run (fallbacks and failures included).
public struct AssistModelAttempt: Codable, Sendable, Equatable, Hashable {
    /// `planning` or `synthesis`.
    public var phase: String
    public var provider: String
    public var model: String
    public var inputTokens: Int
    public var outputTokens: Int
    public var costCents: Double
    public var latencyMs: Int
    /// `ok`, or why the router moved on (`error`, `budget`, `timeout`, ...).
    public var outcome: String
    public var error: String?

    enum CodingKeys: String, CodingKey {
        case phase, provider, model
        case inputTokens = "input_tokens"
        case outputTokens = "output_tokens"
        case costCents = "cost_cents"
        case latencyMs = "latency_ms"
        case outcome, error
    }

    public init(
        phase: String, provider: String, model: String, inputTokens: Int, outputTokens: Int, costCents: Double,
        latencyMs: Int, outcome: String, error: String?
    ) {
        self.phase = phase
        self.provider = provider
        self.model = model
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.costCents = costCents
        self.latencyMs = latencyMs
        self.outcome = outcome
        self.error = error
    }
}

/// `assist.run_completed` v1: the run's outcome and what it cost, published after its terminal
/// event and before `done`. Closes the `agent_runs` row and fills `run_metrics`.
public struct AssistRunCompleted: EventPayload {
    public static let eventType = "assist.run_completed"
    public static let version = 1
    public static let topic = Topic.assistEvents
    public static let privacy = PayloadPrivacy(
        personal: ["attempts[].error": .run("run_id")],
        notPersonal: [
            "run_id", "outcome", "elapsed_ms", "input_tokens", "output_tokens", "cost_cents", "models_used",
            "attempts[].phase", "attempts[].provider", "attempts[].model", "attempts[].input_tokens",
            "attempts[].output_tokens", "attempts[].cost_cents", "attempts[].latency_ms", "attempts[].outcome",
        ])

    public var runId: UUID
    /// `succeeded`, `refused` or `failed`.
    public var outcome: String
    public var elapsedMs: Int
    public var inputTokens: Int
    public var outputTokens: Int
    public var costCents: Double
    /// `provider/model` → successful calls, as the seed's `models_used`.
    public var modelsUsed: [String: Int]
    public var attempts: [AssistModelAttempt]

    public var aggregateKey: String { runId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case runId = "run_id"
        case outcome
        case elapsedMs = "elapsed_ms"
        case inputTokens = "input_tokens"
        case outputTokens = "output_tokens"
        case costCents = "cost_cents"
        case modelsUsed = "models_used"
        case attempts
    }

    public init(
        runId: UUID, outcome: String, elapsedMs: Int, inputTokens: Int, outputTokens: Int, costCents: Double,
        modelsUsed: [String: Int], attempts: [AssistModelAttempt]
    ) {
        self.runId = runId
        self.outcome = outcome
        self.elapsedMs = elapsedMs
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.costCents = costCents
        self.modelsUsed = modelsUsed
        self.attempts = attempts
    }
}

/// An `assist.run_event` read straight from its envelope's JSON text, `data` kept as the exact
/// text the orchestrator wrote: what the gateway streams and the replay table stores, byte for
/// byte the same, without decoding (and re-encoding) a large plan on every hop.
public struct AssistRunEventText: Sendable, Equatable {
    public var runId: String
    public var seq: Int
    public var event: String
    /// JSON text of the event's data.
    public var data: String
    public var elapsedMs: Int?

    public init(runId: String, seq: Int, event: String, data: String, elapsedMs: Int?) {
        self.runId = runId
        self.seq = seq
        self.event = event
        self.data = data
        self.elapsedMs = elapsedMs
    }

    /// Reads an `assist.run_event` v1 envelope. Nil when the text is not one.
    public init?(envelope bytes: [UInt8]) {
        guard let payload = RawJSON.range(at: ["data"], of: bytes),
              let fields = RawJSON.fields(["run_id", "seq", "event", "data", "elapsed_ms"], inObjectAt: payload.lowerBound, of: bytes),
              let runRange = fields["run_id"], let seqRange = fields["seq"], let eventRange = fields["event"], let dataRange = fields["data"],
              let runId = RawEnvelope.string(bytes[runRange]), let event = RawEnvelope.string(bytes[eventRange]),
              let seq = Int(String(decoding: bytes[seqRange], as: UTF8.self))
        else { return nil }
        var elapsed: Int?
        if let range = fields["elapsed_ms"] {
            let text = String(decoding: bytes[range], as: UTF8.self)
            if text != "null" {
                guard let value = Int(text) else { return nil }
                elapsed = value
            }
        }
        self.init(runId: runId, seq: seq, event: event, data: String(decoding: bytes[dataRange], as: UTF8.self), elapsedMs: elapsed)
    }
}

extension Envelope where Payload == AssistRunEvent {
    /// The envelope as JSON text, written by hand: the same document `EventCatalogue.encode`
    /// produces (same keys, same values), several times faster for the large `final` plans a run
    /// publishes on its critical path. Covered by a test that decodes both and compares.
    /// `sealedData`: the sealed form of `data` (see `PayloadPrivacy`), written in its place.
    public func jsonBytes(sealedData: String? = nil) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        var first = true
        func key(_ name: String) {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            JSONText.appendString(name, to: &out)
            out.append(UInt8(ascii: ":"))
        }
        out.append(UInt8(ascii: "{"))
        key("id"); JSONText.appendString(metadata.id.uuidString, to: &out)
        key("type"); JSONText.appendString(metadata.type, to: &out)
        key("version"); JSONText.appendInteger(metadata.version, to: &out)
        key("key"); JSONText.appendString(metadata.key, to: &out)
        key("occurred_at"); JSONText.appendString(Timestamp.format(metadata.occurredAt), to: &out)
        key("correlation_id"); JSONText.appendString(metadata.correlationId, to: &out)
        if let causation = metadata.causationId { key("causation_id"); JSONText.appendString(causation, to: &out) }
        key("source"); JSONText.appendString(metadata.source, to: &out)
        key("data")
        out.append(UInt8(ascii: "{"))
        JSONText.appendString("run_id", to: &out); out.append(UInt8(ascii: ":")); JSONText.appendString(data.runId.uuidString, to: &out)
        out.append(contentsOf: #","seq":"#.utf8); JSONText.appendInteger(data.seq, to: &out)
        out.append(contentsOf: #","event":"#.utf8); JSONText.appendString(data.event, to: &out)
        out.append(contentsOf: #","data":"#.utf8)
        if let sealedData { JSONText.appendString(sealedData, to: &out) } else { try data.data.write(to: &out) }
        if let elapsed = data.elapsedMs { out.append(contentsOf: #","elapsed_ms":"#.utf8); JSONText.appendInteger(elapsed, to: &out) }
        out.append(contentsOf: "}}".utf8)
        return out
    }
}

/// `assist.run_expired` v1: the run is older than the retention period and its key was destroyed:
/// what it said (goal, events, errors) is gone; its counts and costs stay. Keyed by the run, so it
/// follows the run's own events on their partition (and in every replay).
public struct AssistRunExpired: EventPayload {
    public static let eventType = "assist.run_expired"
    public static let version = 1
    public static let topic = Topic.assistEvents
    public static let privacy = PayloadPrivacy.nothingPersonal(["run_id"])

    public var runId: UUID

    public var aggregateKey: String { runId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case runId = "run_id"
    }

    public init(runId: UUID) {
        self.runId = runId
    }
}
