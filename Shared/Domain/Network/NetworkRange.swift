import Foundation

/// An address range in CIDR notation (`10.0.0.0/8`, `fd00::/8`), or one address (`127.0.0.1`,
/// `::1`: all its bits): who may speak for a client in `X-Forwarded-For`.
public struct NetworkRange: Sendable, Equatable, CustomStringConvertible {
    public let network: NetworkAddress
    public let prefixLength: Int

    /// nil for anything that is not an IPv4 or IPv6 address with an optional `/length` in range.
    public init?(_ text: String) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "/", omittingEmptySubsequences: false)
        // Dotted quads and IPv6 text only: `10` is no way to write a proxy's address.
        guard (1...2).contains(parts.count), parts[0].contains(":") || parts[0].split(separator: ".").count == 4,
              let address = NetworkAddress(literal: String(parts[0]))
        else { return nil }
        let bits = Self.bits(of: address).count
        let length: Int
        if parts.count == 2 {
            guard let given = Int(parts[1]), (0...bits).contains(given), parts[1].allSatisfy(\.isNumber) else { return nil }
            length = given
        } else {
            length = bits
        }
        network = address
        prefixLength = length
    }

    /// Whether `address` is in the range; an IPv4-mapped IPv6 address (`::ffff:10.1.2.3`) counts
    /// as the IPv4 address it carries.
    public func contains(_ address: NetworkAddress) -> Bool {
        let candidate = Self.unmapped(address)
        let mine = Self.bits(of: network), theirs = Self.bits(of: candidate)
        guard mine.count == theirs.count else { return false }
        return mine.prefix(prefixLength) == theirs.prefix(prefixLength)
    }

    public var description: String { "\(network)/\(prefixLength)" }

    static func unmapped(_ address: NetworkAddress) -> NetworkAddress {
        if case .v6(let bytes) = address, bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            return .v4(bytes[12...15].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        }
        return address
    }

    static func bits(of address: NetworkAddress) -> [Bool] {
        switch address {
        case .v4(let value): (0..<32).map { value & (1 << (31 - UInt32($0))) != 0 }
        case .v6(let bytes): bytes.flatMap { byte in (0..<8).map { byte & (1 << (7 - UInt8($0))) != 0 } }
        }
    }
}
