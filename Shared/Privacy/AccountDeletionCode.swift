import Crypto
import Foundation

/// The confirmation code that lets `DELETE /v1/me` through without a fresh sign-in: six digits
/// pushed to the user's devices registered for a day or more, good for ten minutes and a few tries.
///
/// The code is never stored nor carried: the gateway and the notifier each derive it from the
/// code's id and its user with a key both hold (derived from `HEARTH_SECRETS_KEY`), so the event
/// that asks for the push names only the id, and neither table nor log holds the digits.
public struct AccountDeletionCode: Sendable {
    /// How long a code is good for.
    public static let lifetime: TimeInterval = 600
    /// Wrong codes a code takes before it is spent.
    public static let attemptLimit = 5
    public static let digits = 6
    /// How long a device must have been registered to receive a code: a stolen token could
    /// register a phone of its own, and receive the code there, were new devices trusted.
    public static let deviceSettling: TimeInterval = 86_400

    /// Whether a device registered at `registeredAt` may receive a code asked for at `codeAskedAt`.
    public static func trustedDevice(registeredAt: Date, codeAskedAt: Date) -> Bool {
        registeredAt <= codeAskedAt.addingTimeInterval(-deviceSettling)
    }

    let key: SymmetricKey

    public init(secrets: SecretBox) {
        key = secrets.derivedKey(purpose: "hearth account deletion code v1")
    }

    /// The code of `codeId`, issued to `user`: HMAC-SHA256 over both, truncated as HOTP does
    /// (RFC 4226 §5.3) to six decimal digits.
    public func code(codeId: UUID, user: UUID) -> String {
        let message = "\(user.uuidString.lowercased())|\(codeId.uuidString.lowercased())"
        let mac = Array(HMAC<SHA256>.authenticationCode(for: Data(message.utf8), using: key))
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let value = (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        let number = value % 1_000_000
        let text = String(number)
        return String(repeating: "0", count: Self.digits - text.count) + text
    }

    /// Whether `candidate` is the code of `codeId`, compared in constant time.
    public func matches(_ candidate: String, codeId: UUID, user: UUID) -> Bool {
        let expected = Array(code(codeId: codeId, user: user).utf8)
        let given = Array(candidate.utf8)
        guard given.count == expected.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(given, expected) { difference |= a ^ b }
        return difference == 0
    }

    /// Six ASCII digits: anything else is a malformed request, not a wrong code.
    public static func isWellFormed(_ candidate: String) -> Bool {
        candidate.utf8.count == digits && candidate.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// What the push says (the notifier's words; the code is filled in when it is sent).
    public static func message(code: String) -> String {
        "Your code to delete your Hearth account is \(code). It expires in 10 minutes. If you did not ask for it, ignore this message."
    }
}
