import Foundation
import Synchronization

/// Where the ids of the events a task publishes come from. Random by default; a request that
/// carries an `Idempotency-Key` binds a source derived from the key, so a retried request
/// publishes its events under the ids the first attempt used, and whatever took the first
/// attempt's events can tell the retry's apart.
public enum EventIdentity {
    @TaskLocal public static var source: EventIdSource?

    /// The id of the next event published in this task.
    static func next() -> UUID { source?.next() ?? UUID() }
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
