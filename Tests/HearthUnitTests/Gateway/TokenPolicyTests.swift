import Foundation
import HearthDomain
import Testing

@Suite struct TokenPolicyTests {
    let policy = TokenPolicy(issuer: "https://appleid.apple.com", audiences: ["com.example.hearth"])
    let now = Date(timeIntervalSince1970: 1_750_000_000)

    func token(header: String) -> String {
        "\(Base64URL.encode(Data(header.utf8))).\(Base64URL.encode(Data(#"{"sub":"x"}"#.utf8))).c2ln"
    }

    func claims(issuer: String? = "https://appleid.apple.com", audiences: [String] = ["com.example.hearth"], subject: String? = "001.abc",
                expiresIn: TimeInterval? = 600, notBeforeIn: TimeInterval? = nil) -> TokenClaims {
        TokenClaims(issuer: issuer, audiences: audiences, subject: subject,
                    expiresAt: expiresIn.map { now.addingTimeInterval($0) }, notBefore: notBeforeIn.map { now.addingTimeInterval($0) })
    }

    @Test func onlyRS256WithAKeyIdPasses() throws {
        try policy.check(TokenHeader.parse(token(header: #"{"alg":"RS256","kid":"k1"}"#)))
        #expect(throws: TokenRejection.unsupportedAlgorithm("none")) { try policy.check(TokenHeader.parse(token(header: #"{"alg":"none","kid":"k1"}"#))) }
        #expect(throws: TokenRejection.unsupportedAlgorithm("HS256")) { try policy.check(TokenHeader.parse(token(header: #"{"alg":"HS256","kid":"k1"}"#))) }
        #expect(throws: TokenRejection.unsupportedAlgorithm("RS512")) { try policy.check(TokenHeader.parse(token(header: #"{"alg":"RS512","kid":"k1"}"#))) }
        #expect(throws: TokenRejection.unsupportedAlgorithm("none")) { try policy.check(TokenHeader.parse(token(header: #"{"kid":"k1"}"#))) }
        #expect(throws: TokenRejection.missingKeyId) { try policy.check(TokenHeader.parse(token(header: #"{"alg":"RS256"}"#))) }
    }

    @Test func malformedTokensAreRefusedBeforeAnyKeyIsUsed() {
        for bad in ["", "abc", "a.b", "a.b.c.d", "!!!.e30.sig", "\(Base64URL.encode(Data("[1]".utf8))).e30.sig", ".e30.sig"] {
            #expect(throws: TokenRejection.malformed, "\(bad)") { try TokenHeader.parse(bad) }
        }
    }

    @Test func headerFieldsAreRead() throws {
        let header = try TokenHeader.parse(token(header: #"{"alg":"RS256","kid":"W6WcOKB","typ":"JWT"}"#))
        #expect(header == TokenHeader(algorithm: "RS256", keyId: "W6WcOKB"))
    }

    @Test func validClaimsPass() throws {
        try policy.check(claims(), now: now)
        try policy.check(claims(expiresIn: -10), now: now)  // within the 30 s leeway
    }

    @Test func eachClaimRuleRefuses() {
        #expect(throws: TokenRejection.wrongIssuer) { try policy.check(claims(issuer: "https://evil.example"), now: now) }
        #expect(throws: TokenRejection.wrongIssuer) { try policy.check(claims(issuer: nil), now: now) }
        #expect(throws: TokenRejection.wrongAudience) { try policy.check(claims(audiences: ["com.other.app"]), now: now) }
        #expect(throws: TokenRejection.wrongAudience) { try policy.check(claims(audiences: []), now: now) }
        #expect(throws: TokenRejection.wrongAudience) { try policy.check(claims(audiences: ["com.example.hearth", "com.other.app"]), now: now) }
        #expect(throws: TokenRejection.expired) { try policy.check(claims(expiresIn: -31), now: now) }
        #expect(throws: TokenRejection.missingExpiry) { try policy.check(claims(expiresIn: nil), now: now) }
        #expect(throws: TokenRejection.notYetValid) { try policy.check(claims(notBeforeIn: 120), now: now) }
        #expect(throws: TokenRejection.missingSubject) { try policy.check(claims(subject: ""), now: now) }
        #expect(throws: TokenRejection.missingSubject) { try policy.check(claims(subject: nil), now: now) }
    }

    @Test func base64URLRoundTripsWithoutPadding() {
        let bytes = Data([0xFB, 0xFF, 0x00, 0x10])
        let text = Base64URL.encode(bytes)
        #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
        #expect(Base64URL.decode(text) == bytes)
        #expect(Base64URL.decode("e30=") == nil, "JWTs carry no padding")
    }
}
