import Crypto
import Foundation
import HearthEvents
import Logging
import PostgresNIO
import Synchronization

/// The data keys of every subject (`user:<id>`, `household:<id>`, `run:<id>`), kept in Postgres
/// wrapped by the master key, and cached here for a short while.
///
/// One live key per subject: destroying it (`destroy`) is how a subject's personal data is erased
/// from Kafka, the archive and every replay at once. What is sealed for the subject afterwards (a
/// person who signs up again, and whose id is derived from the same Apple account) gets a new key;
/// the destroyed one stays destroyed, with everything it sealed.
///
/// A cached key is trusted for `cacheLifetime`: a key destroyed elsewhere stops opening here within
/// that time (the erasure's own events make every read model forget the subject before it).
public final class DataKeyRing: SealingKeySource {
    public static let tableSQL = """
        CREATE TABLE IF NOT EXISTS data_keys (
            key_id uuid PRIMARY KEY,
            subject text NOT NULL,
            wrapped bytea,
            created_at timestamptz NOT NULL DEFAULT now(),
            destroyed_at timestamptz,
            destroyed_because text,
            CHECK ((wrapped IS NULL) = (destroyed_at IS NOT NULL))
        )
        """

    public static let indexSQL = """
        CREATE UNIQUE INDEX IF NOT EXISTS data_keys_live_subject_idx ON data_keys (subject) WHERE wrapped IS NOT NULL
        """

    let client: PostgresClient
    let wrapping: any KeyWrapping
    let logger: Logger
    let cacheLifetime: Duration
    private let cache = Mutex(Cache())

    private struct Cache {
        var opening: [UUID: (key: OpeningKey, loaded: ContinuousClock.Instant)] = [:]
        var sealing: [String: (key: DataKey, loaded: ContinuousClock.Instant)] = [:]
        /// Keys named by an event but not found, since when: a key is committed before any event
        /// sealed with it is published, so one not found yet is given `unknownKeyPatience` before
        /// it counts as gone (a database restored without its keys).
        var missingSince: [UUID: ContinuousClock.Instant] = [:]

        /// Bounded: a key per run means new keys all day. Emptied when full (each key is one
        /// query away), like the gateway's token cache.
        mutating func makeRoom() {
            if opening.count >= DataKeyRing.cacheCapacity { opening.removeAll(keepingCapacity: true) }
            if sealing.count >= DataKeyRing.cacheCapacity { sealing.removeAll(keepingCapacity: true) }
            if missingSince.count >= DataKeyRing.cacheCapacity { missingSince.removeAll(keepingCapacity: true) }
        }
    }

    static let cacheCapacity = 50_000

    /// How long a key named by an event may be missing before its fields read as erased; until
    /// then reading the event fails as transient (`PrivacyError.keyNotLoaded`) and is retried.
    /// Live readers wait (the key may be committing); a replay of history does not.
    let unknownKeyPatience: Duration

    public init(
        client: PostgresClient, wrapping: any KeyWrapping, logger: Logger, cacheLifetime: Duration = .seconds(30),
        unknownKeyPatience: Duration = .seconds(60)
    ) {
        self.unknownKeyPatience = unknownKeyPatience
        self.client = client
        self.wrapping = wrapping
        self.logger = logger
        self.cacheLifetime = cacheLifetime
    }

    // MARK: Sealing

    public func sealingKey(for subject: String) async throws -> DataKey {
        let now = ContinuousClock.now
        if let cached = cache.withLock({ $0.sealing[subject] }), now - cached.loaded < cacheLifetime { return cached.key }
        // Two first uses racing: the loser's insert waits for the winner's row, which its own
        // statement's snapshot cannot see; the next statement does.
        for _ in 0..<3 {
            if let key = try await fetchOrMakeKey(for: subject, now: now) { return key }
        }
        throw PrivacyError.subjectErased(subject)
    }

