import Foundation
import HearthEvents

/// Builds an instance of any payload type with every field present (optionals filled in, arrays of
/// one element), by decoding it from a decoder that answers every question with a plain value:
/// what the privacy tests encode to learn which JSON fields a payload writes, without a
/// hand-written sample of each of the catalogue's types going stale.
struct PayloadProbe {
    static func instance<T: Decodable>(of type: T.Type) throws -> T {
        try ProbeDecoder(codingPath: []).value(T.self)
    }
}

private struct ProbeDecoder: Decoder {
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ProbeKeyed<Key>(codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { ProbeUnkeyed(codingPath: codingPath) }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { ProbeSingle(codingPath: codingPath) }

    /// A value of `type`: leaf types by hand (the ones whose own decoding checks its text), enums
    /// by their first case, everything else by decoding it from this decoder.
    func value<T: Decodable>(_ type: T.Type) throws -> T {
        switch type {
        case is UUID.Type: return UUID(uuidString: "00000000-0000-4000-8000-000000000001") as! T
        case is Date.Type: return Date(timeIntervalSince1970: 1_800_000_000) as! T
        case is URL.Type: return URL(string: "https://example.com/probe")! as! T
        case is JSONValue.Type: return JSONValue.string("probe") as! T
        case is String.Type: return "probe" as! T
        default: break
        }
        if let cases = type as? any CaseIterable.Type, let first = Self.firstCase(of: cases) as? T { return first }
        return try T(from: self)
    }

    private static func firstCase<C: CaseIterable>(of type: C.Type) -> Any? { C.allCases.first }
}

private struct ProbeKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        self.stringValue = "\(intValue)"
        self.intValue = intValue
    }
}

private struct ProbeKeyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    var codingPath: [any CodingKey]
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try ProbeDecoder(codingPath: codingPath + [key]).value(type)
    }
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        KeyedDecodingContainer(ProbeKeyed<NestedKey>(codingPath: codingPath + [key]))
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { ProbeUnkeyed(codingPath: codingPath + [key]) }
    func superDecoder() throws -> any Decoder { ProbeDecoder(codingPath: codingPath) }
    func superDecoder(forKey key: Key) throws -> any Decoder { ProbeDecoder(codingPath: codingPath + [key]) }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { true }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { "probe" }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { 1 }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { 1 }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { 1 }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { 1 }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { 1 }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { 1 }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { 1 }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { 1 }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { 1 }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { 1 }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { 1 }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { 1 }
}

private struct ProbeUnkeyed: UnkeyedDecodingContainer {
    var codingPath: [any CodingKey]
    var count: Int? { 1 }
    var currentIndex = 0
    var isAtEnd: Bool { currentIndex >= 1 }

    init(codingPath: [any CodingKey]) { self.codingPath = codingPath }

    mutating func decodeNil() throws -> Bool { false }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        defer { currentIndex += 1 }
        return try ProbeDecoder(codingPath: codingPath + [ProbeKey(intValue: currentIndex)]).value(type)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        defer { currentIndex += 1 }
        return KeyedDecodingContainer(ProbeKeyed<NestedKey>(codingPath: codingPath + [ProbeKey(intValue: currentIndex)]))
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        defer { currentIndex += 1 }
        return ProbeUnkeyed(codingPath: codingPath + [ProbeKey(intValue: currentIndex)])
    }
    mutating func superDecoder() throws -> any Decoder { ProbeDecoder(codingPath: codingPath) }
}

private struct ProbeSingle: SingleValueDecodingContainer {
    var codingPath: [any CodingKey]

    func decodeNil() -> Bool { false }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try ProbeDecoder(codingPath: codingPath).value(type) }
    func decode(_ type: Bool.Type) throws -> Bool { true }
    func decode(_ type: String.Type) throws -> String { "probe" }
    func decode(_ type: Double.Type) throws -> Double { 1 }
    func decode(_ type: Float.Type) throws -> Float { 1 }
    func decode(_ type: Int.Type) throws -> Int { 1 }
    func decode(_ type: Int8.Type) throws -> Int8 { 1 }
    func decode(_ type: Int16.Type) throws -> Int16 { 1 }
    func decode(_ type: Int32.Type) throws -> Int32 { 1 }
    func decode(_ type: Int64.Type) throws -> Int64 { 1 }
    func decode(_ type: UInt.Type) throws -> UInt { 1 }
    func decode(_ type: UInt8.Type) throws -> UInt8 { 1 }
    func decode(_ type: UInt16.Type) throws -> UInt16 { 1 }
    func decode(_ type: UInt32.Type) throws -> UInt32 { 1 }
    func decode(_ type: UInt64.Type) throws -> UInt64 { 1 }
}
