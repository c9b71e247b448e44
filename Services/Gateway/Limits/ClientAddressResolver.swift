import HearthDomain
import HearthRuntime
import HTTPTypes
import Hummingbird

/// Who a request counts against for rate limiting: the socket's peer address; or, when that peer
/// is one of the configured proxies (`HEARTH_TRUSTED_PROXIES`), the address `X-Forwarded-For`
/// names, read from the right: each trusted proxy appends who it saw, so the first entry from
/// the right that is not a trusted proxy is the client. Entries further left come from the
/// client and can be forged; a header from anyone else is ignored altogether.
struct ClientAddressResolver: Sendable {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    let trustedProxies: [NetworkRange]

    func address(of request: Request, context: HearthRequestContext) -> String {
        let peer = context.peerAddress ?? "unknown"
        guard isTrusted(peer) else { return peer }
        let entries = request.headers[values: Self.forwardedFor].joined(separator: ",").split(separator: ",")
        for entry in entries.reversed() {
            // A junk entry ends the walk: what is left of it cannot be trusted to be a chain.
            guard let address = Self.plausibleAddress(entry.trimmingCharacters(in: .whitespaces)) else { break }
            if !isTrusted(address) { return address }
        }
        return peer
    }

    private func isTrusted(_ address: String) -> Bool {
        guard !trustedProxies.isEmpty, let parsed = NetworkAddress(literal: address) else { return false }
        return trustedProxies.contains { $0.contains(parsed) }
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
