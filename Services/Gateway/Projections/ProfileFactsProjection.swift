import Foundation
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// The household profile (`profile_facts`) and the meal-planning constraints derived from it
/// (`profile_constraints`), from the profile topic.
///
/// Safety rule: a fact that makes plans safer (an allergy or intolerance being added) constrains
/// at once, before anyone confirms it; a fact that lifts a constraint does so only once a
/// household member confirms it. Rejecting an added fact lifts the constraint it created.
///
/// A fact about an unknown subject (someone named who is no member yet) constrains nothing: its
/// subject is nobody. Once a member links it to someone (`profile.fact_linked`) it is that
/// member's, and a safety fact then constrains at once, as if it had been read about them.
///
/// `user.erased` (users topic) removes the profile of the households erased with the user, and
/// the facts quoted from messages the user wrote.
public struct ProfileFactsProjection: Projection {
    public let name = "profile_facts"
    public let topics: [Topic] = [.profile, .users]
    public let tables = ["profile_facts", "profile_constraints"]
    /// Every type of the profile topic this projection reads, and only `user.erased` of the
    /// users topic (registrations and profile updates are passed over undecoded).
    public let eventTypes: Set<String>? = [
        ProfileFactExtracted.eventType, ProfileFactLinked.eventType, ProfileFactConfirmed.eventType, ProfileFactRejected.eventType,
        UserErased.eventType,
    ]

    static let constrainingKinds: Set<String> = ["allergy", "intolerance"]

    public init() {}

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        for event in events {
            switch event.payload {
            case let fact as ProfileFactExtractedV2:
                let inserted = try await connection.query(
                    """
                    INSERT INTO profile_facts (fact_id, household_id, member_id, subject, kind, value, polarity, confidence,
                                               message_id, chat_id, quoted_span, extractor, status, extracted_at, unknown_subject)
                    VALUES (\(fact.factId), \(fact.householdId), \(fact.memberId), \(fact.subject), \(fact.kind), \(fact.value),
                            \(fact.polarity), \(fact.confidence), \(fact.messageId), \(fact.chatId), \(fact.quotedSpan),
                            \(fact.extractor), 'proposed', \(event.metadata.occurredAt), \(fact.unknownSubject))
                    ON CONFLICT (fact_id) DO NOTHING
                    RETURNING fact_id
                    """, logger: logger)
                var isNew = false
                for try await _ in inserted { isNew = true }
                if isNew, !fact.unknownSubject, fact.polarity == "add", Self.constrainingKinds.contains(fact.kind) {
                    try await constrain(fact.householdId, subject: fact.subject, kind: fact.kind, value: fact.value, by: fact.factId, on: connection, logger: logger)
                }
            case let linked as ProfileFactLinked:
                let rows = try await connection.query(
                    """
                    UPDATE profile_facts SET member_id = \(linked.memberId), subject = \(linked.subject), unknown_subject = false
                    WHERE fact_id = \(linked.factId) AND household_id = \(linked.householdId) AND unknown_subject AND status <> 'rejected'
                    RETURNING kind, value, polarity
                    """, logger: logger)
                for try await (kind, value, polarity) in rows.decode((String, String, String).self)
                where polarity == "add" && Self.constrainingKinds.contains(kind) {
                    try await constrain(linked.householdId, subject: linked.subject, kind: kind, value: value, by: linked.factId, on: connection, logger: logger)
                }
            case let confirmed as ProfileFactConfirmed:
                let rows = try await connection.query(
                    """
                    UPDATE profile_facts SET status = 'confirmed', decided_by = \(confirmed.confirmedBy), decided_at = \(event.metadata.occurredAt)
                    WHERE fact_id = \(confirmed.factId) AND household_id = \(confirmed.householdId) AND status = 'proposed'
                    RETURNING subject, kind, value, polarity
                    """, logger: logger)
                for try await (subject, kind, value, polarity) in rows.decode((String, String, String, String).self) where polarity == "remove" {
                    try await connection.query(
                        """
                        DELETE FROM profile_constraints
                        WHERE household_id = \(confirmed.householdId) AND subject = \(subject) AND kind = \(kind) AND value = \(value)
                        """, logger: logger)
                }
            case let rejected as ProfileFactRejected:
                try await connection.query(
                    """
                    UPDATE profile_facts SET status = 'rejected', decided_by = \(rejected.rejectedBy), decided_at = \(event.metadata.occurredAt)
                    WHERE fact_id = \(rejected.factId) AND household_id = \(rejected.householdId) AND status = 'proposed'
                    """, logger: logger)
                try await connection.query(
                    "DELETE FROM profile_constraints WHERE household_id = \(rejected.householdId) AND source_fact_id = \(rejected.factId)",
                    logger: logger)
            case let erased as UserErased:
                try await erase(erased, on: connection, logger: logger)
            default:
                continue
            }
        }
    }

    private func constrain(
        _ household: UUID, subject: String, kind: String, value: String, by fact: UUID, on connection: PostgresConnection, logger: Logger
    ) async throws {
        try await connection.query(
            """
            INSERT INTO profile_constraints (household_id, subject, kind, value, source_fact_id)
            VALUES (\(household), \(subject), \(kind), \(value), \(fact))
            ON CONFLICT (household_id, subject, kind, value) DO NOTHING
            """, logger: logger)
    }

    /// `user.erased`: the facts and constraints of the households erased with the user go; in the
    /// households that stay, the facts whose `quoted_span` quotes a message the user wrote go too.
    ///
    /// A fact does not name its message's author, so the author is read from `chat_messages`
    /// (the chats projection's table; it keeps `author_id` of an erased user's messages). That
    /// finds every message projected before the erasure, which live is all of them: the erasure
    /// comes a grace period after the deletion request, and from the request on the user can send
    /// nothing.
    ///
    /// The constraints such facts created stay (safety rule: an allergy holds until its fact is
    /// rejected or a removal is confirmed, and erasing who said it does neither); they hold the
    /// household's data (subject, kind, value), not the user's words.
    private func erase(_ erased: UserErased, on connection: PostgresConnection, logger: Logger) async throws {
        if !erased.householdIds.isEmpty {
            try await connection.query("DELETE FROM profile_constraints WHERE household_id = ANY(\(erased.householdIds))", logger: logger)
            try await connection.query("DELETE FROM profile_facts WHERE household_id = ANY(\(erased.householdIds))", logger: logger)
        }
        try await connection.query(
            """
            DELETE FROM profile_facts
            WHERE message_id IN (SELECT message_id FROM chat_messages WHERE author_id = \(erased.userId))
            """, logger: logger)
    }
}
