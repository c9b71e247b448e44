import Synchronization

/// Stops the reader's thread once neither the reader nor any iterator is left, so that a
/// `for try await ... { break }` does not leave a thread and a connection behind.
final class ReaderLifetime: Sendable {
    let stop = StopFlag()
    private let startLock = Mutex(false)

    func claimStart() -> Bool {
        startLock.withLock { started in
            defer { started = true }
            return !started
        }
    }

    deinit { stop.set() }
}
