import Foundation
import HearthEvents

/// A rule a household's preferences broke, with the field it concerns.
public struct FieldViolation: Error, Equatable, Sendable, CustomStringConvertible {
    public let field: String
    public let message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { "\(field): \(message)" }
}

/// The limits a household's preferences must stay within, and their normal form (trimmed,
/// lower-cased, de-duplicated lists), so equal intents produce equal events.
public enum HouseholdPrefsRules {
    public static let adults = 0...20
    public static let childAge = 0...25
    public static let maxChildren = 20
    public static let maxListItems = 40
    public static let maxItemLength = 60
    public static let maxNameLength = 200

    public static func normalized(_ prefs: HouseholdPrefs) throws -> HouseholdPrefs {
        guard adults.contains(prefs.adults) else {
            throw FieldViolation(field: "prefs.adults", message: "prefs.adults must be between \(adults.lowerBound) and \(adults.upperBound)")
        }
        guard prefs.kidsAges.count <= maxChildren else {
            throw FieldViolation(field: "prefs.kidsAges", message: "prefs.kidsAges may list at most \(maxChildren) children")
        }
        for (index, age) in prefs.kidsAges.enumerated() where !childAge.contains(age) {
            throw FieldViolation(field: "prefs.kidsAges[\(index)]", message: "prefs.kidsAges[\(index)] must be an age between \(childAge.lowerBound) and \(childAge.upperBound)")
        }
        return HouseholdPrefs(
            adults: prefs.adults,
            kidsAges: prefs.kidsAges,
            allergies: try normalizedList(prefs.allergies, field: "prefs.allergies"),
            cuisines: try normalizedList(prefs.cuisines, field: "prefs.cuisines"))
    }

    public static func normalizedName(_ name: String?) throws -> String? {
        guard let name else { return nil }
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw FieldViolation(field: "name", message: "name must not be blank") }
        guard trimmed.unicodeScalars.count <= maxNameLength else {
            throw FieldViolation(field: "name", message: "name must be at most \(maxNameLength) characters")
        }
        return trimmed
    }

    /// Merges `update` into `current`: counts are replaced, lists gain the new entries.
    public static func merged(_ current: HouseholdPrefs, with update: HouseholdPrefs) -> HouseholdPrefs {
        func union(_ a: [String], _ b: [String]) -> [String] {
            var seen = Set<String>()
            return (a + b).filter { seen.insert($0).inserted }
        }
        return HouseholdPrefs(
            adults: update.adults, kidsAges: update.kidsAges,
            allergies: union(current.allergies, update.allergies), cuisines: union(current.cuisines, update.cuisines))
    }

    static func normalizedList(_ items: [String], field: String) throws -> [String] {
        guard items.count <= maxListItems else {
            throw FieldViolation(field: field, message: "\(field) may have at most \(maxListItems) entries")
        }
        var seen = Set<String>()
        var result: [String] = []
        for (index, item) in items.enumerated() {
            let value = item.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            guard !value.isEmpty, value.count <= maxItemLength else {
                throw FieldViolation(field: "\(field)[\(index)]", message: "\(field)[\(index)] must be 1 to \(maxItemLength) characters")
            }
            if seen.insert(value).inserted { result.append(value) }
        }
        return result
    }
}
