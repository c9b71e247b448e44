import Foundation
import HearthRuntime
import Logging
import PostgresNIO

/// One profile fact with its provenance, in the API's shape.
struct ProfileFactView: Encodable, Sendable {
    var factId: String
    var memberId: String?
    var subject: String
    var kind: String
    var value: String
    var polarity: String
    var confidence: Double
    var status: String
    var source: Source
    var extractedAt: Date
    var decidedBy: String?
    /// True while the fact is about someone named who is no member yet: link it
    /// (`POST /v1/profile/facts/{id}/link`) to make it a member's.
    var unknownSubject: Bool

    struct Source: Encodable, Sendable {
        var messageId: String
        var chatId: String
        var quotedSpan: String
        var extractor: String
        enum CodingKeys: String, CodingKey {
            case messageId = "message_id"
            case chatId = "chat_id"
            case quotedSpan = "quoted_span"
            case extractor
        }
    }

    enum CodingKeys: String, CodingKey {
        case factId = "fact_id"
        case memberId = "member_id"
        case subject, kind, value, polarity, confidence, status, source
        case extractedAt = "extracted_at"
        case decidedBy = "decided_by"
        case unknownSubject = "unknown_subject"
    }
}

/// A constraint meal planning respects now, and the fact that put it there.
struct ProfileConstraintView: Encodable, Sendable {
    var subject: String
    var kind: String
    var value: String
    var sourceFactId: String
    enum CodingKeys: String, CodingKey {
        case subject, kind, value
        case sourceFactId = "source_fact_id"
    }
}

/// An allergen a child reacted to, from tracking: it constrains the household's meal plans like a
/// declared allergy, and says where it came from.
struct ChildReactionView: Encodable, Sendable {
    var childId: String
    var subject: String
    var allergen: String
    var reactedAt: Date
    var severity: String?
    /// `food_log` (a food logged with a reaction) or `check_in` (the allergen check-in's answer).
    var source: String?
    var foodLogId: String?
    var reportedBy: String?
    enum CodingKeys: String, CodingKey {
        case childId = "child_id"
        case subject, allergen
        case reactedAt = "reacted_at"
        case severity, source
        case foodLogId = "food_log_id"
        case reportedBy = "reported_by"
    }
}

/// Reads of `profile_facts` and `profile_constraints`, and of the reactions tracking recorded.
struct ProfileReadModel: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// The household's facts and the constraints derived from them, as of one moment: both are
    /// read in one repeatable-read transaction, so a fact projected between the two reads can
    /// never show as a constraint without its fact (or the other way round).
    func profile(of householdId: UUID) async throws -> (facts: [ProfileFactView], constraints: [ProfileConstraintView], reactions: [ChildReactionView]) {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
            return (
                try await facts(of: householdId, on: connection), try await constraints(of: householdId, on: connection),
                try await reactions(of: householdId, on: connection)
            )
        }
    }

    private func reactions(of householdId: UUID, on connection: PostgresConnection) async throws -> [ChildReactionView] {
        let rows = try await connection.query(
            """
            SELECT a.child_id, coalesce(m.name, ''), a.allergen, a.reacted_at, a.reaction_severity, a.reaction_source, a.reaction_log_id, a.reported_by
            FROM child_allergens a LEFT JOIN household_members m ON m.member_id = a.child_id
            WHERE a.household_id = \(householdId) AND a.reacted_at IS NOT NULL ORDER BY m.name, a.allergen
            """, logger: logger)
        var views: [ChildReactionView] = []
        for try await row in rows.decode((UUID, String, String, Date, String?, String?, UUID?, UUID?).self) {
            views.append(ChildReactionView(
                childId: row.0.uuidString.lowercased(), subject: row.1, allergen: row.2, reactedAt: row.3, severity: row.4, source: row.5,
                foodLogId: row.6?.uuidString.lowercased(), reportedBy: row.7?.uuidString.lowercased()))
        }
        return views
    }

    private func facts(of householdId: UUID, on connection: PostgresConnection) async throws -> [ProfileFactView] {
        let rows = try await connection.query(
            """
            SELECT fact_id, member_id, subject, kind, value, polarity, confidence, status, message_id, chat_id, quoted_span,
                   extractor, extracted_at, decided_by, unknown_subject
            FROM profile_facts WHERE household_id = \(householdId) ORDER BY extracted_at, fact_id
            """, logger: logger)
        var views: [ProfileFactView] = []
        for try await row in rows.decode((UUID, UUID?, String, String, String, String, Double, String, UUID, UUID, String, String, Date, UUID?, Bool).self) {
            views.append(
                ProfileFactView(
                    factId: row.0.uuidString.lowercased(), memberId: row.1?.uuidString.lowercased(), subject: row.2, kind: row.3,
                    value: row.4, polarity: row.5, confidence: row.6, status: row.7,
                    source: .init(messageId: row.8.uuidString.lowercased(), chatId: row.9.uuidString.lowercased(), quotedSpan: row.10, extractor: row.11),
                    extractedAt: row.12, decidedBy: row.13?.uuidString.lowercased(), unknownSubject: row.14))
        }
        return views
    }

    private func constraints(of householdId: UUID, on connection: PostgresConnection) async throws -> [ProfileConstraintView] {
        let rows = try await connection.query(
            "SELECT subject, kind, value, source_fact_id FROM profile_constraints WHERE household_id = \(householdId) ORDER BY subject, kind, value",
            logger: logger)
        var views: [ProfileConstraintView] = []
        for try await (subject, kind, value, fact) in rows.decode((String, String, String, UUID).self) {
            views.append(ProfileConstraintView(subject: subject, kind: kind, value: value, sourceFactId: fact.uuidString.lowercased()))
        }
        return views
    }

    /// The fact's household, status and whether its subject is still unknown; nil when it does not exist.
    func fact(_ factId: UUID) async throws -> (householdId: UUID, status: String, unknownSubject: Bool)? {
        let rows = try await client.query(
            "SELECT household_id, status, unknown_subject FROM profile_facts WHERE fact_id = \(factId)", logger: logger)
        for try await (household, status, unknown) in rows.decode((UUID, String, Bool).self) { return (household, status, unknown) }
        return nil
    }

    /// The name of a member of the household (a person it plans for); nil when there is none.
    func memberName(_ memberId: UUID, in householdId: UUID) async throws -> String? {
        let rows = try await client.query(
            "SELECT name FROM household_members WHERE member_id = \(memberId) AND household_id = \(householdId)", logger: logger)
        for try await name in rows.decode(String.self) { return name }
        return nil
    }
}
