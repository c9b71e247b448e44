/// A versioned event payload. Each concrete type is one (type, version) pair of the catalogue;
/// a change to a payload is a new type with `version + 1` and an upcaster, never an edit.
public protocol EventPayload: Codable, Sendable, Equatable {
    /// Dotted name, e.g. `household.upserted`.
    static var eventType: String { get }
    static var version: Int { get }
    static var topic: Topic { get }
    /// The aggregate id: the Kafka message key, so one aggregate's events stay in order.
    var aggregateKey: String { get }
}
