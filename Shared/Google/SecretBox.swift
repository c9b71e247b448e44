import Crypto
import Foundation
import HearthConfiguration

/// Why the secrets key could not be had.
public struct SecretsKeyError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Seals secrets (Google refresh tokens) with AES-256-GCM under the key from `HEARTH_SECRETS_KEY`.
/// The sealed form is nonce ‖ ciphertext ‖ tag; the `context` (the owning user's id) is bound as
/// additional data, so a ciphertext copied to another user's row does not open.
public struct SecretBox: Sendable {
    let key: SymmetricKey

    public init(key: SymmetricKey) {
        self.key = key
    }

    public func seal(_ secret: String, context: String) throws -> Data {
        let box = try AES.GCM.seal(Data(secret.utf8), using: key, authenticating: Data(context.utf8))
        guard let combined = box.combined else { throw SecretsKeyError("AES-GCM produced no combined form") }
        return combined
    }

    public func open(_ sealed: Data, context: String) throws -> String {
        let box = try AES.GCM.SealedBox(combined: sealed)
        return String(decoding: try AES.GCM.open(box, using: key, authenticating: Data(context.utf8)), as: UTF8.self)
    }

    /// A key for another purpose (signing OAuth state) derived from the same secret, so one
    /// variable configures both and neither use can be turned against the other.
    public func derivedKey(purpose: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: key, info: Data(purpose.utf8), outputByteCount: 32)
    }

    /// `HEARTH_SECRETS_KEY`: 32 bytes as base64 or 64 hex digits. Without it, dev and test use a
    /// key generated once under the run directory (shared by the executables of `make run`);
    /// production has none and Google linking stays off.
    public static func load(environment: EnvironmentReader, runDirectory: String, allowGenerated: Bool) throws -> SecretBox? {
        if let text = environment.trimmed("HEARTH_SECRETS_KEY") {
            return SecretBox(key: SymmetricKey(data: try decode(text)))
        }
        guard allowGenerated else { return nil }
        let path = URL(fileURLWithPath: runDirectory).appendingPathComponent("secrets.key")
        if let existing = try? String(contentsOf: path, encoding: .utf8) {
            return SecretBox(key: SymmetricKey(data: try decode(existing.trimmingCharacters(in: .whitespacesAndNewlines))))
        }
        try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
        let fresh = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        // Created exclusively: two executables starting together must not write two keys.
        if FileManager.default.createFile(atPath: path.path, contents: Data(fresh.base64EncodedString().utf8), attributes: [.posixPermissions: 0o600]) {
            if let written = try? String(contentsOf: path, encoding: .utf8) {
                return SecretBox(key: SymmetricKey(data: try decode(written.trimmingCharacters(in: .whitespacesAndNewlines))))
            }
        }
        return SecretBox(key: SymmetricKey(data: fresh))
    }

    static func decode(_ text: String) throws -> Data {
        if text.count == 64, let bytes = hex(text) { return bytes }
        guard let data = Data(base64Encoded: text), data.count == 32 else {
            throw SecretsKeyError("HEARTH_SECRETS_KEY must be 32 bytes as base64 or 64 hex digits")
        }
        return data
    }

    static func hex(_ text: String) -> Data? {
        var bytes = Data()
        var iterator = text.utf8.makeIterator()
        while let high = iterator.next(), let low = iterator.next() {
            guard let h = nibble(high), let l = nibble(low) else { return nil }
            bytes.append(h << 4 | l)
        }
        return bytes
    }

    static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 97...102: byte - 87
        case 65...70: byte - 55
        default: nil
        }
    }
}

/// Ids derived from names, so that an effect repeated for the same cause (a redelivered event)
/// carries the same id and its consumers can recognise the repeat.
public enum DerivedId {
    public static func uuid(_ name: String) -> UUID {
        var bytes = Array(SHA256.hash(data: Data(name.utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50  // version 5 layout (name-based, SHA)
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
