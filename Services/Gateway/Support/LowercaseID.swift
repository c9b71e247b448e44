import Foundation

/// Writes a UUID the way the API writes every id: lower-case, as in event keys and token
/// subjects. (`UUID`'s own encoding is upper-case.) Ids are read case-insensitively.
@propertyWrapper
struct LowercaseID: Encodable, Sendable {
    var wrappedValue: UUID

    init(wrappedValue: UUID) {
        self.wrappedValue = wrappedValue
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue.uuidString.lowercased())
    }
}

/// `LowercaseID` for optional ids; an absent id is left out of the object, like other nil fields.
@propertyWrapper
struct OptionalLowercaseID: Encodable, Sendable {
    var wrappedValue: UUID?

    init(wrappedValue: UUID?) {
        self.wrappedValue = wrappedValue
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let id = wrappedValue { try container.encode(id.uuidString.lowercased()) } else { try container.encodeNil() }
    }
}

extension KeyedEncodingContainer {
    /// Chosen over the generic `encode` by synthesized `Encodable`, so nil ids are omitted.
    mutating func encode(_ value: OptionalLowercaseID, forKey key: Key) throws {
        guard value.wrappedValue != nil else { return }
        try encode(value.wrappedValue?.uuidString.lowercased(), forKey: key)
    }
}
