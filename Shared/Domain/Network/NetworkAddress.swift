import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IP address, in any spelling, and whether it is on the public internet: what a webhook may
/// be sent to (a URL a user chose, called from inside Hearth's network: one that reaches
/// loopback, a private or link-local range — the cloud metadata service at 169.254.169.254 —,
/// CGNAT, multicast or any other special-purpose range would let a user probe or call what only
/// Hearth can reach), and the one canonical form a client's address is counted under.
public enum NetworkAddress: Sendable, Equatable, CustomStringConvertible {
    case v4(UInt32)
    case v6([UInt8])

    /// The address `text` spells, in any form a URL parser or the resolver accepts as one:
    /// dotted quads, and the numeric forms `inet_aton` reads (`2130706433`, `0x7f.1`, `0177.0.0.1`,
    /// `127.1`), and IPv6 with or without brackets. Nil for a host name.
    public init?(literal text: String) {
        var host = text
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.contains(":") {
            // A zone index (`fe80::1%eth0`) names an interface: link-local either way.
            let address = host.split(separator: "%", maxSplits: 1).first.map(String.init) ?? host
            var bytes = in6_addr()
            guard inet_pton(AF_INET6, address, &bytes) == 1 else { return nil }
            self = .v6(withUnsafeBytes(of: bytes) { Array($0) })
            return
        }
        // Every label numeric (decimal, octal or hex): an IPv4 address in one of its old forms.
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard !labels.isEmpty, labels.allSatisfy({ $0.range(of: "^(0[xX][0-9a-fA-F]*|[0-9]+)$", options: .regularExpression) != nil }) else { return nil }
        var address = in_addr()
        guard inet_aton(host, &address) == 1 else { return nil }
        self = .v4(UInt32(bigEndian: address.s_addr))
    }

    /// From a resolved socket address (what `getaddrinfo` gave).
    public init?(socketAddress: UnsafePointer<sockaddr>) {
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET:
            let v4 = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
            self = .v4(UInt32(bigEndian: v4))
        case AF_INET6:
            let v6 = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            self = .v6(withUnsafeBytes(of: v6) { Array($0) })
        default:
            return nil
        }
    }

    /// Not loopback, private, link-local, shared (CGNAT), multicast, reserved, documentation or
    /// benchmarking space; IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4) are judged
    /// by that address.
    public var isPublic: Bool {
        switch self {
        case .v4(let address): Self.isPublicV4(address)
        case .v6(let bytes): Self.isPublicV6(bytes)
        }
    }

    /// The form a URL or `dnsOverride` takes.
    public var description: String {
        switch self {
        case .v4(let address):
            return [24, 16, 8, 0].map { String((address >> UInt32($0)) & 0xFF) }.joined(separator: ".")
        case .v6(let bytes):
            var storage = in6_addr()
            withUnsafeMutableBytes(of: &storage) { $0.copyBytes(from: bytes) }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, &storage, &text, socklen_t(text.count)) != nil else { return "::" }
            return String(cString: text)
        }
    }

    private static let privateV4: [(UInt32, UInt32)] = [
        (0x0000_0000, 8),  // "this network"
        (0x0A00_0000, 8),  // private
        (0x6440_0000, 10),  // shared address space (CGNAT)
        (0x7F00_0000, 8),  // loopback
        (0xA9FE_0000, 16),  // link-local (cloud metadata)
        (0xAC10_0000, 12),  // private
        (0xC000_0000, 24),  // IETF protocol assignments
        (0xC000_0200, 24),  // documentation
        (0xC058_6300, 24),  // 6to4 relay anycast
        (0xC0A8_0000, 16),  // private
        (0xC612_0000, 15),  // benchmarking
        (0xC633_6400, 24),  // documentation
        (0xCB00_7100, 24),  // documentation
        (0xE000_0000, 4),  // multicast
        (0xF000_0000, 4),  // reserved, and broadcast
    ]

    static func isPublicV4(_ address: UInt32) -> Bool {
        !privateV4.contains { network, length in address >> (32 - length) == network >> (32 - length) }
    }

    static func isPublicV6(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == 16 else { return false }
        func v4(at offset: Int) -> UInt32 {
            bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
        let prefix96 = bytes[0..<12]
        if prefix96.allSatisfy({ $0 == 0 }) { return false }  // unspecified, loopback, IPv4-compatible
        if prefix96.elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]) { return isPublicV4(v4(at: 12)) }  // IPv4-mapped
        if prefix96.elementsEqual([0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0]) { return isPublicV4(v4(at: 12)) }  // NAT64
        if bytes[0] == 0x20, bytes[1] == 0x02 { return isPublicV4(v4(at: 2)) }  // 6to4
        if bytes[0] & 0xFE == 0xFC { return false }  // unique local
        if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0x80 { return false }  // link-local
        if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0xC0 { return false }  // site-local (deprecated)
        if bytes[0] == 0xFF { return false }  // multicast
        if bytes[0] == 0x20, bytes[1] == 0x01, bytes[2] == 0x0D, bytes[3] == 0xB8 { return false }  // documentation
        if bytes[0] == 0x20, bytes[1] == 0x01, bytes[2] < 0x02 { return false }  // IETF special (Teredo, benchmarking, ORCHID...)
        if bytes[0..<8].elementsEqual([0x01, 0, 0, 0, 0, 0, 0, 0]) { return false }  // discard-only
        return true
    }

    /// Every address `host` resolves to (any host name, or a literal). Throws when it resolves to
    /// none.
    public static func resolve(_ host: String) throws -> [NetworkAddress] {
        if let literal = NetworkAddress(literal: host) { return [literal] }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else { throw NetworkAddressError.unresolvable(host) }
        defer { freeaddrinfo(list) }
        var addresses: [NetworkAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let socketAddress = current.pointee.ai_addr, let address = NetworkAddress(socketAddress: socketAddress), !addresses.contains(address) {
                addresses.append(address)
            }
            entry = current.pointee.ai_next
        }
        guard !addresses.isEmpty else { throw NetworkAddressError.unresolvable(host) }
        return addresses
    }

    /// Host names that are never public, whatever a resolver says.
    public static func isLocalName(_ host: String) -> Bool {
        let name = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "."))
        return name == "localhost" || name.hasSuffix(".localhost") || name.hasSuffix(".local") || name.hasSuffix(".internal")
            || name == "metadata" || !name.contains(".") && NetworkAddress(literal: name) == nil
    }
}

public enum NetworkAddressError: Error, CustomStringConvertible, Sendable {
    case unresolvable(String)
    case notPublic(host: String, address: String)

    public var description: String {
        switch self {
        case .unresolvable(let host): "\(host) does not resolve"
        case .notPublic(let host, let address): "\(host) resolves to \(address), which is not a public address"
        }
    }
}
