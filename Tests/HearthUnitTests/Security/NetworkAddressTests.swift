import Foundation
import HearthDomain
import Testing

@Suite struct NetworkAddressTests {
    /// Every way of writing an internal address that a URL parser or resolver takes as one.
    static let internalHosts = [
        "127.0.0.1", "127.1", "2130706433", "0x7f000001", "0x7f.1", "0177.0.0.1", "0", "0.0.0.0",
        "10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254", "100.64.0.1", "224.0.0.1", "255.255.255.255", "198.18.0.1",
        "::1", "[::1]", "::", "::ffff:127.0.0.1", "[::ffff:169.254.169.254]", "64:ff9b::a9fe:a9fe", "2002:7f00:1::", "fe80::1",
        "fe80::1%eth0", "fd00::1", "ff02::1", "2001:db8::1",
    ]

    @Test("internal addresses in every spelling are not public", arguments: internalHosts)
    func internalAddresses(host: String) throws {
        let address = try #require(NetworkAddress(literal: host), "\(host) is an address")
        #expect(!address.isPublic, "\(host) → \(address)")
    }

    @Test("public addresses are", arguments: ["93.184.216.34", "1.1.1.1", "8.8.8.8", "2606:4700:4700::1111", "[2a00:1450:4007:80f::200e]", "::ffff:8.8.8.8"])
    func publicAddresses(host: String) throws {
        let address = try #require(NetworkAddress(literal: host))
        #expect(address.isPublic)
    }

    @Test func hostNamesAreNotAddresses() {
        for name in ["example.com", "hooks.example.com", "1.example", "0x7f.example.com", "localhost"] {
            #expect(NetworkAddress(literal: name) == nil, "\(name)")
        }
        #expect(NetworkAddress.isLocalName("localhost") && NetworkAddress.isLocalName("api.localhost") && NetworkAddress.isLocalName("metadata.google.internal"))
        #expect(NetworkAddress.isLocalName("intranet"), "a single label resolves through the local search domain")
        #expect(!NetworkAddress.isLocalName("hooks.example.com"))
    }

    @Test func numericFormsMeanWhatTheResolverReads() throws {
        #expect(try #require(NetworkAddress(literal: "2130706433")).description == "127.0.0.1")
        #expect(try #require(NetworkAddress(literal: "0x7f.1")).description == "127.0.0.1")
        #expect(try #require(NetworkAddress(literal: "[::ffff:127.0.0.1]")).description == "::ffff:127.0.0.1")
    }

    @Test func localhostResolvesToLoopback() throws {
        let addresses = try NetworkAddress.resolve("localhost")
        #expect(!addresses.isEmpty && addresses.allSatisfy { !$0.isPublic })
    }
}
