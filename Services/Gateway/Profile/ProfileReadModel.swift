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

/// Reads of `profile_facts` and `profile_constraints`.
struct ProfileReadModel: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// The household's facts and the constraints derived from them, as of one moment: both are
    /// read in one repeatable-read transaction, so a fact projected between the two reads can
    /// never show as a constraint without its fact (or the other way round).
    func profile(of householdId: UUID) async throws -> (facts: [ProfileFactView], constraints: [ProfileConstraintView]) {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
            return (try await facts(of: householdId, on: connection), try await constraints(of: householdId, on: connection))
        }
    }

    private func facts(of householdId: UUID, on connection: PostgresConnection) async throws -> [ProfileFactView] {
        let rows = try await connection.query(
            """
            SELECT fact_id, member_id, subject, kind, value, polarity, confidence, status, message_id, chat_id, quoted_span,
                   extractor, extracted_at, decided_by
            FROM profile_facts WHERE household_id = \(householdId) ORDER BY extracted_at, fact_id
            """, logger: logger)
        var views: [ProfileFactView] = []
        for try await row in rows.decode((UUID, UUID?, String, String, String, String, Double, String, UUID, UUID, String, String, Date, UUID?).self) {
            views.append(
                ProfileFactView(
                    factId: row.0.uuidString.lowercased(), memberId: row.1?.uuidString.lowercased(), subject: row.2, kind: row.3,
                    value: row.4, polarity: row.5, confidence: row.6, status: row.7,
                    source: .init(messageId: row.8.uuidString.lowercased(), chatId: row.9.uuidString.lowercased(), quotedSpan: row.10, extractor: row.11),
                    extractedAt: row.12, decidedBy: row.13?.uuidString.lowercased()))
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

    /// The fact's household and status; nil when it does not exist.
    func fact(_ factId: UUID) async throws -> (householdId: UUID, status: String)? {
        let rows = try await client.query("SELECT household_id, status FROM profile_facts WHERE fact_id = \(factId)", logger: logger)
        for try await (household, status) in rows.decode((UUID, String).self) { return (household, status) }
        return nil
    }
}
