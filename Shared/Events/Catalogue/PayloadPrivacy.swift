import Foundation

/// Whose personal data a field is: the subject whose data key seals it. Erasing the subject
/// destroys that key, and with it every copy of the field in Kafka, the archive and replays.
///
/// The subject's id is read from another field of the same payload (`field`, a dotted path from
/// the payload's root), so a payload names its subject once and every personal field refers to it.
public enum SubjectReference: Sendable, Equatable, Hashable {
    /// A person: their own words, names, tokens, addresses.
    case user(field: String)
    /// A family: what belongs to the household as a whole (its name, its children, its plans,
    /// what its members write to each other). Erased when the household is deleted.
    case household(field: String)
    /// One assistant run's output (a key per run): erased with the user who asked, and when the
    /// run is older than the retention period.
    case run(field: String)
    /// The household's when the payload names one (a household's calendar stays with the
    /// household when its author leaves), else the user's (their own entries).
    case householdElseUser(household: String, user: String)

    /// The fields the subject's id may be read from.
    public var fields: [String] {
        switch self {
        case .user(let field), .household(let field), .run(let field): [field]
        case .householdElseUser(let household, let user): [household, user]
        }
    }

    /// The subject's name in the key store (`user:<uuid>`, `household:<uuid>`, `run:<uuid>`) for
    /// `payload`, nil when the payload does not carry its id.
    public func name(in payload: JSONValue) -> String? {
        func id(_ field: String) -> String? {
            var current = payload
            for component in field.split(separator: ".") {
                guard case .object(let fields) = current, let next = fields[String(component)] else { return nil }
                current = next
            }
            guard case .string(let text) = current else { return nil }
            return text.lowercased()
        }
        switch self {
        case .user(let field): return id(field).map { "user:\($0)" }
        case .household(let field): return id(field).map { "household:\($0)" }
        case .run(let field): return id(field).map { KeySubject.runPrefix + $0 }
        case .householdElseUser(let household, let user):
            return id(household).map { "household:\($0)" } ?? id(user).map { "user:\($0)" }
        }
    }
}

/// Subject names for code that names a subject by its id rather than reading it from a payload
/// (the same names `SubjectReference.name(in:)` gives).
public enum KeySubject {
    static let runPrefix = "run:"

    public static func run(_ id: UUID) -> String { runPrefix + id.uuidString.lowercased() }

    public static func isRun(_ subject: String) -> Bool { subject.hasPrefix(runPrefix) }
}

/// One personal field: whose it is, and what a reader gets once the subject's key is destroyed
/// (JSON `null` unless the field cannot be absent).
public struct PersonalField: Sendable, Equatable {
    public var subject: SubjectReference
    public var erased: JSONValue

    public init(_ subject: SubjectReference, erased: JSONValue = .null) {
        self.subject = subject
        self.erased = erased
    }

    public static func user(_ field: String, erased: JSONValue = .null) -> PersonalField {
        PersonalField(.user(field: field), erased: erased)
    }

    public static func household(_ field: String, erased: JSONValue = .null) -> PersonalField {
        PersonalField(.household(field: field), erased: erased)
    }

    public static func run(_ field: String, erased: JSONValue = .null) -> PersonalField {
        PersonalField(.run(field: field), erased: erased)
    }

    public static func householdElseUser(_ household: String, _ user: String, erased: JSONValue = .null) -> PersonalField {
        PersonalField(.householdElseUser(household: household, user: user), erased: erased)
    }
}

/// How each field of a payload is classified for privacy: personal (sealed with its subject's
/// key on the wire and in the archive) or explicitly not. Every field a payload encodes must be in
/// one of the two lists: `PayloadPrivacyTests` fails on a field that is in neither.
///
/// Paths are dotted JSON names from the payload's root; `[]` steps into every element of an array
/// (`members[].name`). A personal path may name an object or an array: the whole value is sealed as
/// one. The fields under a personal path need no classification of their own.
public struct PayloadPrivacy: Sendable {
    public var personal: [String: PersonalField]
    public var notPersonal: Set<String>

    public init(personal: [String: PersonalField] = [:], notPersonal: Set<String>) {
        self.personal = personal
        self.notPersonal = notPersonal
    }

    /// A payload with no personal field at all.
    public static func nothingPersonal(_ fields: Set<String>) -> PayloadPrivacy {
        PayloadPrivacy(notPersonal: fields)
    }

    public var hasPersonalFields: Bool { !personal.isEmpty }

    /// The personal paths, in a fixed order (so sealing is reproducible for a given key and nonce).
    public var personalPaths: [String] { personal.keys.sorted() }
}