    private func fetchOrMakeKey(for subject: String, now: ContinuousClock.Instant) async throws -> DataKey? {
        let fresh = SymmetricKey(size: .bits256)
        let freshId = UUID()
        let wrapped = try wrapping.wrap(fresh, subject: subject)
        // Made on first use; of two writers racing, the row that lands is the key both use.
        let rows = try await client.query(
            """
            WITH made AS (
                INSERT INTO data_keys (key_id, subject, wrapped) VALUES (\(freshId), \(subject), \(wrapped))
                ON CONFLICT (subject) WHERE wrapped IS NOT NULL DO NOTHING RETURNING key_id, wrapped
            )
            SELECT key_id, wrapped FROM made
            UNION ALL SELECT key_id, wrapped FROM data_keys
            WHERE subject = \(subject) AND wrapped IS NOT NULL AND NOT EXISTS (SELECT 1 FROM made)
            """, logger: logger)
        // Every row read, so the statement (and its implicit transaction) has completed: the key is
        // committed before any event sealed with it can be published and read elsewhere.
        var found: [(UUID, Data?)] = []
        for try await row in rows.decode((UUID, Data?).self) { found.append(row) }
        for (id, stored) in found {
            // Destroyed between the insert and the read (an erasure racing this publish).
            guard let stored else { throw PrivacyError.subjectErased(subject) }
            let key = DataKey(id: id, key: try wrapping.unwrap(stored, subject: subject))
            cache.withLock {
                $0.makeRoom()
                $0.sealing[subject] = (key, now)
                $0.opening[id] = (.available(key.key), now)
            }
            return key
        }
        return nil
    }

    // MARK: Opening

    /// Loads the keys the sealed values in `values` name (those not cached, or cached too long),
    /// so that `openingKey` answers for each of them. Keys that are destroyed, or unknown to this
    /// database, load as `.gone`.
    public func prepare(_ values: some Sequence<[UInt8]>) async throws {
        var wanted: Set<UUID> = []
        for value in values where SealedField.occurs(in: value) { wanted.formUnion(SealedField.keyIds(in: value)) }
        try await load(wanted)
    }

    public func load(_ ids: Set<UUID>) async throws {
        let now = ContinuousClock.now
        let missing = cache.withLock { cache in
            ids.filter { id in cache.opening[id].map { now - $0.loaded >= cacheLifetime } ?? true }
        }
        guard !missing.isEmpty else { return }
        var found: [UUID: OpeningKey] = [:]
        var subjects: [UUID: String] = [:]
        let rows = try await client.query(
            "SELECT key_id, subject, wrapped FROM data_keys WHERE key_id = ANY(\(Array(missing)))", logger: logger)
        for try await (id, subject, wrapped) in rows.decode((UUID, String, Data?).self) {
            found[id] = try wrapped.map { .available(try wrapping.unwrap($0, subject: subject)) } ?? .gone
            subjects[id] = subject
        }
        cache.withLock { cache in
            cache.makeRoom()
            for id in missing {
                if let key = found[id] {
                    // A destruction here since this read began wins over what the read found.
                    if case .gone? = cache.opening[id]?.key, let marked = cache.opening[id]?.loaded, marked > now { continue }
                    cache.opening[id] = (key, now)
                    cache.missingSince[id] = nil
                    // A live key is its subject's one sealing key (the unique index on live
                    // subjects): whoever opens a run's request seals the run's events with it
                    // without asking Postgres again, off the run's critical path. Runs only: a
                    // reader of every event (the archive) would fill the cache with every subject.
                    if case .available(let opened) = key, let subject = subjects[id], KeySubject.isRun(subject),
                       cache.sealing[subject] == nil {
                        cache.sealing[subject] = (DataKey(id: id, key: opened), now)
                    }
                } else {
                    let since = cache.missingSince[id] ?? now
                    cache.missingSince[id] = since
                    if now - since >= unknownKeyPatience {
                        cache.opening[id] = (.gone, now)
                    } else {
                        cache.opening[id] = nil
                    }
                }
            }
        }
    }

