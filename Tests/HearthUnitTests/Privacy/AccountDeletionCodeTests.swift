import Crypto
import Foundation
import HearthPrivacy
import Testing

/// The digits of a deletion code: the same wherever they are derived from the same key, different
/// for another code, user or key, always six ASCII digits, and checked whole.
@Suite struct AccountDeletionCodeTests {
    static let secrets = SecretBox(key: SymmetricKey(data: Data(repeating: 7, count: 32)))

    @Test func theGatewayAndTheNotifierDeriveTheSameDigits() {
        let user = UUID()
        let code = UUID()
        let gateway = AccountDeletionCode(secrets: Self.secrets)
        let notifier = AccountDeletionCode(secrets: SecretBox(key: SymmetricKey(data: Data(repeating: 7, count: 32))))
        #expect(gateway.code(codeId: code, user: user) == notifier.code(codeId: code, user: user))
        #expect(gateway.matches(notifier.code(codeId: code, user: user), codeId: code, user: user))
    }

    @Test func anotherCodeUserOrKeyGivesOtherDigits() {
        let codes = AccountDeletionCode(secrets: Self.secrets)
        let other = AccountDeletionCode(secrets: SecretBox(key: SymmetricKey(data: Data(repeating: 8, count: 32))))
        let user = UUID()
        var differentCode = 0, differentUser = 0, differentKey = 0
        for _ in 0..<200 {
            let id = UUID()
            let digits = codes.code(codeId: id, user: user)
            if digits != codes.code(codeId: UUID(), user: user) { differentCode += 1 }
            if digits != codes.code(codeId: id, user: UUID()) { differentUser += 1 }
            if digits != other.code(codeId: id, user: user) { differentKey += 1 }
        }
        // A collision of six digits is a one-in-a-million chance per pair.
        #expect(differentCode >= 199 && differentUser >= 199 && differentKey >= 199)
    }

    @Test func codesAreSixDigitsSpreadOverTheRangeLeadingZerosIncluded() {
        let codes = AccountDeletionCode(secrets: Self.secrets)
        let user = UUID()
        var leadingZero = 0
        var firstDigits = Set<Character>()
        for _ in 0..<2000 {
            let digits = codes.code(codeId: UUID(), user: user)
            #expect(AccountDeletionCode.isWellFormed(digits), "\(digits)")
            if digits.hasPrefix("0") { leadingZero += 1 }
            firstDigits.insert(digits.first!)
        }
        #expect(firstDigits.count == 10, "every leading digit occurs")
        #expect(leadingZero > 100 && leadingZero < 320, "about a tenth start with 0: \(leadingZero)")
    }

    @Test func onlyTheWholeCodeMatches() {
        let codes = AccountDeletionCode(secrets: Self.secrets)
        let user = UUID()
        let id = UUID()
        let digits = codes.code(codeId: id, user: user)
        #expect(codes.matches(digits, codeId: id, user: user))
        #expect(!codes.matches(String(digits.dropLast()), codeId: id, user: user))
        #expect(!codes.matches(digits + "0", codeId: id, user: user))
        #expect(!codes.matches(String(digits.reversed()), codeId: id, user: user) || digits == String(digits.reversed()))
        let otherId = UUID()
        #expect(!codes.matches(digits, codeId: otherId, user: user) || codes.code(codeId: otherId, user: user) == digits)
        #expect(!codes.matches("", codeId: id, user: user))
    }

    @Test func onlySixAsciiDigitsAreWellFormed() {
        for good in ["000000", "123456", "999999"] { #expect(AccountDeletionCode.isWellFormed(good)) }
        for bad in ["", "12345", "1234567", "12a456", " 123456", "١٢٣٤٥٦", "12 456", "-12345"] {
            #expect(!AccountDeletionCode.isWellFormed(bad), "\(bad)")
        }
    }
}
