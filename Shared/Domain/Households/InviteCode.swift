import Foundation

/// Household invite codes: 12 characters of Crockford's base32 (60 random bits, no I, L, O or U),
/// short enough to read out, far too many to guess within the rate limits.
public enum InviteCode {
    public static let length = 12
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    /// How long a code can be redeemed.
    public static let lifetime: TimeInterval = 7 * 24 * 3600

    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return generate(using: &generator)
    }

    public static func generate(using generator: inout some RandomNumberGenerator) -> String {
        String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    /// The code as typed: case, spaces and dashes do not matter, and the letters people confuse
    /// with digits (O, I, L) read as those digits. Nil when it cannot be a code.
    public static func normalized(_ input: String) -> String? {
        var code = ""
        for character in input.uppercased() where character != "-" && !character.isWhitespace {
            switch character {
            case "O": code.append("0")
            case "I", "L": code.append("1")
            default:
                guard alphabet.contains(character) else { return nil }
                code.append(character)
            }
        }
        return code.count == length ? code : nil
    }
}
