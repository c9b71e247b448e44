import Crypto
import Foundation
import HearthEvents

/// One data key: the id written beside every value it seals, and the AES-256 key itself.
public struct DataKey: Sendable {
    public let id: UUID
    public let key: SymmetricKey

    public init(id: UUID, key: SymmetricKey) {
        self.id = id
        self.key = key
    }
}

/// Why a personal field could not be sealed or opened.
public enum PrivacyError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The payload does not carry the id its classification names as the field's subject.
    case missingSubject(eventType: String, path: String, subjectField: String)
    /// The subject's key was destroyed while being read (an erasure racing a publish).
    case subjectErased(String)
    /// A sealed value that does not open with its key (altered, or moved to another field).
    case tampered(eventType: String, path: String)
    /// A value names a key the key ring was not asked to load first (a caller skipped `prepare`).
    case keyNotLoaded(UUID)
    case noMasterKey(String)

    /// The key a `keyNotLoaded` names.
    public var keyId: UUID? {
        if case .keyNotLoaded(let id) = self { return id }
        return nil
    }

    public var description: String {
        switch self {
        case .missingSubject(let type, let path, let field): "\(type): \(path) is personal but its subject \(field) is missing"
        case .subjectErased(let subject): "the key of \(subject) was destroyed while it was being read; try again"
        case .tampered(let type, let path): "\(type): the sealed value at \(path) does not open with its key"
        case .keyNotLoaded(let id): "data key \(id.uuidString.lowercased()) was not loaded before decoding"
        case .noMasterKey(let reason): reason
        }
    }
}

/// The sealed form of one personal value on the wire: a JSON string
/// `hearth:sealed:1:<key id>:<base64 of nonce ‖ ciphertext ‖ tag>`, whose plaintext is the
/// value's JSON text. The event type and the field's path are the additional data, so a sealed
/// value copied into another field or event does not open.
public enum SealedField {
    public static let prefix = "hearth:sealed:1:"
    static let prefixBytes = Array(prefix.utf8)

    public static func seal(_ value: JSONValue, with key: DataKey, eventType: String, path: String) throws -> String {
        let plaintext = try JSONEncoder().encode(value)
        let box = try AES.GCM.seal(plaintext, using: key.key, authenticating: context(eventType, path))
        guard let combined = box.combined else { throw PrivacyError.tampered(eventType: eventType, path: path) }
        return prefix + key.id.uuidString.lowercased() + ":" + combined.base64EncodedString()
    }

    /// The key id and box of a sealed value; nil for any other string.
    public static func parse(_ text: String) -> (keyId: UUID, box: Data)? {
        guard text.hasPrefix(prefix) else { return nil }
        let rest = text.dropFirst(prefix.count)
        guard let colon = rest.firstIndex(of: ":"), let id = UUID(uuidString: String(rest[..<colon])),
              let box = Data(base64Encoded: String(rest[rest.index(after: colon)...]))
        else { return nil }
        return (id, box)
    }

    public static func open(_ box: Data, with key: SymmetricKey, eventType: String, path: String) throws -> JSONValue {
        do {
            let plaintext = try AES.GCM.open(AES.GCM.SealedBox(combined: box), using: key, authenticating: context(eventType, path))
            return try JSONDecoder().decode(JSONValue.self, from: plaintext)
        } catch {
            throw PrivacyError.tampered(eventType: eventType, path: path)
        }
    }

    static func context(_ eventType: String, _ path: String) -> Data {
        Data("\(eventType)/\(path)".utf8)
    }

    /// True when `bytes` hold a sealed value anywhere: most events hold none, and are passed on
    /// untouched after this one scan.
    public static func occurs(in bytes: some Collection<UInt8>) -> Bool {
        firstIndex(in: Array(bytes), from: 0) != nil
    }

    /// The ids of the keys the sealed values in `bytes` name, read without parsing the JSON.
    public static func keyIds(in bytes: [UInt8]) -> Set<UUID> {
        var ids: Set<UUID> = []
        var from = 0
        while let start = firstIndex(in: bytes, from: from) {
            let idStart = start + prefixBytes.count
            let idEnd = idStart + 36
            guard idEnd <= bytes.count else { break }
            if let id = UUID(uuidString: String(decoding: bytes[idStart..<idEnd], as: UTF8.self)) { ids.insert(id) }
            from = idEnd
        }
        return ids
    }

    private static func firstIndex(in bytes: [UInt8], from: Int) -> Int? {
        let needle = prefixBytes
        guard bytes.count >= needle.count else { return nil }
        var index = from
        let last = bytes.count - needle.count
        while index <= last {
            if bytes[index] == needle[0] {
                var matched = 1
                while matched < needle.count, bytes[index + matched] == needle[matched] { matched += 1 }
                if matched == needle.count { return index }
            }
            index += 1
        }
        return nil
    }
}
