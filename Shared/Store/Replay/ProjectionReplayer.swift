import Foundation
import HearthEvents
import HearthKafka
import HearthPrivacy
import Logging
import PostgresNIO
import Synchronization

public enum ReplayError: Error, CustomStringConvertible {
    case archiveIsTheSource(String)
    case historyLost(partition: KafkaTopicPartition, kafkaStartsAt: Int64, archiveEndsAt: Int64)
    case alreadyRunning(String)
    case swapLocked(String, attempts: Int)
    case parkedDuringRebuild(String, [EventPosition])

    public var description: String {
        switch self {
        case .archiveIsTheSource(let name):
            "\(name) is the event archive itself; it is the source of replays and cannot be rebuilt from itself"
        case .historyLost(let partition, let start, let end):
            "\(partition.topic)/\(partition.partition): Kafka starts at offset \(start) but the archive ends at \(end); events in between are lost"
        case .parkedDuringRebuild(let name, let positions):
            "the live \(name) projection parked \(positions.map(\.description).joined(separator: ", ")) while the rebuild had already applied them; nothing was swapped, run the replay again"
        case .alreadyRunning(let name):
            "a replay of \(name) is already running (it holds the advisory lock '\(ReplayLock.key(name))'); wait for it to finish"
        case .swapLocked(let name, let attempts):
            "could not lock \(name)'s tables for the swap within \(ReplayLock.swapLockTimeout) in \(attempts) attempts (a long transaction holds them); nothing was changed, try again"
        }
    }
}

public struct ReplayProgress: Sendable {
    /// Positions of the projection's partitions read so far, events it passes over included: a
    /// projection of one rare type of a busy topic reads every event to apply a few.
    public var read: Int
    /// Events applied to the shadow tables so far.
    public var applied: Int
    /// Positions to read in all.
    public var total: Int
    public var elapsed: Duration

    public init(read: Int, applied: Int, total: Int, elapsed: Duration) {
        self.read = read
        self.applied = applied
        self.total = total
        self.elapsed = elapsed
    }

    /// One line for a terminal: a bar of `width` cells, events read / total, rate, time left.
    public func line(label: String, width: Int = 30) -> String {
        let seconds = max(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, 0.001)
        let rate = Double(read) / seconds
        let fraction = total > 0 ? min(1, Double(read) / Double(total)) : 1
        let filled = Int(fraction * Double(width))
        let left = rate > 0 ? Double(max(0, total - read)) / rate : 0
        return "\(label) [\(String(repeating: "#", count: filled))\(String(repeating: "-", count: width - filled))] "
            + "\(read)/\(total) events, \(applied) applied  \(Int(rate))/s  \(Int(left.rounded())) s left"
    }
}

public struct ReplayReport: Sendable {
    public var projection: String
    public var checksumBefore: TableChecksum
    public var checksumAfter: TableChecksum
    public var events: Int
    /// Events that could not be decoded or applied; the live projection parked them in the DLQ.
    public var skipped: Int
    /// Per partition (`topic/partition`), where its history was read from: `kafka`, `archive` or `archive+kafka`.
    public var sources: [String: String]
    public var duration: Duration
    public var dryRun: Bool
}

/// Rebuilds a projection's tables from the full event history into shadow tables, then swaps
/// them in atomically. Each partition is read from Kafka while the topic still holds its whole
/// history, and from the event archive where Kafka has dropped the start. Topics are read one
/// after another in the order the projection lists them, so a rebuild's cross-topic order is the
/// projection's choice and the same from either source.
public struct ProjectionReplayer: Sendable {
    let client: PostgresClient
    let admin: KafkaAdmin
    let bootstrapServers: String
    let catalogue: EventCatalogue
    /// Opens sealed personal fields; a key destroyed since the event was written gives the
    /// field's erased stand-in, which is how an erased subject leaves no trace in a rebuild.
    let keys: DataKeyRing
    let logger: Logger
    var batchSize = 1000

    public init(client: PostgresClient, keys: DataKeyRing, bootstrapServers: String, catalogue: EventCatalogue = .hearth, logger: Logger) {
        self.client = client
        self.keys = keys
        self.admin = KafkaAdmin(bootstrapServers: bootstrapServers, logger: logger)
        self.bootstrapServers = bootstrapServers
        self.catalogue = catalogue
        self.logger = logger
    }

