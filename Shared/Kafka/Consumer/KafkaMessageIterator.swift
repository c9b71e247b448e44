/// Iterates the messages a consumer or range reader has buffered. Throws the error that ended
/// the underlying client, after the messages that came before it.
public struct KafkaMessageIterator: AsyncIteratorProtocol {
    public typealias Element = KafkaMessage

    let buffer: BoundedMessageBuffer
    /// Keeps whatever must live as long as someone iterates (the range reader stops its poll
    /// thread when the last reference goes away).
    let lifetime: (any Sendable & AnyObject)?

    public mutating func next() async throws -> KafkaMessage? {
        try await buffer.next()
    }
}
