import Foundation
import HearthDomain
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// `tracking_logs` and the tracking tables beside it, from the tracking topic.
///
/// Edits and deletes apply only on top of the version they were made from: of two edits of the
/// same version the first in the household's partition wins, and the gateway answers the other 409
/// (it checks which event the row holds once its own is applied). A create whose `client_id` the
/// child already has is the same log retried and changes nothing.
///
/// `child_allergens` is derived again from the child's food logs and check-in answers whenever
/// either changes, so an edit or delete of a food log moves the exposure or reaction with it.
///
/// `user.erased` (users topic, read last) removes everything of the households erased with the
/// user, their photos included, and the user's own reminder settings.
public struct TrackingLogsProjection: Projection {
    public let name = "tracking_logs"
    public let topics: [Topic] = [.tracking, .users]
    public let tables = [
        "tracking_logs", "child_profiles", "allergen_check_ins", "child_allergens", "tracking_settings", "caregiver_reminders", "daycare_imports",
        "daycare_import_suggestions", "tracking_log_versions",
    ]
    public let eventTypes: Set<String>? = Set(TrackingLogKind.payloadTypes.map { $0.eventType } + [UserErased.eventType])

    public init() {}

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder.hearth()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        for event in events {
            switch event.payload {
            case let log as any TrackingLogEvent:
                try await apply(log, event: event, on: connection, logger: logger)
            case let answer as AllergenCheckInAnswered:
                guard let outcome = answer.outcome else { continue }
                try await connection.query(
                    """
                    UPDATE allergen_check_ins SET outcome = \(outcome), severity = \(answer.severity), symptoms = \(answer.symptoms ?? []),
                        answered_by = \(answer.answeredBy), answered_at = \(event.metadata.occurredAt)
                    WHERE check_in_id = \(answer.checkInId) AND child_id = \(answer.childId) AND outcome IS NULL
                    """, logger: logger)
                try await deriveAllergens(child: answer.childId, household: answer.householdId, on: connection, logger: logger)
            case let profile as ChildProfileSet:
                guard let sex = profile.sex else { continue }
                try await connection.query(
                    """
                    INSERT INTO child_profiles (child_id, household_id, sex, updated_by)
                    VALUES (\(profile.childId), \(profile.householdId), \(sex), \(profile.setBy))
                    ON CONFLICT (child_id) DO UPDATE SET sex = EXCLUDED.sex, updated_by = EXCLUDED.updated_by
                    WHERE child_profiles.household_id = EXCLUDED.household_id
                    """, logger: logger)
            case let settings as TrackingSettingsUpdated:
                try await connection.query(
                    """
                    INSERT INTO tracking_settings (household_id, allergen_check_ins, check_in_delay_minutes, updated_by)
                    VALUES (\(settings.householdId), \(settings.allergenCheckIns), \(settings.checkInDelayMinutes), \(settings.updatedBy))
                    ON CONFLICT (household_id) DO UPDATE SET allergen_check_ins = EXCLUDED.allergen_check_ins,
                        check_in_delay_minutes = EXCLUDED.check_in_delay_minutes, updated_by = EXCLUDED.updated_by
                    """, logger: logger)
            case let reminders as CaregiverRemindersSet:
                try await connection.query(
                    """
                    INSERT INTO caregiver_reminders (user_id, household_id, feed_reminders, feed_lead_minutes, medication_reminders,
                                                     medication_breaks_quiet_hours)
                    VALUES (\(reminders.userId), \(reminders.householdId), \(reminders.feedReminders), \(reminders.feedLeadMinutes),
                            \(reminders.medicationReminders), \(reminders.medicationBreaksQuietHours))
                    ON CONFLICT (user_id, household_id) DO UPDATE SET feed_reminders = EXCLUDED.feed_reminders,
                        feed_lead_minutes = EXCLUDED.feed_lead_minutes, medication_reminders = EXCLUDED.medication_reminders,
                        medication_breaks_quiet_hours = EXCLUDED.medication_breaks_quiet_hours
                    """, logger: logger)
            case let received as DaycareImportReceivedV2:
                guard let suggestions = received.suggestions else { continue }
                let inserted = try await connection.query(
                    """
                    INSERT INTO daycare_imports (import_id, child_id, household_id, uploaded_by, filename, format, report_day, time_zone, unread_lines,
                                                 parser, received_at)
                    VALUES (\(received.importId), \(received.childId), \(received.householdId), \(received.uploadedBy), \(received.filename),
                            \(received.format), \(received.reportDay)::date, \(received.timeZone), \(received.unreadLines), \(received.parser),
                            \(event.metadata.occurredAt))
                    ON CONFLICT (import_id) DO NOTHING
                    RETURNING import_id
                    """, logger: logger)
                var isNew = false
                for try await _ in inserted { isNew = true }
                guard isNew else { continue }
                for (index, suggestion) in suggestions.enumerated() {
                    try await connection.query(
                        """
                        INSERT INTO daycare_import_suggestions (import_id, household_id, index, kind, start_minute, end_minute, amount_ml, details, line)
                        VALUES (\(received.importId), \(received.householdId), \(index), \(suggestion.kind), \(suggestion.start), \(suggestion.end),
                                \(suggestion.amountMl), \(suggestion.details), \(suggestion.line))
                        """, logger: logger)
                }
            case let changed as DaycareImportSuggestionChanged:
                // Only before the commit: what was written stays as it was written.
                try await connection.query(
                    """
                    UPDATE daycare_import_suggestions s SET keep = \(changed.keep),
                        kind = coalesce(\(changed.suggestion?.kind), s.kind), start_minute = coalesce(\(changed.suggestion?.start), s.start_minute),
                        end_minute = CASE WHEN \(changed.suggestion != nil) THEN \(changed.suggestion?.end) ELSE s.end_minute END,
                        amount_ml = CASE WHEN \(changed.suggestion != nil) THEN \(changed.suggestion?.amountMl) ELSE s.amount_ml END,
                        details = coalesce(\(changed.suggestion?.details), s.details), edited = s.edited OR \(changed.suggestion != nil)
                    FROM daycare_imports i
                    WHERE s.import_id = \(changed.importId) AND s.index = \(changed.index) AND i.import_id = s.import_id
                      AND i.household_id = \(changed.householdId) AND i.committed_at IS NULL
                    """, logger: logger)
            case let committed as DaycareImportCommitted:
                let first = try await connection.query(
                    """
                    UPDATE daycare_imports SET committed_at = \(event.metadata.occurredAt), committed_by = \(committed.committedBy)
                    WHERE import_id = \(committed.importId) AND household_id = \(committed.householdId) AND committed_at IS NULL
                    RETURNING import_id
                    """, logger: logger)
                var isFirst = false
                for try await _ in first { isFirst = true }
                guard isFirst else { continue }
                for (index, logId) in zip(committed.indices, committed.logIds) {
                    try await connection.query(
                        "UPDATE daycare_import_suggestions SET log_id = \(logId) WHERE import_id = \(committed.importId) AND index = \(index)",
                        logger: logger)
                }
                try await connection.query(
                    """
                    UPDATE tracking_logs SET source = 'daycare_import', import_id = \(committed.importId)
                    WHERE log_id = ANY(\(committed.logIds)) AND child_id = \(committed.childId)
                    """, logger: logger)
            case let erased as UserErased:
                try await erase(erased, on: connection, logger: logger)
            default:
                continue
            }
        }
    }

    private func apply(_ log: any TrackingLogEvent, event: ProjectedEvent, on connection: PostgresConnection, logger: Logger) async throws {
        let kind = type(of: log).kind
        let offset = event.position.offset
        let occurredAt = event.metadata.occurredAt
        switch log.change {
        case .logged(let by, let clientId, let at, let detail):
            // A detail sealed with a destroyed key reads as null: the household is gone, and its
            // rows with it.
            guard let detail else { return }
            if try await overlapsAnotherSleep(log, at: at, detail: detail, on: connection, logger: logger) { return }
            let json = try Self.json(detail)
            let inserted = try await connection.query(
                """
                INSERT INTO tracking_logs (log_id, child_id, household_id, kind, at, ended_at, detail, logged_by, client_id, version,
                                           logged_at, updated_at, updated_by, change_offset, last_event_id)
                VALUES (\(log.logId), \(log.childId), \(log.householdId), \(kind.rawValue), \(at), \(Self.endedAt(detail)), \(json)::jsonb,
                        \(by), \(clientId), 1, \(occurredAt), \(occurredAt), \(by), \(offset), \(event.metadata.id))
                ON CONFLICT DO NOTHING
                RETURNING log_id
                """, logger: logger)
            var isNew = false
            for try await _ in inserted { isNew = true }
            guard isNew, let food = detail as? FoodDetail else { return }
            let watched = AllergenCheckIn.watched(in: food)
            if !watched.isEmpty, food.unmarkedAt == nil, occurredAt.timeIntervalSince(at) < AllergenCheckIn.horizon,
               try await checkInsOn(log.householdId, on: connection, logger: logger)
            {
                try await connection.query(
                    """
                    INSERT INTO allergen_check_ins (check_in_id, food_log_id, child_id, household_id, allergens, logged_at)
                    VALUES (\(AllergenCheckIn.id(forFoodLog: log.logId)), \(log.logId), \(log.childId), \(log.householdId), \(watched), \(occurredAt))
                    ON CONFLICT (check_in_id) DO NOTHING
                    """, logger: logger)
            }
            try await deriveAllergens(child: log.childId, household: log.householdId, on: connection, logger: logger)
        case .edited(let by, let at, let detail, let version):
            guard let detail else { return }
            if try await overlapsAnotherSleep(log, at: at, detail: detail, on: connection, logger: logger) { return }
            let json = try Self.json(detail)
            try await connection.query(
                """
                UPDATE tracking_logs SET at = \(at), ended_at = \(Self.endedAt(detail)), detail = \(json)::jsonb, version = \(version),
                    updated_at = \(occurredAt), updated_by = \(by), change_offset = \(offset), last_event_id = \(event.metadata.id)
                WHERE log_id = \(log.logId) AND child_id = \(log.childId) AND kind = \(kind.rawValue) AND version = \(version - 1) AND NOT deleted
                """, logger: logger)
            try await recordVersion(log, event: event, on: connection, logger: logger)
            if let food = detail as? FoodDetail {
                // A check-in not yet answered follows the food: it asks about the allergens the food
                // still holds, and is withdrawn when it holds none or the food is un-marked.
                let watched = AllergenCheckIn.watched(in: food)
                if watched.isEmpty || food.unmarkedAt != nil {
                    try await connection.query(
                        """
                        UPDATE allergen_check_ins SET outcome = 'withdrawn', answered_at = \(occurredAt)
                        WHERE food_log_id = \(log.logId) AND outcome IS NULL
                          AND EXISTS (SELECT 1 FROM tracking_logs WHERE log_id = \(log.logId) AND last_event_id = \(event.metadata.id))
                        """, logger: logger)
                } else {
                    try await connection.query(
                        """
                        UPDATE allergen_check_ins SET allergens = \(watched)
                        WHERE food_log_id = \(log.logId) AND outcome IS NULL
                          AND EXISTS (SELECT 1 FROM tracking_logs WHERE log_id = \(log.logId) AND last_event_id = \(event.metadata.id))
                        """, logger: logger)
                }
                try await deriveAllergens(child: log.childId, household: log.householdId, on: connection, logger: logger)
            }
        case .deleted(let by, let version):
            try await connection.query(
                """
                UPDATE tracking_logs SET deleted = true, version = \(version), updated_at = \(occurredAt), updated_by = \(by),
                    change_offset = \(offset), last_event_id = \(event.metadata.id)
                WHERE log_id = \(log.logId) AND child_id = \(log.childId) AND kind = \(kind.rawValue) AND version = \(version - 1) AND NOT deleted
                """, logger: logger)
            try await recordVersion(log, event: event, on: connection, logger: logger)
            if kind == .food { try await deriveAllergens(child: log.childId, household: log.householdId, on: connection, logger: logger) }
            // A deleted photo's bytes go with it (the blob store is the gateway's; deleting again
            // on a replay finds nothing).
            if kind == .photo {
                try await connection.query(
                    """
                    DELETE FROM tracking_photos WHERE photo_id = \(log.logId)
                      AND EXISTS (SELECT 1 FROM tracking_logs WHERE log_id = \(log.logId) AND deleted)
                    """, logger: logger)
            }
        }
    }

    /// The child's exposures (food logs still marked tried) and first reaction per allergen: from
    /// a food log with a reaction, or a check-in answered with one.
    private func deriveAllergens(child: UUID, household: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM child_allergens WHERE child_id = \(child)", logger: logger)
        try await connection.query(
            """
            WITH tasted AS (
                SELECT l.log_id, l.at, l.logged_by, a.allergen, l.detail->>'reaction' AS reaction, l.detail->>'unmarked_at' IS NOT NULL AS unmarked
                FROM tracking_logs l CROSS JOIN LATERAL jsonb_array_elements_text(l.detail->'allergens') AS a(allergen)
                WHERE l.child_id = \(child) AND l.kind = 'food' AND NOT l.deleted
            ), exposures AS (
                SELECT * FROM tasted WHERE NOT unmarked
            ), reactions AS (
                -- A reaction stays a reaction when its food is un-marked as tried: it still happened.
                SELECT allergen, at, reaction AS severity, 'food_log' AS source, log_id, logged_by AS reported_by
                FROM tasted WHERE reaction <> 'none'
                UNION ALL
                SELECT a.allergen, c.answered_at, coalesce(c.severity, 'unspecified'), 'check_in', c.food_log_id, c.answered_by
                FROM allergen_check_ins c CROSS JOIN LATERAL unnest(c.allergens) AS a(allergen)
                WHERE c.child_id = \(child) AND c.outcome = 'reaction'
                  AND EXISTS (SELECT 1 FROM tasted t WHERE t.log_id = c.food_log_id AND t.allergen = a.allergen)
            ), firsts AS (
                SELECT DISTINCT ON (allergen) allergen, at, log_id FROM exposures ORDER BY allergen, at, log_id
            ), counts AS (
                SELECT allergen, count(*)::int AS n FROM exposures GROUP BY allergen
            ), first_reactions AS (
                SELECT DISTINCT ON (allergen) * FROM reactions ORDER BY allergen, at, log_id
            )
            INSERT INTO child_allergens (child_id, household_id, allergen, first_exposed_at, first_food_log_id, exposures, reacted_at,
                                         reaction_severity, reaction_source, reaction_log_id, reported_by)
            SELECT \(child), \(household), coalesce(f.allergen, r.allergen), f.at, f.log_id, coalesce(n.n, 0), r.at, r.severity, r.source,
                   r.log_id, r.reported_by
            FROM firsts f FULL JOIN first_reactions r ON r.allergen = f.allergen
            LEFT JOIN counts n ON n.allergen = coalesce(f.allergen, r.allergen)
            """, logger: logger)
    }

    /// The version this event made, when it was applied (the row names it as its last event).
    private func recordVersion(_ log: any TrackingLogEvent, event: ProjectedEvent, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO tracking_log_versions (log_id, version, event_id, household_id)
            SELECT log_id, version, last_event_id, household_id FROM tracking_logs
            WHERE log_id = \(log.logId) AND last_event_id = \(event.metadata.id)
            ON CONFLICT DO NOTHING
            """, logger: logger)
    }

    /// Two phones can start the same sleep at once, both past the gateway's check: the first in the
    /// household's order is kept and the other is not applied (its writer is answered 409).
    private func overlapsAnotherSleep(
        _ log: any TrackingLogEvent, at: Date, detail: any TrackingLogDetail, on connection: PostgresConnection, logger: Logger
    ) async throws -> Bool {
        guard let sleep = detail as? SleepDetail else { return false }
        let rows = try await connection.query(
            """
            SELECT 1 FROM tracking_logs
            WHERE child_id = \(log.childId) AND kind = 'sleep' AND NOT deleted AND log_id <> \(log.logId)
              AND at < coalesce(\(sleep.endedAt), 'infinity'::timestamptz) AND coalesce(ended_at, 'infinity'::timestamptz) > \(at)
            LIMIT 1
            """, logger: logger)
        for try await _ in rows { return true }
        return false
    }

    /// The household's allergen check-ins are on unless it turned them off (read from this
    /// projection's own table, which the household's events keep in the same order as its logs).
    private func checkInsOn(_ household: UUID, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let rows = try await connection.query("SELECT allergen_check_ins FROM tracking_settings WHERE household_id = \(household)", logger: logger)
        for try await on in rows.decode(Bool.self) { return on }
        return true
    }

    private func erase(_ erased: UserErased, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM caregiver_reminders WHERE user_id = \(erased.userId)", logger: logger)
        guard !erased.householdIds.isEmpty else { return }
        let households = erased.householdIds
        try await connection.query("DELETE FROM tracking_logs WHERE household_id = ANY(\(households))", logger: logger)
        try await connection.query("DELETE FROM child_profiles WHERE household_id = ANY(\(households))", logger: logger)
        try await connection.query("DELETE FROM allergen_check_ins WHERE household_id = ANY(\(households))", logger: logger)
        try await connection.query("DELETE FROM child_allergens WHERE household_id = ANY(\(households))", logger: logger)
        try await connection.query("DELETE FROM tracking_settings WHERE household_id = ANY(\(households))", logger: logger)
        try await connection.query("DELETE FROM caregiver_reminders WHERE household_id = ANY(\(households))", logger: logger)
        try await connection.query("DELETE FROM tracking_photos WHERE household_id = ANY(\(households))", logger: logger)
        try await connection.query("DELETE FROM daycare_import_suggestions WHERE household_id = ANY(\(households))", logger: logger)
        try await connection.query("DELETE FROM daycare_imports WHERE household_id = ANY(\(households))", logger: logger)
        try await connection.query("DELETE FROM tracking_log_versions WHERE household_id = ANY(\(households))", logger: logger)
    }

    static func json(_ detail: any TrackingLogDetail) throws -> String {
        String(decoding: try encoder.encode(detail), as: UTF8.self)
    }

    static func endedAt(_ detail: any TrackingLogDetail) -> Date? {
        switch detail {
        case let sleep as SleepDetail: sleep.endedAt
        case let feed as FeedDetail: feed.endedAt
        default: nil
        }
    }
}
