import Foundation

/// The id a Hearth entry has in Google Calendar, chosen by Hearth so that inserting the same entry
/// twice is recognisably the same insert (Google answers 409 instead of creating a duplicate).
///
/// Calendar API rules for client-chosen ids: characters of base32hex (`0-9`, `a-v`), 5 to 1024
/// long. The 16 bytes of Hearth's UUID in base32hex, lower-case, unpadded, are 26 such characters.
public enum GoogleEventId {
    static let alphabet = Array("0123456789abcdefghijklmnopqrstuv".utf8)

    public static func derive(from id: UUID) -> String {
        let bytes = withUnsafeBytes(of: id.uuid) { Array($0) }
        var output: [UInt8] = []
        var buffer = 0, bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                output.append(alphabet[(buffer >> bits) & 31])
            }
            buffer &= (1 << bits) - 1
        }
        if bits > 0 { output.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return String(decoding: output, as: UTF8.self)
    }

    /// Whether `text` is an id the Calendar API accepts.
    public static func isValid(_ text: String) -> Bool {
        (5...1024).contains(text.utf8.count) && text.utf8.allSatisfy { alphabet.contains($0) }
    }
}
