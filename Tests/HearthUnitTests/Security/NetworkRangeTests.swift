import HearthDomain
import Testing

@Suite struct NetworkRangeTests {
    @Test func rangesContainTheirAddressesOnly() throws {
        let private10 = try #require(NetworkRange("10.0.0.0/8"))
        #expect(private10.contains(try #require(NetworkAddress(literal: "10.200.3.4"))))
        #expect(!private10.contains(try #require(NetworkAddress(literal: "11.0.0.1"))))
        #expect(private10.contains(try #require(NetworkAddress(literal: "::ffff:10.1.2.3"))), "an IPv4-mapped peer is its IPv4 address")
        let one = try #require(NetworkRange("127.0.0.1"))
        let loopback = try #require(NetworkAddress(literal: "127.0.0.1"))
        #expect(one.prefixLength == 32 && one.contains(loopback))
        #expect(!one.contains(try #require(NetworkAddress(literal: "127.0.0.2"))))
        let ula = try #require(NetworkRange("fd00::/8"))
        #expect(ula.contains(try #require(NetworkAddress(literal: "fd12:3456::1"))))
        #expect(!ula.contains(try #require(NetworkAddress(literal: "fe80::1"))))
        #expect(!ula.contains(try #require(NetworkAddress(literal: "10.0.0.1"))), "families never mix")
        #expect(try #require(NetworkRange("0.0.0.0/0")).contains(try #require(NetworkAddress(literal: "8.8.8.8"))))
    }

    @Test func onlyAddressesWithALengthInRangeParse() {
        for bad in ["10", "10.0.0.0/33", "::1/129", "10.0.0.0/-1", "10.0.0.0/8/1", "proxy.internal", "", "10.0.0.0/ 8", "10.0.0.0/+8"] {
            #expect(NetworkRange(bad) == nil, "\(bad)")
        }
    }
}
