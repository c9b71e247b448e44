import Foundation

/// What JSONDecoder cannot say about a body: where a value sits that no read model can store, or
/// that no field type can hold. Pure, so the rules are tested without HTTP.
enum JSONBodyDiagnosis {
    /// The first string (value or key) that holds U+0000, as a field path (`prefs.allergies[1]`),
    /// or nil when there is none. Postgres cannot store NUL in text or jsonb, so an event carrying
    /// one would be accepted with a 2xx and then parked by every projection: the write would be
    /// lost. JSON can only spell NUL as the escape `\u0000`, so bodies without it skip the parse.
    static func pathOfNULCharacter(in body: Data) -> String? {
        guard containsEscapedNUL(body), let root = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else {
            return nil
        }
        return firstPath(in: root, at: "") { value in
            (value as? String)?.contains("\u{0}") == true
        }
    }

    /// The first number that is not a whole number inside the 64-bit range, as a field path. For a
    /// body JSONDecoder refused as "not valid JSON" although it parses: Foundation reports a
    /// number that does not fit an integer field that way, without the field.
    static func pathOfNonIntegerNumber(in body: Data) -> String? {
        guard let root = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else { return nil }
        return firstPath(in: root, at: "") { value in
            // JSON's true and false arrive as NSNumbers too; so do 0 and 1, which fit anyway.
            guard let number = value as? NSNumber, !(value is Bool) else { return false }
            return Int64(number.stringValue) == nil
        }
    }

    /// `\u0000` preceded by an odd number of backslashes (an even number escapes the backslashes
    /// themselves, and the `u0000` is then plain text).
    static func containsEscapedNUL(_ body: Data) -> Bool {
        body.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Bool in
            var index = 1
            while index + 5 <= bytes.count {
                if bytes[index] == UInt8(ascii: "u"), bytes[index - 1] == UInt8(ascii: "\\"),
                   bytes[index + 1] == UInt8(ascii: "0"), bytes[index + 2] == UInt8(ascii: "0"),
                   bytes[index + 3] == UInt8(ascii: "0"), bytes[index + 4] == UInt8(ascii: "0") {
                    var backslashes = 0
                    var back = index - 1
                    while back >= 0, bytes[back] == UInt8(ascii: "\\") {
                        backslashes += 1
                        back -= 1
                    }
                    if backslashes % 2 == 1 { return true }
                }
                index += 1
            }
            return false
        }
    }

    /// Depth-first, object keys in sorted order so that the answer does not depend on hashing.
    /// A matching key names the object it is in plus the key.
    private static func firstPath(in value: Any, at path: String, where matches: (Any) -> Bool) -> String? {
        if let object = value as? [String: Any] {
            for key in object.keys.sorted() {
                let child = path.isEmpty ? key : "\(path).\(key)"
                if matches(key) { return child }
                if let found = firstPath(in: object[key]!, at: child, where: matches) { return found }
            }
            return nil
        }
        if let array = value as? [Any] {
            for (index, element) in array.enumerated() {
                if let found = firstPath(in: element, at: "\(path)[\(index)]", where: matches) { return found }
            }
            return nil
        }
        return matches(value) ? (path.isEmpty ? "body" : path) : nil
    }
}
