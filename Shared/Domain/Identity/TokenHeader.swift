import Foundation

/// The JOSE header of a compact JWT, read before any key is chosen: `alg` decides whether the
/// token is looked at at all, `kid` which key verifies it.
public struct TokenHeader: Equatable, Sendable {
    public var algorithm: String?
    public var keyId: String?

    public init(algorithm: String?, keyId: String?) {
        self.algorithm = algorithm
        self.keyId = keyId
    }

    private struct Fields: Decodable {
        var alg: String?
        var kid: String?
    }

    /// Reads the header of `header.payload.signature`. Anything else (two parts, bad base64, a
    /// header that is not a JSON object) is `.malformed`.
    public static func parse(_ token: String) throws(TokenRejection) -> TokenHeader {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, let data = Base64URL.decode(parts[0]) else {
            throw .malformed
        }
        guard let fields = try? JSONDecoder().decode(Fields.self, from: data) else { throw .malformed }
        return TokenHeader(algorithm: fields.alg, keyId: fields.kid)
    }
}

/// Base64url without padding (RFC 7515 §2), as JWTs use it.
public enum Base64URL {
    public static func decode(_ text: some StringProtocol) -> Data? {
        guard !text.contains("=") else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        switch base64.count % 4 {
        case 0: break
        case 2: base64 += "=="
        case 3: base64 += "="
        default: return nil
        }
        return Data(base64Encoded: base64)
    }

    public static func encode(_ bytes: some DataProtocol) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
