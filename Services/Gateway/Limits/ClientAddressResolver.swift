import HearthDomain
import HearthRuntime
import HTTPTypes
import Hummingbird

/// Who a request counts against for rate limiting: the socket's peer address, or, behind a
/// trusted proxy (`HEARTH_TRUST_PROXY=true`), the last address in `X-Forwarded-For`. The last one
/// is the address the proxy itself saw: earlier entries come from the client and can be forged.
struct ClientAddressResolver: Sendable {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    let trustProxy: Bool

    func address(of request: Request, context: HearthRequestContext) -> String {
        if trustProxy,
           let last = request.headers[values: Self.forwardedFor].joined(separator: ",").split(separator: ",").last,
           let address = Self.plausibleAddress(last.trimmingCharacters(in: .whitespaces))
        {
            return address
        }
        return context.peerAddress ?? "unknown"
    }

    /// An IPv4 or IPv6 address in its one canonical form (an IPv4 address with a port loses the
    /// port); anything else (names, junk, overlong input, other spellings of an address) is
    /// ignored, so a client cannot mint buckets at will.
    static func plausibleAddress(_ text: String) -> String? {
        guard (2...45).contains(text.utf8.count),
              text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || (0x41...0x46).contains($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: ":") }),
              text.contains(".") || text.contains(":")
        else { return nil }
        var address = Substring(text)
        // `1.2.3.4:5678`: one colon after a dotted quad is a port, not IPv6.
        if text.contains("."), text.filter({ $0 == ":" }).count == 1, let colon = address.firstIndex(of: ":") { address = address[..<colon] }
        // Only dotted quads and IPv6 text: inet_aton's other spellings (`2130706433`) are junk here.
        guard address.contains(":") || address.split(separator: ".").count == 4, let parsed = NetworkAddress(literal: String(address)) else { return nil }
        return parsed.description
    }
}
