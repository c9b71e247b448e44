import Crypto
import Foundation
import HearthConfiguration
import HearthEvents

/// Why a configured key could not be had.
public struct KeyMaterialError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A 256-bit key from a setting, the one way Hearth reads its keys (`HEARTH_SECRETS_KEY`,
/// `HEARTH_MASTER_KEY`): 32 bytes as base64 or 64 hex digits. Without the setting, dev and test
/// use a key generated once under the run directory (shared by the executables of `make run`);
/// production has none.
public enum KeyMaterial {
    public static func load(
        _ variable: String, fileName: String, environment: EnvironmentReader, runDirectory: String, allowGenerated: Bool
    ) throws -> SymmetricKey? {
        if let text = environment.trimmed(variable) {
            return SymmetricKey(data: try decode(text, variable: variable))
        }
        guard allowGenerated else { return nil }
        let path = URL(fileURLWithPath: runDirectory).appendingPathComponent(fileName)
        if let existing = try? String(contentsOf: path, encoding: .utf8) {
            return SymmetricKey(data: try decode(existing.trimmingCharacters(in: .whitespacesAndNewlines), variable: path.path))
        }
        try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
        let fresh = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        // Created exclusively (O_EXCL): of executables starting together, one writes the key and
        // the others read it.
        let descriptor = open(path.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        if descriptor >= 0 {
            let text = Array(fresh.base64EncodedString().utf8)
            let written = text.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
            guard written == text.count else { throw KeyMaterialError("cannot write \(path.path)") }
            return SymmetricKey(data: fresh)
        }
        // Another process is writing it: wait until the whole key is there.
        for _ in 0..<100 {
            if let text = try? String(contentsOf: path, encoding: .utf8), let data = try? decode(text.trimmingCharacters(in: .whitespacesAndNewlines), variable: path.path) {
                return SymmetricKey(data: data)
            }
            usleep(20_000)
        }
        throw KeyMaterialError("\(path.path) is not a key (32 bytes as base64 or 64 hex digits)")
    }

    public static func decode(_ text: String, variable: String) throws -> Data {
        if text.count == 64, let bytes = Hex.decode(text) { return bytes }
        guard let data = Data(base64Encoded: text), data.count == 32 else {
            throw KeyMaterialError("\(variable) must be 32 bytes as base64 or 64 hex digits")
        }
        return data
    }

}

/// What protects the data keys at rest: each is stored wrapped (encrypted) by it. Production may
/// put a KMS behind this; `MasterKey` is the one built in.
public protocol KeyWrapping: Sendable {
    func wrap(_ key: SymmetricKey, subject: String) throws -> Data
    func unwrap(_ wrapped: Data, subject: String) throws -> SymmetricKey
}

/// The master key from `HEARTH_MASTER_KEY` (AES-256-GCM; the subject's name is the additional
/// data, so a wrapped key copied to another subject's row does not open).
public struct MasterKey: KeyWrapping {
    let key: SymmetricKey

    public init(key: SymmetricKey) {
        self.key = key
    }

    /// A key for another purpose (signing media links) derived from the master key, so no
    /// other secret needs configuring and neither use can be turned against the other.
    public func derivedKey(purpose: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: key, info: Data(purpose.utf8), outputByteCount: 32)
    }

    public func wrap(_ dataKey: SymmetricKey, subject: String) throws -> Data {
        let plaintext = dataKey.withUnsafeBytes { Data($0) }
        guard let combined = try AES.GCM.seal(plaintext, using: key, authenticating: Data(subject.utf8)).combined else {
            throw KeyMaterialError("AES-GCM produced no combined form")
        }
        return combined
    }

    public func unwrap(_ wrapped: Data, subject: String) throws -> SymmetricKey {
        SymmetricKey(data: try AES.GCM.open(AES.GCM.SealedBox(combined: wrapped), using: key, authenticating: Data(subject.utf8)))
    }

    /// `HEARTH_MASTER_KEY`; dev and test generate one as `$HEARTH_RUN_DIR/master.key`; production
    /// without it cannot start (personal data would have no key to be sealed with).
    public static func load(environment: EnvironmentReader, runDirectory: String, allowGenerated: Bool) throws -> MasterKey {
        guard let key = try KeyMaterial.load(
            "HEARTH_MASTER_KEY", fileName: "master.key", environment: environment, runDirectory: runDirectory, allowGenerated: allowGenerated)
        else { throw KeyMaterialError("HEARTH_MASTER_KEY is required in production: it protects the keys that seal personal data") }
        return MasterKey(key: key)
    }
}
