import Synchronization

/// A shared "please stop" flag for poll loops. `Atomic` cannot be captured by a closure, so
/// loops capture this box instead.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    init() {}

    var isSet: Bool { flag.load(ordering: .acquiring) }

    func set() { flag.store(true, ordering: .releasing) }
}