    /// `value` (a stored event) with its sealed fields opened: for readers that take one event at
    /// a time. Projection runners `prepare` a batch's keys, then open each event without waiting.
    public func open(_ value: [UInt8], catalogue: EventCatalogue = .hearth, leavingGoneSealed: Bool = false) async throws -> [UInt8] {
        guard SealedField.occurs(in: value) else { return value }
        try await load(SealedField.keyIds(in: value))
        return try SealedEnvelope.open(value, catalogue: catalogue, leavingGoneSealed: leavingGoneSealed, key: openingKey)
    }

    /// `open`, tried again a few times over about a second (a key still committing, Postgres
    /// briefly away): for live streams, which have no later delivery to wait for. Nil: the
    /// event could not be opened (logged).
    public func openPatiently(_ value: [UInt8], catalogue: EventCatalogue = .hearth) async -> [UInt8]? {
        var pause = Duration.milliseconds(25)
        for attempt in 1...6 {
            do {
                return try await open(value, catalogue: catalogue)
            } catch let refused as PrivacyError where refused.keyId == nil {
                logger.error("an event's sealed fields do not open", metadata: ["error": "\(refused)"])
                return nil
            } catch {
                if attempt == 6 {
                    logger.warning("an event could not be opened for a live stream", metadata: ["error": "\(String(reflecting: error))"])
                    return nil
                }
                try? await Task.sleep(for: pause)
                pause *= 2
            }
        }
        return nil
    }

    /// The key `id` as last loaded; nil when it was never loaded (call `prepare` first).
    public func openingKey(_ id: UUID) -> OpeningKey? {
        cache.withLock { $0.opening[id]?.key }
    }

    // MARK: Erasure

    /// Destroys the live keys of `subjects`; answers how many were destroyed now. Idempotent:
    /// destroying twice is one destruction.
    @discardableResult
    public func destroy(subjects: [String], because reason: String) async throws -> Int {
        guard !subjects.isEmpty else { return 0 }
        let rows = try await client.query(
            """
            UPDATE data_keys SET wrapped = NULL, destroyed_at = now(), destroyed_because = \(reason)
            WHERE subject = ANY(\(subjects)) AND wrapped IS NOT NULL RETURNING key_id
            """, logger: logger)
        var destroyedIds: Set<UUID> = []
        for try await id in rows.decode(UUID.self) { destroyedIds.insert(id) }
        cache.withLock { cache in
            for subject in subjects {
                if let key = cache.sealing.removeValue(forKey: subject) { cache.opening[key.key.id] = (.gone, .now) }
            }
            // Also the keys this process had not cached yet: a `load` that read one of them before
            // the update must not make it an opening or sealing key afterwards (its `.gone` mark,
            // newer than the load, wins).
            for id in destroyedIds { cache.opening[id] = (.gone, .now) }
        }
        return destroyedIds.count
    }

    /// The keys held for `subjects`: what `hearthctl privacy status` shows.
    public func status(subjects: [String]) async throws -> [DataKeyStatus] {
        var out: [DataKeyStatus] = []
        let rows = try await client.query(
            """
            SELECT key_id, subject, created_at, destroyed_at, destroyed_because FROM data_keys
            WHERE subject = ANY(\(subjects)) ORDER BY subject, created_at
            """, logger: logger)
        for try await (id, subject, created, destroyed, reason) in rows.decode((UUID, String, Date, Date?, String?).self) {
            out.append(DataKeyStatus(keyId: id, subject: subject, createdAt: created, destroyedAt: destroyed, destroyedBecause: reason))
        }
        return out
    }
}

/// One subject's key as the key store holds it (never the key itself).
public struct DataKeyStatus: Sendable, Equatable {
    public let keyId: UUID
    public let subject: String
    public let createdAt: Date
    public let destroyedAt: Date?
    public let destroyedBecause: String?
}
