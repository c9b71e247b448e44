import Crypto
import Foundation
import HearthEvents

/// Where a sealing key comes from: the key of a subject (`user:<id>`), made on first use.
public protocol SealingKeySource: Sendable {
    func sealingKey(for subject: String) async throws -> DataKey
}

/// What a reader knows of a key named by a sealed value.
public enum OpeningKey: Sendable {
    case available(SymmetricKey)
    /// Destroyed (its subject was erased, or its data aged out) or never known here: the value
    /// is gone for good and reads as its field's `erased` stand-in.
    case gone
}

/// Seals the personal fields of a payload (as JSON) with their subjects' keys, and opens them.
/// Pure apart from the key source: the publisher seals, every reader opens.
public enum PayloadSealing {
    /// The payload with each personal field replaced by its sealed form. Fields that are absent or
    /// null stay so. Every value is sealed, even one that looks sealed: such text can only have
    /// come from a client, and must neither stay readable nor be taken for a sealed value.
    public static func seal(
        _ payload: JSONValue, eventType: String, privacy: PayloadPrivacy, keys: some SealingKeySource
    ) async throws -> JSONValue {
        var sealed = payload
        for path in privacy.personalPaths {
            guard let field = privacy.personal[path] else { continue }
            guard hasValue(at: path, in: payload) else { continue }
            guard let subject = field.subject.name(in: payload) else {
                throw PrivacyError.missingSubject(eventType: eventType, path: path, subjectField: field.subject.fields.joined(separator: " or "))
            }
            let key = try await keys.sealingKey(for: subject)
            sealed = try transform(sealed, at: Self.components(path)) { value in
                .string(try SealedField.seal(value, with: key, eventType: eventType, path: path))
            }
        }
        return sealed
    }

    /// The payload with every sealed value at a personal path opened, or replaced by its field's
    /// `erased` stand-in when its key is gone. Text that looks sealed anywhere else is a client's
    /// and stays as it is. `key` answers for every id `SealedField.keyIds` finds (the caller
    /// loads them first); an id it does not know throws `PrivacyError.keyNotLoaded`.
    /// `leavingGoneSealed`: a value whose key is gone stays as it is (what `hearthctl trace` shows)
    /// instead of becoming its stand-in.
    public static func open(
        _ payload: JSONValue, eventType: String, privacy: PayloadPrivacy?, leavingGoneSealed: Bool = false, key: (UUID) -> OpeningKey?
    ) throws -> JSONValue {
        try openAll(payload, path: "", eventType: eventType, privacy: privacy, leavingGoneSealed: leavingGoneSealed, key: key)
    }

    private static func openAll(
        _ value: JSONValue, path: String, eventType: String, privacy: PayloadPrivacy?, leavingGoneSealed: Bool, key: (UUID) -> OpeningKey?
    ) throws -> JSONValue {
        switch value {
        case .string(let text):
            guard let field = privacy?.personal[path], let (keyId, box) = SealedField.parse(text) else { return value }
            switch key(keyId) {
            case nil: throw PrivacyError.keyNotLoaded(keyId)
            case .gone?: return leavingGoneSealed ? value : field.erased
            case .available(let symmetric)?: return try SealedField.open(box, with: symmetric, eventType: eventType, path: path)
            }
        case .object(let fields):
            var opened: [String: JSONValue] = [:]
            opened.reserveCapacity(fields.count)
            for (name, field) in fields {
                opened[name] = try openAll(
                    field, path: path.isEmpty ? name : path + "." + name, eventType: eventType, privacy: privacy, leavingGoneSealed: leavingGoneSealed,
                    key: key)
            }
            return .object(opened)
        case .array(let items):
            return .array(try items.map {
                try openAll($0, path: path + "[]", eventType: eventType, privacy: privacy, leavingGoneSealed: leavingGoneSealed, key: key)
            })
        case .null, .bool, .number:
            return value
        }
    }

    // MARK: Paths

    /// `members[].name` → `["members", "[]", "name"]`.
    static func components(_ path: String) -> [String] {
        var out: [String] = []
        for part in path.split(separator: ".") {
            if part.hasSuffix("[]") {
                out.append(String(part.dropLast(2)))
                out.append("[]")
            } else {
                out.append(String(part))
            }
        }
        return out
    }

    /// True when some value at `path` is present and not null.
    static func hasValue(at path: String, in root: JSONValue) -> Bool {
        func walk(_ value: JSONValue, _ rest: ArraySlice<String>) -> Bool {
            guard let head = rest.first else { return value != .null }
            if head == "[]" {
                guard case .array(let items) = value else { return false }
                return items.contains { walk($0, rest.dropFirst()) }
            }
            guard case .object(let fields) = value, let next = fields[head] else { return false }
            return walk(next, rest.dropFirst())
        }
        return walk(root, components(path)[...])
    }

    private static func transform(
        _ value: JSONValue, at path: [String], _ change: (JSONValue) throws -> JSONValue
    ) throws -> JSONValue {
        guard let head = path.first else { return value == .null ? value : try change(value) }
        let rest = Array(path.dropFirst())
        if head == "[]" {
            guard case .array(let items) = value else { return value }
            return .array(try items.map { try transform($0, at: rest, change) })
        }
        guard case .object(var fields) = value, let next = fields[head] else { return value }
        fields[head] = try transform(next, at: rest, change)
        return .object(fields)
    }
}
