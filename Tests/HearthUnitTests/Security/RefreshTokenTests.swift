import Foundation
import Testing

@testable import GatewayService

/// The shape of a refresh token: what the gateway accepts to look up, and what it stores.
@Suite struct RefreshTokenTests {
    @Test func generatedTokensAreUniqueAndAcceptedBackAndOnlyTheirHashIsKept() throws {
        let tokens = (0..<100).map { _ in RefreshToken.generate() }
        #expect(Set(tokens.map(\.text)).count == 100)
        for token in tokens {
            let presented = try #require(RefreshToken(presented: token.text))
            #expect(presented == token)
            #expect(presented.hash.count == 32)
            #expect(presented.hash != Data(token.text.utf8))
        }
        #expect(tokens[0].hash != tokens[1].hash)
    }

    @Test func textsThatAreNotRefreshTokensAreRefusedBeforeAnyLookUp() {
        let valid = RefreshToken.generate().text
        let refused = [
            "", "hrt_", "hrt_short", String(valid.dropFirst(4)), "xrt_" + valid.dropFirst(4), valid + "A", String(valid.dropLast()),
            "hrt_" + String(repeating: "!", count: 43), "eyJhbGciOiJSUzI1NiJ9.e30.sig",
        ]
        for text in refused {
            #expect(RefreshToken(presented: text) == nil, "\(text)")
        }
    }
}
