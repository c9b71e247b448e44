/// Encodes any `Encodable` straight into a `JSONValue` tree, the way `JSONEncoder` would lay it
/// out (keys as the type's coding keys, `nil` optionals left out, numbers as numbers), without
/// the text round trip `JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(x))`
/// costs: building event data out of domain types is on the assist stream's hot path, and
/// decoding `JSONValue` from text is the expensive half.
///
/// Dates and binary data are not special-cased: they encode through their own `Encodable`
/// (a number, an array), like `JSONEncoder`'s default strategies. Hearth's payloads carry
/// times as `Timestamp` strings.
public struct JSONValueEncoder: Sendable {
    public init() {}

    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let root = JSONValueSlot()
        try root.store(value, codingPath: [])
        return root.value
    }
}

/// One place in the tree being built. A reference, so containers handed out by an encoder keep
/// writing into the tree after the call that created them returned (Codable's contract).
private final class JSONValueSlot {
    enum Content {
        case empty
        case value(JSONValue)
        case object([String: JSONValueSlot])
        case array([JSONValueSlot])
    }

    var content: Content = .empty

    var value: JSONValue {
        switch content {
        case .empty: .object([:])
        case .value(let value): value
        case .object(let fields): .object(fields.mapValues(\.value))
        case .array(let items): .array(items.map(\.value))
        }
    }

    func store<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws {
        switch value {
        case let value as JSONValue: content = .value(value)
        case let value as String: content = .value(.string(value))
        case let value as Bool: content = .value(.bool(value))
        case let value as Double: content = .value(.number(value))
        case let value as Float: content = .value(.number(Double(value)))
        // Every integer type, or its own `encode(to:)` would come straight back here.
        case let value as any BinaryInteger: content = .value(.number(try JSONValue.exactNumber(value, codingPath: codingPath)))
        default: try value.encode(to: JSONValueTreeEncoder(slot: self, codingPath: codingPath))
        }
    }

    func objectFields() -> [String: JSONValueSlot] {
        if case .object(let fields) = content { return fields }
        content = .object([:])
        return [:]
    }

    func setField(_ key: String, _ slot: JSONValueSlot) {
        var fields = objectFields()
        content = .empty  // drop the reference so the dictionary is mutated in place
        fields[key] = slot
        content = .object(fields)
    }

    func appendItem(_ slot: JSONValueSlot) {
        var items: [JSONValueSlot] = []
        if case .array(let existing) = content { items = existing }
        content = .empty
        items.append(slot)
        content = .array(items)
    }

    var itemCount: Int {
        if case .array(let items) = content { return items.count }
        return 0
    }
}

private struct JSONValueTreeEncoder: Encoder {
    let slot: JSONValueSlot
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        _ = slot.objectFields()
        return KeyedEncodingContainer(KeyedSlotContainer<Key>(slot: slot, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = slot.content {} else { slot.content = .array([]) }
        return UnkeyedSlotContainer(slot: slot, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleSlotContainer(slot: slot, codingPath: codingPath)
    }
}

private struct KeyedSlotContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: JSONValueSlot
    let codingPath: [any CodingKey]

    private func child(_ key: Key) -> JSONValueSlot {
        let child = JSONValueSlot()
        slot.setField(key.stringValue, child)
        return child
    }

    mutating func encodeNil(forKey key: Key) throws { child(key).content = .value(.null) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try child(key).store(value, codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = child(key)
        nested.content = .object([:])
        return KeyedEncodingContainer(KeyedSlotContainer<NestedKey>(slot: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = child(key)
        nested.content = .array([])
        return UnkeyedSlotContainer(slot: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        JSONValueTreeEncoder(slot: child(Key(stringValue: "super")!), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        JSONValueTreeEncoder(slot: child(key), codingPath: codingPath + [key])
    }
}

private struct UnkeyedSlotContainer: UnkeyedEncodingContainer {
    let slot: JSONValueSlot
    let codingPath: [any CodingKey]
    var count: Int { slot.itemCount }

    private func next() -> JSONValueSlot {
        let item = JSONValueSlot()
        slot.appendItem(item)
        return item
    }

    mutating func encodeNil() throws { next().content = .value(.null) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try next().store(value, codingPath: codingPath + [IndexKey(intValue: count)])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = next()
        nested.content = .object([:])
        return KeyedEncodingContainer(KeyedSlotContainer<NestedKey>(slot: nested, codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = next()
        nested.content = .array([])
        return UnkeyedSlotContainer(slot: nested, codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder {
        JSONValueTreeEncoder(slot: next(), codingPath: codingPath)
    }
}

private struct SingleSlotContainer: SingleValueEncodingContainer {
    let slot: JSONValueSlot
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { slot.content = .value(.null) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try slot.store(value, codingPath: codingPath)
    }
}

private struct IndexKey: CodingKey {
    var stringValue: String { "\(intValue ?? 0)" }
    var intValue: Int?
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}
