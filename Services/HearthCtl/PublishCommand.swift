import ArgumentParser
import Foundation
import HearthEvents
import HearthKafka
import HearthStore

/// `hearthctl publish`: events from stdin, one JSON object a line, each wrapped by
/// `EventPublisher` (the one envelope writer) and sent to its catalogue topic under its key.
///
///     {"type":"household.upserted","payload":{"household_id":"…","household_version":1,…},"correlation_id":"bench-1"}
///
/// `correlation_id` may be left out: those lines share one id, printed at the end. Lines are
/// published as they arrive, so a writer that paces its lines (the bench) paces the events. The
/// first line that is not an event of the catalogue's current version stops the run: the lines
/// before it stay published, nothing after it is.
struct PublishCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish events read from stdin, one {\"type\", \"payload\", \"correlation_id\"} object a line, to their topics.")

    @OptionGroup var connection: ConnectionOptions

    /// Acknowledgements awaited at most this far behind the newest send: keeps memory flat over
    /// a million lines while librdkafka batches freely.
    static let outstandingLimit = 10_000

    func run() async throws {
        let connection = connection
        let logger = CLILogging.logger()
        try await connection.withPostgres(logger: logger) { client in
            try await Self.publish(publisher: try connection.publisher(clientId: "hearthctl-publish", keys: try connection.keys(client: client, logger: logger)))
        }
    }

    private static func publish(publisher: EventPublisher) async throws {
        let fallbackCorrelationId = "publish-\(UUID().uuidString.lowercased())"
        let decoder = JSONDecoder.hearth()
        var input = StandardInputLines()
        var deliveries = Deliveries()
        var perTopic: [String: Int] = [:]
        var usedFallback = false
        var stopped: (any Error)?
        do {
            var number = 0
            while let line = try await input.next() {
                number += 1
                if line.allSatisfy(Self.isWhitespace) { continue }
                let event = try PublishLine.decode(line, number: number, decoder: decoder)
                usedFallback = usedFallback || event.correlationId == nil
                let message: KafkaOutgoingMessage
                do {
                    message = try await Self.message(event.payload, correlationId: event.correlationId ?? fallbackCorrelationId, publisher: publisher)
                } catch {
                    throw LineFailure(line: number, reason: "cannot encode the envelope: \(error)")
                }
                do {
                    try await deliveries.add(try await publisher.producer.sendPipelined(message), line: number, limit: Self.outstandingLimit)
                } catch let failure as LineFailure {
                    throw failure
                } catch {
                    throw LineFailure(line: number, reason: "not published: \(error)")
                }
                perTopic[message.topic, default: 0] += 1
            }
        } catch {
            stopped = error
        }
        // The events handed over before a bad line are awaited too, so the count printed is what
        // Kafka holds. Of two failures the earlier line's is reported: it may have caused the other.
        do throws(LineFailure) {
            try await deliveries.awaitAll()
        } catch {
            if (stopped as? LineFailure).map({ error.line < $0.line }) ?? true { stopped = error }
        }
        await publisher.producer.close()
        if let stopped {
            throw CLIFailure("\(stopped); \(deliveries.acknowledged) events were published")
        }
        var summary = "published \(deliveries.acknowledged) events"
        if !perTopic.isEmpty {
            summary += " (" + perTopic.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"
        }
        if usedFallback { summary += "; correlation \(fallbackCorrelationId)" }
        print(summary)
    }

    /// Opens the payload's type, so the envelope is the typed `Envelope<P>` every service writes.
    private static func message<P: EventPayload>(_ payload: P, correlationId: String, publisher: EventPublisher) async throws -> KafkaOutgoingMessage {
        try await publisher.message(for: publisher.envelope(payload, correlationId: correlationId))
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
    }
}

/// Why the run stopped, and at which input line.
struct LineFailure: Error, CustomStringConvertible {
    let line: Int
    let reason: String

    var description: String { "line \(line): \(reason)" }
}

/// One input line: `type` picks the catalogue's current version, as which `payload` is decoded;
/// any other field is refused, so a misspelt `correlation_id` is not silently dropped.
struct PublishLine: Decodable {
    let payload: any EventPayload
    let correlationId: String?

    private static let fields: Set<String> = ["type", "payload", "correlation_id"]

    /// What a type or payload is wrong with, without the line number the caller adds.
    private struct Refusal: Error {
        let reason: String
    }

