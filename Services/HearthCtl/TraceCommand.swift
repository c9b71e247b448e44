import ArgumentParser
import Foundation
import HearthEvents
import HearthPrivacy
import PostgresNIO

struct TraceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Every event of a causal chain across all topics, as a tree by causation id, with the latency between steps.",
        discussion: "Reads the event archive, so it answers quickly however long the topics are.")

    @Argument(help: "A correlation id, or an aggregate key such as a run id or household id, or an event id.")
    var id: String

    @Flag(help: "Print JSON instead of a tree.")
    var json = false

    @Flag(help: "Print each hop's delay instead of the tree: every event in the order it happened, the time since the first and since the one before, and its archive commit.")
    var timings = false

    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        if json && timings { throw ValidationError("--json and --timings cannot be combined") }
    }

    func run() async throws {
        let id = id
        // Compared as a uuid, so that the event id index answers; text that is no uuid matches no event id.
        let eventId = UUID(uuidString: id)
        let logger = CLILogging.logger()
        let (events, details) = try await connection.withPostgres(logger: logger) { client in
            let rows = try await client.query(
                #"""
                WITH chains AS (
                    SELECT DISTINCT correlation_id FROM event_log
                    WHERE correlation_id = \#(id) OR key = \#(id) OR event_id = \#(eventId)
                )
                SELECT topic, partition, "offset", envelope::text,
                       CASE WHEN current_setting('track_commit_timestamp') = 'on' THEN pg_xact_commit_timestamp(xmin) END
                FROM event_log
                WHERE correlation_id IN (SELECT correlation_id FROM chains)
                ORDER BY occurred_at, topic, partition, "offset" LIMIT 10000
                """#, logger: logger)
            // Personal fields opened with their keys; those whose key was destroyed (an erased
            // user's) show as sealed.
            let keys = try connection.keys(client: client, logger: logger)
            var events: [EventSummary] = []
            var details: [String: TimingDetail] = [:]
            let decoder = JSONDecoder.hearth()
            for try await (topic, partition, offset, envelope, archivedAt) in rows.decode((String, Int32, Int64, String, Date?).self) {
                let value = try await keys.open(Array(envelope.utf8), leavingGoneSealed: true)
                if let event = EventSummary(topic: topic, partition: partition, offset: offset, value: value) {
                    events.append(event)
                    let run = (try? decoder.decode(RunEventFields.self, from: Data(value)))?.data
                    details[event.id] = TimingDetail(streamEvent: run?.event, runElapsedMs: run?.elapsedMs, archivedAt: archivedAt)
                }
            }
            // Where each event went: the projections whose committed offset is past it.
            let topics = Array(Set(events.map(\.topic)))
            let offsets = try await client.query(
                "SELECT projection, topic, partition, next_offset FROM projection_offsets WHERE topic = ANY(\(topics))",
                logger: logger)
            var committed: [String: [(projection: String, next: Int64)]] = [:]
            for try await (projection, topic, partition, next) in offsets.decode((String, String, Int32, Int64).self) {
                committed["\(topic)/\(partition)", default: []].append((projection, next))
            }
            for index in events.indices {
                let event = events[index]
                events[index].projectedBy = (committed["\(event.topic)/\(event.partition)"] ?? [])
                    .filter { $0.next > event.offset }.map(\.projection).sorted()
            }
            return (events, details)
        }
        guard !events.isEmpty else { throw CLIFailure("no archived event has correlation id, key or id \(id)") }
        if timings {
            Self.printTimings(events, details: details)
            return
        }
        if json {
            try JSONOutput.print(events)
            return
        }
        let ids = Set(events.map(\.id))
        var children: [String: [EventSummary]] = [:]
        var roots: [EventSummary] = []
        for event in events {
            if let parent = Self.parent(of: event, among: ids) {
                children[parent, default: []].append(event)
            } else {
                roots.append(event)
            }
        }
        let start = roots.first?.occurredDate ?? Date()
        var previousRoot: Date?
        func show(_ event: EventSummary, depth: Int, parentTime: Date?) {
            let time = event.occurredDate ?? start
            let since = parentTime.map { "+\(Self.milliseconds(time.timeIntervalSince($0)))" } ?? "t0"
            let indent = String(repeating: "   ", count: depth) + (depth > 0 ? "└─ " : "")
            print("\(indent)\(event.type) v\(event.version)  [\(since)]  \(event.source)  key=\(event.key)  \(event.topic)/\(event.partition)@\(event.offset)  \(event.summary)")
            if let projections = event.projectedBy, !projections.isEmpty {
                print("\(String(repeating: "   ", count: depth + 1))⇢ projected by \(projections.joined(separator: ", "))")
            }
            for child in children[event.id] ?? [] { show(child, depth: depth + 1, parentTime: time) }
        }
        print("\(events.count) events, correlation \(Set(events.map(\.correlationId)).sorted().joined(separator: ", "))")
        for root in roots {
            show(root, depth: 0, parentTime: previousRoot)
            previousRoot = root.occurredDate
        }
    }

    /// `--timings`: each event of the chain in the order it happened, with its time from the first
    /// event and from the one before (as each producer stamped it: millisecond resolution), which
    /// service took the hop, what a run event was, and — when Postgres records commit times
    /// (`track_commit_timestamp`, on in `make bench`) — when the archive projection had it.
    static func printTimings(_ events: [EventSummary], details: [String: TimingDetail]) {
        // The archive's order (occurred_at to the millisecond, then topic, partition, offset), with
        // a cause before what it caused within one millisecond (a request before its run's events).
        let ids = Set(events.map(\.id))
        let ordered = events.enumerated().sorted { left, right in
            func key(_ entry: (offset: Int, element: EventSummary)) -> (Date, Int, Int) {
                (entry.element.occurredDate ?? .distantPast, Self.parent(of: entry.element, among: ids) == nil ? 0 : 1, entry.offset)
            }
            return key(left) < key(right)
        }.map(\.element)
        guard let first = ordered.first?.occurredDate else { return }
        print("\(ordered.count) events; ms from the first event, from the event before, and from the event to its archive commit")
        print("    at ms    +ms  archived  event                              source               hop")
        var previous: EventSummary?
        for event in ordered {
            let at = event.occurredDate.map { $0.timeIntervalSince(first) * 1000 } ?? 0
            let gap: Double? = if let date = event.occurredDate, let before = previous?.occurredDate {
                date.timeIntervalSince(before) * 1000
            } else {
                nil
            }
            let detail = details[event.id]
            let archived: Double? = if let archivedAt = detail?.archivedAt, let date = event.occurredDate {
                archivedAt.timeIntervalSince(date) * 1000
            } else {
                nil
            }
            var name = event.type
            if let streamEvent = detail?.streamEvent { name += " \(streamEvent)" }
            let gapText = gap.map { String(format: "%.1f", $0) } ?? ""
            let archivedText = archived.map { String(format: "%.1f", $0) } ?? "—"
            print(
                leftPad(String(format: "%.1f", at), 8) + " " + leftPad(gapText, 6) + " " + leftPad(archivedText, 9) + "  "
                    + pad(name, 34) + " " + pad(event.source, 20) + " " + hop(from: previous, to: event, detail: detail))
            previous = event
        }
        if let last = ordered.last?.occurredDate {
            print(String(format: "total %.1f ms from %@ to %@", last.timeIntervalSince(first) * 1000, ordered.first!.type, ordered.last!.type))
        }
    }

    /// The event in the chain that caused `event` (its causation id, when that is one of `ids`).
    private static func parent(of event: EventSummary, among ids: Set<String>) -> String? {
        guard let parent = event.causationId?.lowercased(), ids.contains(parent), parent != event.id else { return nil }
        return parent
    }

    private static func leftPad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// What the time before `event` was spent on, as far as the events tell.
    static func hop(from previous: EventSummary?, to event: EventSummary, detail: TimingDetail?) -> String {
        guard let previous else { return "published" }
        var text: String
        if previous.source != event.source {
            text = "\(previous.source) → Kafka → \(event.source) (publish, fetch, \(event.source == "assist-orchestrator" ? "claim, " : "")work)"
        } else {
            text = "\(event.source) work"
        }
        if let elapsed = detail?.runElapsedMs { text += "; run at \(elapsed) ms since the orchestrator took the request" }
        return text
    }

    /// What `--timings` reads beside the summary: a run event's name and run clock, and the
    /// archive's commit time.
    struct TimingDetail {
        var streamEvent: String?
        var runElapsedMs: Int?
        var archivedAt: Date?
    }

    /// The fields of a run's stream event that say what it was and when, in the run's clock.
    private struct RunEventFields: Decodable {
        struct Fields: Decodable {
            var event: String?
            var elapsedMs: Int?
            enum CodingKeys: String, CodingKey {
                case event
                case elapsedMs = "elapsed_ms"
            }
        }
        var data: Fields?
    }

    static func milliseconds(_ interval: TimeInterval) -> String {
        String(format: "%.1f ms", interval * 1000)
    }
}
