import Crypto
import Foundation
import HearthEvents

/// How webhook deliveries are signed: `X-Hearth-Signature: sha256=<hex>` is HMAC-SHA256 with the
/// webhook's secret over `<timestamp>.<body>`, the timestamp (Unix seconds) being the
/// `X-Hearth-Timestamp` header. Binding the timestamp lets receivers reject replays.
public enum WebhookSignature {
    public static let signatureHeader = "X-Hearth-Signature"
    public static let timestampHeader = "X-Hearth-Timestamp"
    public static let eventHeader = "X-Hearth-Event"
    public static let deliveryHeader = "X-Hearth-Delivery"

    public static func sign(secret: String, timestamp: Int, body: Data) -> String {
        var message = Data("\(timestamp).".utf8)
        message.append(body)
        let code = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: Data(secret.utf8)))
        return "sha256=" + Hex.encode(code)
    }

    /// Constant-time check of a received signature (what a receiver does; the tests use it).
    public static func verify(secret: String, timestamp: Int, body: Data, signature: String) -> Bool {
        guard signature.hasPrefix("sha256="), let expected = Hex.decode(String(signature.dropFirst(7))) else { return false }
        var message = Data("\(timestamp).".utf8)
        message.append(body)
        return HMAC<SHA256>.isValidAuthenticationCode(expected, authenticating: message, using: SymmetricKey(data: Data(secret.utf8)))
    }
}
