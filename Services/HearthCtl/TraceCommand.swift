import ArgumentParser
import Foundation
import HearthEvents
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
        let logger = CLILogging.logger()
        let events = try await connection.withPostgres(logger: logger) { client in
            let rows = try await client.query(
                #"""
                WITH chains AS (
                    SELECT DISTINCT correlation_id FROM event_log
                    WHERE correlation_id = \#(id) OR key = \#(id) OR event_id::text = lower(\#(id))
                )
                SELECT topic, partition, "offset", envelope::text FROM event_log
                WHERE correlation_id IN (SELECT correlation_id FROM chains)
                ORDER BY occurred_at, topic, partition, "offset" LIMIT 10000
                """#, logger: logger)
            var events: [EventSummary] = []
            for try await (topic, partition, offset, envelope) in rows.decode((String, Int32, Int64, String).self) {
                if let event = EventSummary(topic: topic, partition: partition, offset: offset, value: Array(envelope.utf8)) {
                    events.append(event)
                }
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
