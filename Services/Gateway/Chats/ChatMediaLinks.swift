import Crypto
import Foundation
import HearthEvents

/// Signed, expiring links to a chat image and its thumbnail:
/// `/v1/chats/{chat}/media/{media}[/thumbnail]?expires=<unix s>&signature=<hex>`, the signature an
/// HMAC-SHA256 of chat, media, variant and expiry under a key derived from the master key. The
/// route still wants a member's bearer token: the signature keeps a link from outliving the
/// message view it came in (a link copied out of the app stops working) and from being guessed.
struct ChatMediaLinks: Sendable {
    let key: SymmetricKey
    /// How long a link works (an hour unless configured).
    var lifetime: TimeInterval = 3600

    enum Variant: String, Sendable {
        case image, thumbnail
    }

    func link(chat: UUID, media: UUID, variant: Variant, now: Date = Date()) -> String {
        let expires = Int(now.timeIntervalSince1970 + lifetime)
        let path = "/v1/chats/\(chat.uuidString.lowercased())/media/\(media.uuidString.lowercased())" + (variant == .thumbnail ? "/thumbnail" : "")
        return "\(path)?expires=\(expires)&signature=\(signature(chat: chat, media: media, variant: variant, expires: expires))"
    }

    enum Check: Equatable {
        case valid, expired, forged
    }

    func check(chat: UUID, media: UUID, variant: Variant, expires: String?, signature given: String?, now: Date = Date()) -> Check {
        guard let expires, let seconds = Int(expires), let given,
              let expected = Hex.decode(signature(chat: chat, media: media, variant: variant, expires: seconds)),
              let presented = Hex.decode(given), presented.count == expected.count,
              HMAC<SHA256>.isValidAuthenticationCode(presented, authenticating: message(chat, media, variant, seconds), using: key)
        else { return .forged }
        return now.timeIntervalSince1970 <= TimeInterval(seconds) ? .valid : .expired
    }

    private func message(_ chat: UUID, _ media: UUID, _ variant: Variant, _ expires: Int) -> Data {
        Data("\(chat.uuidString.lowercased())|\(media.uuidString.lowercased())|\(variant.rawValue)|\(expires)".utf8)
    }

    private func signature(chat: UUID, media: UUID, variant: Variant, expires: Int) -> String {
        Hex.encode(HMAC<SHA256>.authenticationCode(for: message(chat, media, variant, expires), using: key))
    }
}
