import Foundation
import Synchronization

/// Where the ids of the events a task publishes, and of the things it creates, come from. Random by default; a request that
/// carries an `Idempotency-Key` binds a source derived from the key, so a retried request
/// publishes its events under the ids the first attempt used, and whatever took the first
/// attempt's events can tell the retry's apart.
public enum EventIdentity {
    @TaskLocal public static var source: EventIdSource?

    /// The id of the next event published in this task.
    static func next() -> UUID { source?.next() ?? UUID() }

    /// An id for a new thing a request creates (a reminder, a chat, a run): drawn from the same
    /// source, so a retry under the same `Idempotency-Key` names the same thing again instead of
    /// creating a second one.
    public static func newId() -> UUID { next() }
}

/// The ids of one request's events, in publishing order: the n-th event gets `derive(n)`.
public final class EventIdSource: Sendable {
    private let derive: @Sendable (Int) -> UUID
    private let counter = Mutex(0)

    public init(derive: @escaping @Sendable (Int) -> UUID) {
        self.derive = derive
    }

    func next() -> UUID {
        derive(counter.withLock { count in
            defer { count += 1 }
            return count
        })
    }
}
