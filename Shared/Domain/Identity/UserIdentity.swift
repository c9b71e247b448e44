import Foundation

/// Where a Hearth user's identity comes from.
public enum IdentityProvider: String, Codable, Sendable, CaseIterable {
    /// Sign in with Apple: the subject is Apple's stable `sub` for this app.
    case apple
    /// An anonymous install: the subject is the random id the app generated for the device.
    case device
    /// Development and test sign-in by name; never available in production.
    case dev
}

/// Derives user and first-household ids from who the user is, so every gateway instance gets the
/// same answer without a read: a second sign-in with the same Apple `sub` returns the same user id
/// even before the `users` read model has seen the first one, and two concurrent first upserts
/// of one user create one household, not two.
public enum UserIdentity {
    /// Fixed forever: changing it would give every existing user a new id.
    static let userNamespace = UUID(uuidString: "8B7C1E52-3F0A-4D8E-9C61-5A2B7F4E9D13")!
    static let householdNamespace = UUID(uuidString: "1D4F6A90-7B2C-4E35-8A17-C9E0B3D25F68")!

    public static func userId(provider: IdentityProvider, subject: String) -> UUID {
        NameBasedUUID.make(namespace: userNamespace, name: "\(provider.rawValue):\(subject)")
    }

    /// The id of the household a user creates by their first upsert.
    public static func firstHouseholdId(of userId: UUID) -> UUID {
        NameBasedUUID.make(namespace: householdNamespace, name: userId.uuidString.lowercased())
    }

    /// Dev sign-in names are matched case- and space-insensitively: "Alice " is "alice".
    public static func devSubject(forName name: String) -> String {
        name.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    /// Device ids are random ids the app made up; requiring some length keeps them unguessable
    /// enough that one install cannot stumble into another's anonymous account.
    public static func deviceSubject(_ deviceId: String) throws -> String {
        guard (16...128).contains(deviceId.utf8.count),
              deviceId.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".")
                  || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
        else {
            throw FieldViolation(field: "device_id", message: "device_id must be 16 to 128 letters, digits, '-', '_' or '.'")
        }
        return deviceId.lowercased()
    }

    public static func devName(_ name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...80).contains(trimmed.unicodeScalars.count) else { throw FieldViolation(field: "name", message: "name must be 1 to 80 characters") }
        return trimmed
    }
}
