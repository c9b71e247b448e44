import Crypto
import Foundation
import HearthConfiguration

/// Why the secrets key could not be had.
public struct SecretsKeyError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Seals secrets (Google refresh tokens, webhook signing secrets) with AES-256-GCM under the key
/// from `HEARTH_SECRETS_KEY`.
/// The sealed form is nonce ‖ ciphertext ‖ tag; the `context` (what owns the secret: a user's id,
/// a webhook's) is bound as additional data, so a ciphertext copied to another row does not open.
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

extension SecretBox {
    /// What a webhook's signing secret is sealed under: the webhook and the secret's row
    /// (`webhook_secrets.secret_ref`; nil for a secret an old event carried, which the notifier
    /// sealed itself), so a sealed secret moved to another webhook or row does not open.
    public static func webhookSecretContext(webhook: UUID, ref: UUID?) -> String {
        let webhookId = webhook.uuidString.lowercased()
        guard let ref else { return "webhook:\(webhookId):legacy" }
        return "webhook:\(webhookId):\(ref.uuidString.lowercased())"
    }
}
