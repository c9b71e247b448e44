import Crypto
import CryptoExtras
import Foundation
import HearthConfiguration
import HearthDomain
import HearthRuntime
import JWTKit

/// The RSA key Hearth signs its own tokens with, and the `kid` its tokens name.
struct SigningKey: Sendable {
    let privateKey: JWTKit.Insecure.RSA.PrivateKey
    let keyId: String

    /// From `HEARTH_JWT_PRIVATE_KEY_FILE`; in dev and test without it, from a key pair generated
    /// once under `$HEARTH_RUN_DIR/keys`; in production without it, a configuration error.
    static func load(_ settings: GatewaySettings) throws -> SigningKey {
        let pem: String
        if let file = settings.privateKeyFile {
            do {
                pem = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw ConfigurationError(variable: "HEARTH_JWT_PRIVATE_KEY_FILE", reason: "cannot read \(file): \(error.localizedDescription)")
            }
        } else if settings.isProduction {
            throw ConfigurationError(
                variable: "HEARTH_JWT_PRIVATE_KEY_FILE",
                reason: "required in production: the path of a PEM RSA private key (2048 bits or more) that signs Hearth's tokens, "
                    + "e.g. made with `openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048`")
        } else {
            pem = try developmentKey(in: settings.runDirectory)
        }
        let key: JWTKit.Insecure.RSA.PrivateKey
        do {
            key = try JWTKit.Insecure.RSA.PrivateKey(pem: pem)
        } catch {
            throw ConfigurationError(variable: "HEARTH_JWT_PRIVATE_KEY_FILE", reason: "not a PEM RSA private key of 2048 bits or more (\(error))")
        }
        return SigningKey(privateKey: key, keyId: settings.keyId ?? thumbprintKeyId(of: key.publicKey))
    }

    /// A stable id for a public key: the first 16 characters of its SHA-256 thumbprint, so a new
    /// key gets a new `kid` and old tokens are refused by name rather than by a failed signature.
    static func thumbprintKeyId(of publicKey: JWTKit.Insecure.RSA.PublicKey) -> String {
        String(Base64URL.encode(Array(SHA256.hash(data: publicKey.derRepresentation))).prefix(16))
    }

    /// Generates the dev key once. Hard-linking a finished temporary file into place creates the
    /// key atomically: when two gateways start together, one wins and both read the winner's key.
    private static func developmentKey(in runDirectory: String) throws -> String {
        let folder = URL(fileURLWithPath: runDirectory).appendingPathComponent("keys", isDirectory: true)
        let path = folder.appendingPathComponent("jwt-private.pem").path
        if let existing = try? String(contentsOfFile: path, encoding: .utf8) { return existing }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let generated = try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation
            let temporary = folder.appendingPathComponent("jwt-private.pem.\(UUID().uuidString)").path
            guard FileManager.default.createFile(atPath: temporary, contents: Data(generated.utf8), attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteUnknown)
            }
            defer { try? FileManager.default.removeItem(atPath: temporary) }
            try? FileManager.default.linkItem(atPath: temporary, toPath: path)
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError(variable: "HEARTH_RUN_DIR", reason: "cannot create the dev signing key under \(folder.path): \(error.localizedDescription)")
        }
    }
}
