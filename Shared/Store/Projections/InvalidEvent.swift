/// Thrown by a projection for an event it can decode but must not apply. The runner retries it a
/// few times, then parks it in the dead-letter topic and moves on.
public struct InvalidEvent: Error, CustomStringConvertible {
    public let reason: String
    public let position: EventPosition

    public init(reason: String, position: EventPosition) {
        self.reason = reason
        self.position = position
    }

    public var description: String { "invalid event at \(position): \(reason)" }
}
