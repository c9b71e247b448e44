import Foundation

/// Limits on what a user says about themselves, and their normal form.
public enum UserProfileRules {
    public static let maxDisplayNameLength = 80

    public static func displayName(_ text: String) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw FieldViolation(field: "display_name", message: "display_name must not be blank") }
        guard trimmed.unicodeScalars.count <= maxDisplayNameLength else {
            throw FieldViolation(field: "display_name", message: "display_name must be at most \(maxDisplayNameLength) characters")
        }
        return trimmed
    }

    /// A BCP 47 language tag in its usual shape (`en`, `en-GB`, `zh-Hant-TW`); `_` is read as `-`.
    public static func locale(_ text: String) throws -> String {
        let tag = text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "-")
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard tag.unicodeScalars.count <= 35, let language = subtags.first, (2...3).contains(language.count),
              language.allSatisfy({ $0.isASCII && $0.isLetter }),
              subtags.dropFirst().allSatisfy({ (2...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } })
        else {
            throw FieldViolation(field: "locale", message: "locale must be a language tag such as en or en-GB")
        }
        return tag
    }

    /// An IANA time zone name that this system's tz database knows (`Europe/Berlin`).
    public static func timeZone(_ text: String) throws -> String {
        let name = text.trimmingCharacters(in: .whitespaces)
        // Region names only: Foundation would also take "EST" or "GMT+05:00".
        guard let zone = LocalTime.zone(named: name) else {
            throw FieldViolation(field: "time_zone", message: "time_zone must be an IANA time zone such as Europe/Berlin")
        }
        return zone.identifier
    }
}
