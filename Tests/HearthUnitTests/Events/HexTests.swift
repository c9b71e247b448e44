import Crypto
import Foundation
import HearthEvents
import Testing

@Suite struct HexTests {
    @Test func encodesLowercaseAndDecodesEitherCase() {
        #expect(Hex.encode([0x00, 0x0f, 0xa5, 0xff]) == "000fa5ff")
        #expect(Hex.decode("000fa5ff") == Data([0x00, 0x0f, 0xa5, 0xff]))
        #expect(Hex.decode("000FA5FF") == Data([0x00, 0x0f, 0xa5, 0xff]))
        #expect(Hex.decode("") == Data())
        let digest = SHA256.hash(data: Data("hearth".utf8))
        #expect(Hex.decode(Hex.encode(digest)) == Data(digest))
        #expect(Hex.encode(digest) == digest.map { String(format: "%02x", $0) }.joined(), "the spelling every stored digest has")
    }

    @Test func refusesWhatIsNotHex() {
        #expect(Hex.decode("abc") == nil, "an odd number of digits")
        #expect(Hex.decode("zz") == nil)
        #expect(Hex.decode("0x12") == nil)
        #expect(Hex.decode("é1") == nil)
    }
}
