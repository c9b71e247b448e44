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

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let id = id
        // Compared as a uuid, so that the event id index answers; text that is no uuid matches no event id.
        let eventId = UUID(uuidString: id)
        let logger = CLILogging.logger()
        let events = try await connection.withPostgres(logger: logger) { client in
            let rows = try await client.query(
                #"""
                WITH chains AS (
                    SELECT DISTINCT correlation_id FROM event_log
                    WHERE correlation_id = \#(id) OR key = \#(id) OR event_id = \#(eventId)
                )
                SELECT topic, partition, "offset", envelope::text FROM event_log
                WHERE correlation_id IN (SELECT correlation_id FROM chains)
                ORDER BY occurred_at, topic, partition, "offset" LIMIT 10000
                """#, logger: logger)
            // Personal fields opened with their keys; those whose key was destroyed (an erased
            // user's) show as sealed.
            let keys = try connection.keys(client: client, logger: logger)
            var events: [EventSummary] = []
            for try await (topic, partition, offset, envelope) in rows.decode((String, Int32, Int64, String).self) {
                let value = try await keys.open(Array(envelope.utf8), leavingGoneSealed: true)
                if let event = EventSummary(topic: topic, partition: partition, offset: offset, value: value) {
                    events.append(event)
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
            return events
        }
        guard !events.isEmpty else { throw CLIFailure("no archived event has correlation id, key or id \(id)") }
        if json {
            try JSONOutput.print(events)
            return
        }
        let ids = Set(events.map(\.id))
        var children: [String: [EventSummary]] = [:]
        var roots: [EventSummary] = []
        for event in events {
            if let parent = event.causationId?.lowercased(), ids.contains(parent), parent != event.id {
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

    static func milliseconds(_ interval: TimeInterval) -> String {
        String(format: "%.1f ms", interval * 1000)
    }
}
