import HearthEvents
import Logging
import PostgresNIO

/// One event as a projection sees it: its place in Kafka, its metadata, its decoded payload (when
/// the projection asked for payloads) and the exact bytes it arrived as.
public struct ProjectedEvent: Sendable {
    public let position: EventPosition
    public let metadata: EventMetadata
    public let payload: (any EventPayload)?
    public let value: [UInt8]

    public init(position: EventPosition, metadata: EventMetadata, payload: (any EventPayload)?, value: [UInt8]) {
        self.position = position
        self.metadata = metadata
        self.payload = payload
        self.value = value
    }
}

/// A read model fed by events. `apply` runs inside the transaction that also records the consumed
/// offsets, so an event's effect and its offset commit or roll back together.
public protocol Projection: Sendable {
    /// Stable name: the consumer group is `hearth.projection.<name>` and offsets are stored under it.
    var name: String { get }
    /// A rebuild reads these one after another in this order (live, they interleave as they
    /// come): a projection that removes a user's rows on `user.erased` lists the users topic last,
    /// so that the erasure lands after every row it must remove.
    var topics: [Topic] { get }
    /// The tables this projection owns; rebuilt by replay and summed by the checksum. Table
    /// contents must depend only on the events (no `now()`), or a rebuild could not reproduce them.
    var tables: [String] { get }
    /// False for projections that only need metadata and raw bytes (the event archive): events of
    /// types this binary does not know are then kept, not skipped, and sealed personal fields stay
    /// sealed (the archive holds what Kafka holds). True: they arrive opened.
    var decodesPayloads: Bool { get }
    /// Event types (at exactly this version) the projection reads from `value` itself: they
    /// arrive with a nil `payload`, sparing a decode it would not use (a large nested document
    /// it stores as text). Other versions of the type are decoded (and upcast) as usual.
    var rawPayloadTypes: [String: Int] { get }
    /// The event types `apply` reads (any version); nil: every type. Events of other types on the
    /// projection's topics are passed over before their payload is decoded, their offsets still
    /// committed: a projection reading one rare type of a busy topic does not decode the rest.
    var eventTypes: Set<String>? { get }
    /// Whether every committed batch announces `name` on `ReadModelChanges`, so other processes'
    /// caches of these tables (`ReadModelCache`) drop what they read. Costs one statement per batch.
    var announcesChanges: Bool { get }
    /// The most events one transaction applies, when the projection knows better than the
    /// process-wide default (`HEARTH_PROJECTION_BATCH_SIZE`, 1000; that setting still wins when set):
    /// a projection whose events are slow to apply keeps each transaction, and the pause between
    /// Kafka polls, short. nil: the default.
    var maxBatchSize: Int? { get }

    /// Applies events in Kafka order per partition. Called with a connection inside an open transaction.
    func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws
}

extension Projection {
    public var decodesPayloads: Bool { true }
    public var rawPayloadTypes: [String: Int] { [:] }
    public var eventTypes: Set<String>? { nil }
    public var announcesChanges: Bool { false }
    public var maxBatchSize: Int? { nil }
    public var consumerGroup: String { "hearth.projection.\(name)" }
}
