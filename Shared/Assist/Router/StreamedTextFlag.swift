import Synchronization

/// Notes whether a provider has passed any text to the caller yet; set from the provider's
/// streaming callback, read by the router once the call has ended.
final class StreamedTextFlag: Sendable {
    private let streamed = Atomic<Bool>(false)

    func markStreamed() { streamed.store(true, ordering: .relaxed) }
    var hasStreamed: Bool { streamed.load(ordering: .relaxed) }
}
