/// A versioned event payload. Each concrete type is one (type, version) pair of the catalogue;
/// a change to a payload is a new type with `version + 1` and an upcaster, never an edit.
public protocol EventPayload: Codable, Sendable, Equatable {
    /// Dotted name, e.g. `household.upserted`.
    static var eventType: String { get }
    static var version: Int { get }
    static var topic: Topic { get }
    /// The aggregate id: the Kafka message key, so one aggregate's events stay in order.
    var aggregateKey: String { get }
    /// Which fields are personal and whose they are (see `PayloadPrivacy`). Required of every
    /// payload, so a new event type cannot be added without saying.
    static var privacy: PayloadPrivacy { get }
}

/// A payload the projection pipeline can read from its JSON text by hand, for the busiest event
/// types, where `JSONDecoder` was most of a projection's CPU time.
public protocol RawReadablePayload: EventPayload {
    /// The payload that is `bytes[range]`, or nil for anything but the plain form `JSONEncoder`
    /// writes (a negative or fractional number, a value of the wrong kind, a missing field): the
    /// catalogue then decodes it with `JSONDecoder`, so the answer, or the error, is the same
    /// either way.
    static func read(_ bytes: [UInt8], in range: Range<Int>) -> Self?
}
