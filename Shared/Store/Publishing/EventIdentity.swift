import Foundation
import Synchronization

/// Where the ids of the events a task publishes, and of the things it creates, come from. Random by default; a request that
/// carries an `Idempotency-Key` binds a source derived from the key, so a retried request
/// publishes its events under the ids the first attempt used, and whatever took the first
/// attempt's events can tell the retry's apart.
public enum EventIdentity {
    @TaskLocal public static var source: EventIdSource?

    /// The id of the next event of this type published in this task.
    static func next(eventType: String) -> UUID { source?.next(label: "event:\(eventType)") ?? UUID() }

    /// An id for a new thing a request creates (`kind`: "reminder", "chat", "run"): from the same
    /// source, so a retry under the same `Idempotency-Key` names the same thing again instead of
    /// creating a second one.
    public static func newId(_ kind: String) -> UUID { source?.next(label: "new:\(kind)") ?? UUID() }
}

/// The ids of one request: the n-th id of a label (an event type, a kind of thing) is
/// `derive(label, n)`. Counting per label keeps ids stable when a retry takes another branch (a
/// chat that now exists is not created again, and the message after it keeps its id).
public final class EventIdSource: Sendable {
    private let derive: @Sendable (String, Int) -> UUID
    private let counters = Mutex<[String: Int]>([:])

    public init(derive: @escaping @Sendable (_ label: String, _ index: Int) -> UUID) {
        self.derive = derive
    }

    func next(label: String) -> UUID {
        derive(label, counters.withLock { counts in
            defer { counts[label, default: 0] += 1 }
            return counts[label, default: 0]
        })
    }
}