    static func decode(_ line: [UInt8], number: Int, decoder: JSONDecoder) throws(LineFailure) -> PublishLine {
        do {
            return try decoder.decode(PublishLine.self, from: Data(line))
        } catch let refusal as Refusal {
            throw LineFailure(line: number, reason: refusal.reason)
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            throw LineFailure(line: number, reason: "not JSON")
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            throw LineFailure(line: number, reason: "not a JSON object")
        } catch {
            throw LineFailure(line: number, reason: "not an event line: \(EventCatalogue.describe(error))")
        }
    }

    init(from decoder: any Decoder) throws {
        // Keyed by any name, so that unknown fields show up in `allKeys`.
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        if let unknown = container.allKeys.map(\.stringValue).sorted().first(where: { !Self.fields.contains($0) }) {
            throw Refusal(reason: "unknown field \(unknown) (a line has type, payload and correlation_id)")
        }
        let type = try container.decode(String.self, forKey: AnyCodingKey("type"))
        guard let payloadType = EventCatalogue.hearth.payloadType(of: type) else {
            throw Refusal(reason: "unknown event type \(type) (hearthctl catalogue lists them)")
        }
        do {
            payload = try Self.decodePayload(payloadType, from: container)
        } catch {
            throw Refusal(reason: "\(type) v\(payloadType.version): \(EventCatalogue.describe(error))")
        }
        correlationId = try container.decodeIfPresent(String.self, forKey: AnyCodingKey("correlation_id"))
    }

    /// Opens the catalogue's payload type for the decoder.
    private static func decodePayload<P: EventPayload>(_ type: P.Type, from container: KeyedDecodingContainer<AnyCodingKey>) throws -> any EventPayload {
        try container.decode(P.self, forKey: AnyCodingKey("payload"))
    }
}

/// The acknowledgements still to come, oldest first, each with the line its event came from.
struct Deliveries {
    private var pending: [(line: Int, delivery: KafkaPendingDelivery)] = []
    /// `pending[..<awaited]` are done; the array is compacted now and then instead of shifted
    /// on every acknowledgement.
    private var awaited = 0
    private(set) var acknowledged = 0

    /// Adds a send, then awaits the oldest while more than `limit` are outstanding.
    mutating func add(_ delivery: KafkaPendingDelivery, line: Int, limit: Int) async throws(LineFailure) {
        pending.append((line, delivery))
        while pending.count - awaited > limit { try await awaitOldest() }
    }

    mutating func awaitAll() async throws(LineFailure) {
        while awaited < pending.count { try await awaitOldest() }
    }

    private mutating func awaitOldest() async throws(LineFailure) {
        let (line, delivery) = pending[awaited]
        awaited += 1
        do {
            _ = try await delivery.acknowledged()
        } catch {
            throw LineFailure(line: line, reason: "not published: \(error)")
        }
        acknowledged += 1
        if awaited >= 4_096 && awaited * 2 >= pending.count {
            pending.removeFirst(awaited)
            awaited = 0
        }
    }
}

/// Stdin as lines (without the newline; a last line without one counts too), read as they
/// arrive rather than all at once, so events go out while the writer is still writing.
struct StandardInputLines {
    private var buffer: [UInt8] = []
    private var start = 0
    private var ended = false

    /// The next line, or nil at the end of the input.
    mutating func next() async throws -> [UInt8]? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                defer { start = newline + 1 }
                return Array(buffer[start..<newline])
            }
            if ended {
                guard start < buffer.count else { return nil }
                defer { start = buffer.count }
                return Array(buffer[start...])
            }
            buffer.removeFirst(start)
            start = 0
            let chunk = try await Self.readChunk()
            if chunk.isEmpty { ended = true } else { buffer += chunk }
        }
    }

    /// What `read(2)` returns: as soon as the writer has sent anything. It blocks until then,
    /// so it runs on a thread of its own, not one of the two of Swift's cooperative pool, which
    /// meanwhile serves the producer's acknowledgements.
    private static func readChunk() async throws -> [UInt8] {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8], any Error>) in
            let thread = Thread {
                var bytes = [UInt8](repeating: 0, count: 64 * 1024)
                while true {
                    let count = bytes.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                    if count >= 0 {
                        continuation.resume(returning: Array(bytes[..<count]))
                        return
                    }
                    if errno != EINTR {
                        continuation.resume(throwing: CLIFailure("cannot read stdin: \(String(cString: strerror(errno)))"))
                        return
                    }
                }
            }
            thread.name = "hearthctl-stdin"
            thread.start()
        }
    }
}
