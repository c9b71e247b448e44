import Foundation
import HearthDomain
import HearthStore
import Hummingbird
import Metrics

/// Encoded answers of `GET /v1/households/{id}`, kept until the `households`, `household_members`
/// or `users` read model changes (their projections announce every committed batch). A household is
/// read far more often than it changes; a cached answer costs a dictionary lookup instead of a
/// Postgres round trip and a JSON encoding. Keyed by reader as well as household: the answer
/// exists only for members, and the membership rule is part of the cached read.
final class HouseholdResponseCache: Sendable {
    struct Key: Hashable, Sendable {
        var household: UUID
        var reader: UUID
        /// Members' ages are worked out for the day of the request.
        var today: CalendarDay
    }

    static let watchedReadModels = [GatewayProjection.households, GatewayProjection.householdMembers, GatewayProjection.users]
    static let contentType = "application/json; charset=utf-8"

    private let bodies: ReadModelCache<Key, ByteBuffer>
    private let hits = Counter(label: "hearth_household_read_cache_total", dimensions: [("result", "hit")])
    private let misses = Counter(label: "hearth_household_read_cache_total", dimensions: [("result", "miss")])

    /// `changes` nil or `capacity` 0: nothing is cached. Asks `changes` for generations only when
    /// it caches, since asking starts the process's listener.
    init(capacity: Int, changes: ReadModelChangeFeed?) {
        let watched = capacity > 0 ? changes.map { feed in Self.watchedReadModels.map { feed.generation(of: $0) } } : nil
        bodies = ReadModelCache(capacity: capacity, watching: watched)
    }

    /// The body for `key`: cached, unless `bypassing` (a read that waited for a write must see it,
    /// even before this process heard of the change), else the one `read` encodes; nil when
    /// `read` finds nothing to show (not cached).
    func body(for key: Key, bypassing: Bool, read: () async throws -> ByteBuffer?) async throws -> ByteBuffer? {
        if bodies.capacity > 0, !bypassing {
            if let cached = bodies.value(for: key) {
                hits.increment()
                return cached
            }
            misses.increment()
        }
        let stamp = bodies.readStamp
        guard let fresh = try await read() else { return nil }
        if let stamp { bodies.store(fresh, for: key, readUnder: stamp) }
        return fresh
    }

    /// A 200 with `body`, headed as Hummingbird heads an encoded response.
    static func response(_ body: ByteBuffer) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: contentType, .contentLength: String(body.readableBytes)],
            body: .init(byteBuffer: body))
    }
}
