import Foundation
import HearthEvents
import HearthPrivacy
import Logging
import Metrics

/// Turns stored bytes (from Kafka or from the archive) into what a projection applies, skipping
/// event types this build does not know and refusing versions newer than it knows.
struct ProjectedEventDecoder: Sendable {
    let catalogue: EventCatalogue
    let projection: String
    let decodesPayloads: Bool
    let rawPayloadTypes: [String: Int]
    let eventTypes: Set<String>?
    /// Opens sealed personal fields before anything reads the event; nil for a projection that
    /// stores events as they are (the archive), and for readers without keys.
    let keys: DataKeyRing?
    let logger: Logger
    private let decoder = JSONDecoder.hearth()

    init(catalogue: EventCatalogue, projection: any Projection, keys: DataKeyRing?, logger: Logger) {
        self.catalogue = catalogue
        self.keys = projection.decodesPayloads ? keys : nil
        self.projection = projection.name
        self.decodesPayloads = projection.decodesPayloads
        self.rawPayloadTypes = projection.rawPayloadTypes
        self.eventTypes = projection.eventTypes
        self.logger = logger
    }

    /// Loads the keys `values` need, so that `decode` can open them without waiting.
    func prepare(_ values: some Sequence<[UInt8]>) async throws {
        try await keys?.prepare(values)
    }

    /// Whether `decode` reads past the header of an event with this hint: the ones it passes over
    /// on the header alone need no keys.
    func reads(_ hint: (type: String, version: Int)?) -> Bool {
        guard let eventTypes, let hint else { return true }
        return eventTypes.contains(hint.type)
    }

    func decode(position: EventPosition, value sealed: [UInt8], hint: (type: String, version: Int)?) throws -> ProjectedEvent? {
        // A type this projection does not read is passed over on the header alone, before any
        // byte of the envelope is read: on a busy topic that is most of its events.
        if let eventTypes, let hint, !eventTypes.contains(hint.type) { return nil }
        let value = try keys.map { try SealedEnvelope.open(sealed, catalogue: catalogue, key: $0.openingKey) } ?? sealed
        // The metadata read by hand (the fast path); the decoder is the fallback for text the raw
        // reader does not accept, and reports what is wrong with it.
        if let raw = RawEnvelope(value) {
            let metadata = raw.metadata
            if let eventTypes, !eventTypes.contains(metadata.type) { return nil }
            guard decodesPayloads, rawPayloadTypes[metadata.type] != metadata.version else {
                return ProjectedEvent(position: position, metadata: metadata, payload: nil, value: value)
            }
            return try projected(catalogue.decode(raw, of: value, decoder: decoder), position: position, value: value)
        }
        let data = Data(value)
        let readRaw = hint.map { rawPayloadTypes[$0.type] == $0.version } ?? false
        guard decodesPayloads, !readRaw else {
            do {
                let metadata = try decoder.decode(EventMetadata.self, from: data)
                return ProjectedEvent(position: position, metadata: metadata, payload: nil, value: value)
            } catch {
                throw EventDecodingError.malformed("envelope: \(error)")
            }
        }
        return try projected(catalogue.decode(data, hint: hint, decoder: decoder), position: position, value: value)
    }

    /// Why a projection passes over an event it cannot read: the `reason` of
    /// `hearth_events_skipped_total`.
    enum SkipReason: String, CaseIterable {
        case unknownType = "unknown_type"
        case newerVersion = "newer_version"
    }

    /// `by: 0` registers the series, so that a dashboard shows zero before the first skip.
    static func countSkip(_ reason: SkipReason, projection: String, by count: Int = 1) {
        Counter(label: "hearth_events_skipped_total", dimensions: [("projection", projection), ("reason", reason.rawValue)]).increment(by: count)
    }

    private func projected(_ outcome: DecodeOutcome, position: EventPosition, value: [UInt8]) throws -> ProjectedEvent? {
        switch outcome {
        case .event(let event):
            return ProjectedEvent(position: position, metadata: event.metadata, payload: event.payload, value: value)
        case .unknownType(let metadata):
            Self.countSkip(.unknownType, projection: projection)
            logger.debug("skipping an event of unknown type", metadata: ["type": "\(metadata.type)", "correlation_id": "\(metadata.correlationId)"])
            return nil
        case .newerVersion(let metadata, let known):
            // Not skipped: a producer upgraded before this consumer would otherwise lose the
            // event here until a replay. The runner holds the partition until a build that knows
            // the version runs (and `/readyz` says the projection is stuck meanwhile).
            Self.countSkip(.newerVersion, projection: projection)
            throw NewerEventVersion(position: position, type: metadata.type, version: metadata.version, known: known)
        }
    }
}

/// An event of a newer version than this build's catalogue knows: the consumer must be upgraded
/// before it can apply it, and it must neither skip nor park it meanwhile.
public struct NewerEventVersion: Error, CustomStringConvertible {
    public let position: EventPosition
    public let type: String
    public let version: Int
    public let known: Int

    public var description: String {
        "\(type) v\(version) at \(position) is newer than this build knows (v\(known)): holding the partition until a build that knows it runs"
    }
}
