import Foundation

/// The role a person plays in a household.
public enum MemberRole: String, Codable, Sendable, CaseIterable {
    case parent, child, caregiver, coach
}

/// Limits on household members and how ages follow from birthdates (`CalendarDay` is the
/// planning domain's civil date). Ages are worked out when a household is read, never stored: a
/// stored age would go stale, and a read model must not depend on the day it was built.
public enum HouseholdMemberRules {
    public static let maxNameLength = 80
    public static let maxMembers = 30
    public static let oldestAge = 130

    /// Completed years on `day`. Someone born on 29 February has their birthday on 1 March in
    /// common years.
    public static func age(bornOn birthdate: CalendarDay, on day: CalendarDay) -> Int {
        var years = day.year - birthdate.year
        if (day.month, day.day) < (birthdate.month, birthdate.day) { years -= 1 }
        return max(0, years)
    }

    public static func normalizedName(_ name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw FieldViolation(field: "name", message: "name must not be blank") }
        guard trimmed.unicodeScalars.count <= maxNameLength else {
            throw FieldViolation(field: "name", message: "name must be at most \(maxNameLength) characters")
        }
        return trimmed
    }

    public static func role(_ text: String) throws -> MemberRole {
        guard let role = MemberRole(rawValue: text) else {
            throw FieldViolation(field: "role", message: "role must be one of \(MemberRole.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return role
    }

    /// A birthdate must be a real day, not in the future, and not absurdly long ago.
    public static func birthdate(_ text: String, today: CalendarDay) throws -> CalendarDay {
        guard let day = CalendarDay(isoDate: text) else {
            throw FieldViolation(field: "birthdate", message: "birthdate must be a date written YYYY-MM-DD")
        }
        guard day <= today else { throw FieldViolation(field: "birthdate", message: "birthdate must not be in the future") }
        guard age(bornOn: day, on: today) <= oldestAge else {
            throw FieldViolation(field: "birthdate", message: "birthdate must be within the last \(oldestAge) years")
        }
        return day
    }
}

extension CalendarDay {
    /// Today in UTC: the day ages are reckoned on when a household is read.
    public static var today: CalendarDay { CalendarDay(Date(), in: .gmt) }
}
