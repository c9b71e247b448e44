import Crypto
import Foundation

/// Bearer secrets the gateway hands out (refresh tokens, OAuth state bindings, webhook secrets,
/// console sessions and sign-in links): 256 random bits, base64url without padding, and the
/// SHA-256 under which the tables keep them, so a leaked table holds nothing presentable.
enum SecretToken {
    /// 43 characters of base64url.
    static func random() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.base64URL
    }

    static func hash(_ token: String) -> Data {
        Data(SHA256.hash(data: Data(token.utf8)))
    }

    /// Whether `text` has the shape `random()` gives, checked before any lookup.
    static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == 43 && Data(base64URL: text) != nil
    }
}