    private struct PartitionPlan {
        var partition: KafkaTopicPartition
        var end: Int64
        var archive: Range<Int64>
        var kafka: Range<Int64>
        var source: String {
            switch (archive.isEmpty, kafka.isEmpty) {
            case (true, _): "kafka"
            case (false, true): "archive"
            case (false, false): "archive+kafka"
            }
        }
    }

    public func rebuild(
        _ projection: any Projection, dryRun: Bool = false, progress: @escaping @Sendable (ReplayProgress) -> Void = { _ in }
    ) async throws -> ReplayReport {
        guard projection.decodesPayloads else { throw ReplayError.archiveIsTheSource(projection.name) }
        let started = ContinuousClock.now
        let shadow = "replay_\(projection.name)"
        let before = try await TableChecksum.compute(tables: projection.tables, client: client, logger: logger)
        // One admin client for the topics' ends and the dead letters' ranges, read at one moment.
        let partitions = projection.topics.flatMap { topic in
            (0..<topic.partitions).map { KafkaTopicPartition(topic: topic.name, partition: Int32($0)) }
        }
        let deadLetters = projection.topics.map { KafkaTopicPartition(topic: $0.deadLetter.name, partition: 0) }
        let watermarks = try await admin.watermarks(partitions + deadLetters)
        let plans = try await plan(partitions, watermarks: watermarks)
        let total = plans.reduce(0) { $0 + Int($1.end) }
        let decoder = ProjectedEventDecoder(catalogue: catalogue, projection: projection, keys: keys, logger: logger)

        return try await client.withConnection { connection in
          // Two replays of one projection would drop each other's shadow schema.
          try await ReplayLock.holding(projection.name, on: connection, logger: logger) {
            try await createShadow(projection, schema: shadow, on: connection)
            var applied = 0
            // Parked events are recorded in Postgres; ones parked before that record existed are
            // only in the dead-letter topics.
            let skipped = SkipCounter(
                parked: try await DeadLetterStore.parkedPositions(of: projection.name, on: connection, logger: logger)
                    .union(try await parkedPositions(of: projection, in: deadLetters, watermarks: watermarks)))
            var reached: [KafkaTopicPartition: Int64] = [:]
            let apply: ([ProjectedEvent]) async throws -> Void = { events in
                guard !events.isEmpty else { return }
                do {
                    try await connection.withTransaction(logger: logger) { transaction in
                        try await projection.apply(events, on: transaction, logger: logger)
                    }
                } catch where !FailureClassification.isTransient(error) {
                    // Same rule as the live runner: an event that cannot be applied is left out.
                    for event in events {
                        do {
                            try await connection.withTransaction(logger: logger) { transaction in
                                try await projection.apply([event], on: transaction, logger: logger)
                            }
                        } catch where !FailureClassification.isTransient(error) {
                            skipped.add()
                            logger.warning("replay skipped an event that cannot be applied", metadata: [
                                "position": "\(event.position)", "error": "\(FailureClassification.describe(error))",
                            ])
                        }
                    }
                }
            }
            try await connection.query(PostgresQuery(unsafeSQL: "SET search_path TO \(SQLIdentifier.quoted(shadow)), public"), logger: logger)
            // The shadow tables count for nothing until the swap, so their commits need not wait
            // for the WAL to reach disk; the swap itself commits durably (reset below).
            try await connection.query("SET synchronous_commit TO off", logger: logger)
            /// Applies what one read handed over, whose last offsets per partition are `lastOffsets`.
            func take(_ events: [ProjectedEvent], lastOffsets: [KafkaTopicPartition: Int64]) async throws {
                try await apply(events)
                applied += events.count
                reached.merge(lastOffsets.mapValues { $0 + 1 }) { max($0, $1) }
                progress(ReplayProgress(read: reached.values.reduce(0) { $0 + Int($1) }, applied: applied, total: total, elapsed: ContinuousClock.now - started))
            }
            do {
                // Topic by topic, in the projection's order, whichever source holds them: a
                // projection lists the users topic last so that `user.erased` lands after every row
                // it must remove (a favourite read after the erasure would stay for ever).
                for topic in projection.topics {
                    let topicPlans = plans.filter { $0.partition.topic == topic.name }
                    for plan in topicPlans {
                        try await readArchive(plan.partition, range: plan.archive, decoder: decoder, skipped: skipped) { events, lastOffset in
                            try await take(events, lastOffsets: [plan.partition: lastOffset])
                        }
                    }
                    try await readKafka(
                        Dictionary(uniqueKeysWithValues: topicPlans.map { ($0.partition, $0.kafka) }), decoder: decoder, skipped: skipped, handle: take)
                }
                for plan in plans where reached[plan.partition, default: 0] < plan.end { reached[plan.partition] = plan.end }

                let after: TableChecksum
                if dryRun {
                    after = try await TableChecksum.compute(tables: projection.tables, schema: shadow, connection: connection, logger: logger)
                } else {
                    try await connection.query("SET synchronous_commit TO on", logger: logger)
                    applied += try await swapRetryingLocks(projection, shadow: shadow, reached: reached, decoder: decoder, skipped: skipped, connection: connection)
                    after = try await TableChecksum.compute(tables: projection.tables, schema: "public", connection: connection, logger: logger)
                }
                try await connection.query("RESET search_path", logger: logger)
                try await connection.query("RESET synchronous_commit", logger: logger)
                try await connection.query(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(SQLIdentifier.quoted(shadow)) CASCADE"), logger: logger)
                return ReplayReport(
                    projection: projection.name, checksumBefore: before, checksumAfter: after, events: applied, skipped: skipped.count,
                    sources: Dictionary(uniqueKeysWithValues: plans.map { ("\($0.partition.topic)/\($0.partition.partition)", $0.source) }),
                    duration: ContinuousClock.now - started, dryRun: dryRun)
            } catch {
                _ = try? await connection.query("RESET search_path", logger: logger)
                _ = try? await connection.query("RESET synchronous_commit", logger: logger)
                _ = try? await connection.query(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(SQLIdentifier.quoted(shadow)) CASCADE"), logger: logger)
                throw error
            }
          }
        }
    }

    // MARK: Planning

    /// Where the live projection parked events. A rebuild leaves them out too, so it reproduces
    /// the live state even for events that would apply now (after a fix they come back through
    /// `hearthctl dlq redrive` as new messages, which the rebuild applies where they landed).
    private func parkedPositions(
        of projection: any Projection, in deadLetters: [KafkaTopicPartition], watermarks: [KafkaTopicPartition: KafkaWatermarks]
    ) async throws -> Set<EventPosition> {
        var ranges: [KafkaTopicPartition: Range<Int64>] = [:]
        for partition in deadLetters {
            if let held = watermarks[partition], held.high > held.low { ranges[partition] = held.low..<held.high }
        }
        guard !ranges.isEmpty else { return [] }
        var parked = Set<EventPosition>()
        for try await message in KafkaRangeReader(bootstrapServers: bootstrapServers, ranges: ranges, logger: logger) {
            guard let headers = DeadLetterHeaders(headers: message.headers), headers.projection == projection.name else { continue }
            parked.insert(EventPosition(topic: headers.topic, partition: headers.partition, offset: headers.offset))
        }
        return parked
    }

    private func plan(_ partitions: [KafkaTopicPartition], watermarks: [KafkaTopicPartition: KafkaWatermarks]) async throws -> [PartitionPlan] {
        var plans: [PartitionPlan] = []
        for partition in partitions {
            guard let held = watermarks[partition] else { continue }
            if held.low == 0 {
                plans.append(PartitionPlan(partition: partition, end: held.high, archive: 0..<0, kafka: 0..<held.high))
                continue
            }
            let archiveEnd = try await archiveEnd(of: partition)
            guard archiveEnd >= held.low else { throw ReplayError.historyLost(partition: partition, kafkaStartsAt: held.low, archiveEndsAt: archiveEnd) }
            let end = max(held.high, archiveEnd)
            plans.append(PartitionPlan(partition: partition, end: end, archive: 0..<archiveEnd, kafka: archiveEnd..<max(archiveEnd, held.high)))
        }
        return plans
    }

    private func archiveEnd(of partition: KafkaTopicPartition) async throws -> Int64 {
        let rows = try await client.query(
            #"SELECT coalesce(max("offset") + 1, 0) FROM event_log WHERE topic = \#(partition.topic) AND partition = \#(Int32(partition.partition))"#,
            logger: logger)
        for try await end in rows.decode(Int64.self) { return end }
        return 0
    }

    // MARK: Reading history

    private struct ArchiveBatch: Sendable {
        var events: [ProjectedEvent]
        var lastOffset: Int64
    }

    /// Reads the archive on a connection of its own, one batch ahead of `handle`: decoding the
    /// next batch (CPU in this process) overlaps with applying the current one (work in Postgres).
    private func readArchive(
        _ partition: KafkaTopicPartition, range: Range<Int64>, decoder: ProjectedEventDecoder, skipped: SkipCounter,
        handle: ([ProjectedEvent], Int64) async throws -> Void
    ) async throws {
        guard !range.isEmpty else { return }
        let batchSize = batchSize
        let logger = logger
        try await client.withConnection { reader in
            @Sendable func read(from: Int64) async throws -> ArchiveBatch? {
                let rows = try await reader.query(
                    #"""
                    SELECT "offset", type, version, envelope::text FROM public.event_log
                    WHERE topic = \#(partition.topic) AND partition = \#(Int32(partition.partition))
                      AND "offset" >= \#(from) AND "offset" < \#(range.upperBound)
                    ORDER BY "offset" LIMIT \#(batchSize)
                    """#, logger: logger)
                var stored: [(offset: Int64, type: String, version: Int, value: [UInt8])] = []
                stored.reserveCapacity(batchSize)
                for try await (offset, type, version, envelope) in rows.decode((Int64, String, Int, String).self) {
                    stored.append((offset, type, version, Array(envelope.utf8)))
                }
                try await decoder.prepare(stored.lazy.map(\.value))
                var events: [ProjectedEvent] = []
                events.reserveCapacity(batchSize)
                var last: Int64 = -1
                for row in stored {
                    last = row.offset
                    let position = EventPosition(topic: partition.topic, partition: partition.partition, offset: row.offset)
                    if let event = try skipped.decoding(position, { try decoder.decode(position: position, value: row.value, hint: (row.type, row.version)) }) {
                        events.append(event)
                    }
                }
                return last >= 0 ? ArchiveBatch(events: events, lastOffset: last) : nil
            }
            var next: Task<ArchiveBatch?, any Error>? = Task { try await read(from: range.lowerBound) }
            defer { next?.cancel() }
            while let current = next {
                guard let batch = try await current.value else { break }
                let following = batch.lastOffset + 1
                next = following < range.upperBound ? Task { try await read(from: following) } : nil
                try await handle(batch.events, batch.lastOffset)
            }
        }
    }

    private func readKafka(
        _ ranges: [KafkaTopicPartition: Range<Int64>], decoder: ProjectedEventDecoder, skipped: SkipCounter,
        handle: ([ProjectedEvent], [KafkaTopicPartition: Int64]) async throws -> Void
    ) async throws {
        let wanted = ranges.filter { !$0.value.isEmpty }
        guard !wanted.isEmpty else { return }
        let reader = KafkaRangeReader(bootstrapServers: bootstrapServers, ranges: wanted, logger: logger)
        var events: [ProjectedEvent] = []
        var lastOffsets: [KafkaTopicPartition: Int64] = [:]
        var readSinceHandled = 0
        for try await message in reader {
            lastOffsets[message.topicPartition] = message.offset
            readSinceHandled += 1
            let position = EventPosition(topic: message.topic, partition: message.partition, offset: message.offset)
            try await decoder.prepare(CollectionOfOne(message.value))
            if let event = try skipped.decoding(position, { try decoder.decode(position: position, value: message.value, hint: EventHeaders.typeHint(of: message)) }) {
                events.append(event)
            }
            // Counted in messages read, not events kept (never more), so that progress moves while
            // a projection passes over most of a topic.
            if readSinceHandled >= batchSize {
                try await handle(events, lastOffsets)
                events.removeAll(keepingCapacity: true)
                readSinceHandled = 0
            }
        }
        if !events.isEmpty || !lastOffsets.isEmpty { try await handle(events, lastOffsets) }
    }

    // MARK: Shadow tables

    private func createShadow(_ projection: any Projection, schema: String, on connection: PostgresConnection) async throws {
        let quoted = SQLIdentifier.quoted(schema)
        try await connection.query(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(quoted) CASCADE"), logger: logger)
        try await connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA \(quoted)"), logger: logger)
        for table in projection.tables {
            let name = SQLIdentifier.quoted(table)
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE TABLE \(quoted).\(name) (LIKE public.\(name) INCLUDING ALL)"), logger: logger)
            // LIKE copies no storage parameters (a fillfactor, say); the swapped-in table must keep them.
            let options = try await connection.query(
                "SELECT coalesce(array_to_string(reloptions, ', '), '') FROM pg_class WHERE oid = to_regclass(\("public." + name))",
                logger: logger
            ).collect().first?.decode(String.self) ?? ""
            if !options.isEmpty {
                try await connection.query(PostgresQuery(unsafeSQL: "ALTER TABLE \(quoted).\(name) SET (\(options))"), logger: logger)
            }
        }
        // LIKE copies no foreign keys either. Those between the projection's own tables (a
        // document's chunks referencing it) must hold in the rebuilt tables too; Postgres prints a
        // referenced table of `public` unqualified, so with only the shadow schema on the path
        // the definition names the shadow copy.
        let liveTables = projection.tables.map { "public." + $0 }
        let rows = try await connection.query(
            """
            SELECT t.relname::text, c.conname::text, pg_get_constraintdef(c.oid)
            FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
            WHERE c.contype = 'f' AND c.conrelid = ANY(\(liveTables)::regclass[]) AND c.confrelid = ANY(\(liveTables)::regclass[])
            ORDER BY c.conname
            """, logger: logger)
        var foreignKeys: [(table: String, constraint: String, definition: String)] = []
        for try await key in rows.decode((String, String, String).self) { foreignKeys.append(key) }
        guard !foreignKeys.isEmpty else { return }
        try await connection.query(PostgresQuery(unsafeSQL: "SET search_path TO \(quoted)"), logger: logger)
        for (table, constraint, definition) in foreignKeys {
            try await connection.query(
                PostgresQuery(unsafeSQL: "ALTER TABLE \(quoted).\(SQLIdentifier.quoted(table)) ADD CONSTRAINT \(SQLIdentifier.quoted(constraint)) \(definition)"),
                logger: logger)
        }
        try await connection.query("RESET search_path", logger: logger)
    }

    /// `swap`, again when it could not take its locks within `ReplayLock.swapLockTimeout`: the
    /// swap waits for the live tables' readers and writers, and every new reader would queue
    /// behind it, so it gives up quickly, rolls back whole, and tries again a few times.
    private func swapRetryingLocks(
        _ projection: any Projection, shadow: String, reached: [KafkaTopicPartition: Int64], decoder: ProjectedEventDecoder,
        skipped: SkipCounter, connection: PostgresConnection
    ) async throws -> Int {
        let attempts = 6
        for attempt in 1...attempts {
            do {
                return try await swap(projection, shadow: shadow, reached: reached, decoder: decoder, skipped: skipped, connection: connection)
            } catch where ReplayLock.isLockTimeout(error) {
                logger.warning("the swap could not lock the live tables in time; retrying", metadata: ["projection": "\(projection.name)", "attempt": "\(attempt)"])
                try await Task.sleep(for: .milliseconds(500 * attempt))
            }
        }
        throw ReplayError.swapLocked(projection.name, attempts: attempts)
    }

    /// Swaps the rebuilt tables in. The live offsets are locked first, then the live tables, in the
    /// same order a running projection takes them (its compare-and-set comes before its writes).
    /// A batch over several partitions may still lock their rows in another order; Postgres then
    /// rolls one of the two back (40P01) and both retry. With the offsets locked the live runner can neither apply nor park
    /// anything more: what it parked while the rebuild ran is read then and left out of the
    /// catch-up, and events it applied meanwhile are applied to the shadow first. Returns how many.
    private func swap(
        _ projection: any Projection, shadow: String, reached: [KafkaTopicPartition: Int64], decoder: ProjectedEventDecoder,
        skipped: SkipCounter, connection: PostgresConnection
    ) async throws -> Int {
        var caughtUp = 0
        try await connection.withTransaction(logger: logger) { transaction in
            try await transaction.query(PostgresQuery(unsafeSQL: "SET LOCAL lock_timeout = '\(ReplayLock.swapLockTimeoutMilliseconds)ms'"), logger: logger)
            var live: [KafkaTopicPartition: Int64] = [:]
            for try await (topic, partition, next) in try await transaction.query(
                "SELECT topic, partition, next_offset FROM public.projection_offsets WHERE projection = \(projection.name) ORDER BY topic, partition FOR UPDATE",
                logger: logger
            ).decode((String, Int32, Int64).self) {
                live[KafkaTopicPartition(topic: topic, partition: partition)] = next
            }
            let tables = projection.tables.sorted().map { "public.\(SQLIdentifier.quoted($0))" }.joined(separator: ", ")
            try await transaction.query(PostgresQuery(unsafeSQL: "LOCK TABLE \(tables) IN ACCESS EXCLUSIVE MODE"), logger: logger)
            // One the rebuild already applied would make the tables differ from the live ones.
            let parkedNow = try await DeadLetterStore.parkedPositions(of: projection.name, on: transaction, logger: logger)
            let appliedAlready = skipped.addParked(parkedNow, reached: reached)
            guard appliedAlready.isEmpty else { throw ReplayError.parkedDuringRebuild(projection.name, appliedAlready) }
            var behind: [KafkaTopicPartition: Range<Int64>] = [:]
            for (partition, next) in live where next > reached[partition, default: 0] {
                behind[partition] = reached[partition, default: 0]..<next
            }
            try await readKafka(behind, decoder: decoder, skipped: skipped) { events, _ in
                try await projection.apply(events, on: transaction, logger: logger)
                caughtUp += events.count
            }
            // One statement drops them all, so a foreign key between two of them is no obstacle.
            try await transaction.query(PostgresQuery(unsafeSQL: "DROP TABLE \(tables)"), logger: logger)
            for table in projection.tables {
                try await transaction.query(
                    PostgresQuery(unsafeSQL: "ALTER TABLE \(SQLIdentifier.quoted(shadow)).\(SQLIdentifier.quoted(table)) SET SCHEMA public"), logger: logger)
            }
            // Caches of the swapped tables (`ReadModelChangeFeed`) must forget what they read.
            try await ReadModelChanges.announce(projection.name, on: transaction, logger: logger)
            let ahead = reached.filter { $0.value > live[$0.key, default: 0] }
            try await OffsetStore(projection: projection.name, logger: logger).overwrite(ahead, on: transaction)
        }
        return caughtUp
    }
}

/// Leaves out (and counts) what the live runner left out: events it parked, and events that
/// cannot be decoded or applied. A class: the reading loop and the apply step both add to it.
final class SkipCounter: Sendable {
    private let skipped = Mutex(0)
    private let parked: Mutex<Set<EventPosition>>

    init(parked: Set<EventPosition>) {
        self.parked = Mutex(parked)
    }

    var count: Int { skipped.withLock { $0 } }

    /// Positions the live runner parked while the rebuild ran, so the swap's catch-up leaves them
    /// out too; the ones among them the rebuild had already applied (below `reached`) are returned.
    func addParked(_ positions: Set<EventPosition>, reached: [KafkaTopicPartition: Int64]) -> [EventPosition] {
        parked.withLock { parked in
            let new = positions.subtracting(parked)
            parked.formUnion(new)
            return new.filter { $0.offset < reached[KafkaTopicPartition(topic: $0.topic, partition: $0.partition), default: 0] }.sorted { $0.offset < $1.offset }
        }
    }

    func add() { skipped.withLock { $0 += 1 } }

    func decoding(_ position: EventPosition, _ decode: () throws -> ProjectedEvent?) throws -> ProjectedEvent? {
        if parked.withLock({ $0.contains(position) }) {
            add()
            return nil
        }
        do {
            return try decode()
        } catch let newer as NewerEventVersion {
            // A replay by a build older than the events would leave them out: refuse instead.
            throw newer
        } catch let unloaded as PrivacyError where unloaded.keyId != nil {
            // A key not loaded is no fault of the event's: skipping it would lose it.
            throw unloaded
        } catch {
            add()
            return nil
        }
    }
}
