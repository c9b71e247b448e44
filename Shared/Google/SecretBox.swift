import Crypto
import Foundation
import HearthConfiguration
import HearthPrivacy

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

    /// `HEARTH_SECRETS_KEY` (read as every key is: `KeyMaterial`). Without it, dev and test use
    /// a key generated once under the run directory; production has none and Google linking
    /// stays off.
    public static func load(environment: EnvironmentReader, runDirectory: String, allowGenerated: Bool) throws -> SecretBox? {
        try KeyMaterial.load(
            "HEARTH_SECRETS_KEY", fileName: "secrets.key", environment: environment, runDirectory: runDirectory, allowGenerated: allowGenerated
        ).map(SecretBox.init(key:))
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
