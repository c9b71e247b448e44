import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime
import Logging
import PostgresNIO

/// A child as tracking sees it: a `child` member of the household, with its tracking profile.
struct TrackedChild: Sendable {
    var childId: UUID
    var householdId: UUID
    var name: String
    var birthdate: CalendarDay?
    var sex: String?

    /// Midnight UTC of the birth date, for age arithmetic in whole days.
    var birth: Date? { birthdate.map { Date(timeIntervalSince1970: TimeInterval($0.daysSinceEpoch * 86_400)) } }

    func ageDays(at date: Date) -> Int? {
        birthdate.map { Int((date.timeIntervalSince1970 / 86_400).rounded(.down)) - $0.daysSinceEpoch }
    }
}

/// One row of `tracking_logs`.
struct StoredLog: Sendable {
    var logId: UUID
    var childId: UUID
    var householdId: UUID
    var kind: TrackingLogKind
    var at: Date
    var endedAt: Date?
    var detail: JSONValue
    var loggedBy: UUID
    var clientId: String?
    var version: Int
    var loggedAt: Date
    var updatedAt: Date
    var updatedBy: UUID
    var deleted: Bool
    var changeOffset: Int64
    var lastEventId: UUID
    /// `daycare_import` for a log a committed import wrote (with the import), else nil.
    var source: String? = nil
    var importId: UUID? = nil

    func typedDetail() throws -> any TrackingLogDetail {
        try kind.decodeDetail(try JSONEncoder().encode(detail), decoder: .hearth())
    }

    /// The log as the API shows it: the detail's fields beside the log's own.
    var json: JSONValue {
        var fields: [String: JSONValue] = [:]
        if case .object(let detailFields) = detail { fields = detailFields }
        // Ids inside a detail are encoded as Swift writes UUIDs (upper case); the API writes ids lower case.
        for key in ["photo_id", "food_log_id"] {
            if case .string(let id)? = fields[key] { fields[key] = .string(id.lowercased()) }
        }
        fields["log_id"] = .string(logId.uuidString.lowercased())
        fields["child_id"] = .string(childId.uuidString.lowercased())
        fields["kind"] = .string(kind.rawValue)
        fields["at"] = .string(Timestamp.format(at))
        fields["version"] = .number(Double(version))
        fields["logged_by"] = .string(loggedBy.uuidString.lowercased())
        fields["logged_at"] = .string(Timestamp.format(loggedAt))
        fields["updated_at"] = .string(Timestamp.format(updatedAt))
        fields["updated_by"] = .string(updatedBy.uuidString.lowercased())
        fields["deleted"] = .bool(deleted)
        fields["client_id"] = clientId.map(JSONValue.string) ?? .null
        fields["change"] = .string(String(changeOffset))
        fields["source"] = .string(source ?? "app")
        if let importId { fields["import_id"] = .string(importId.uuidString.lowercased()) }
        return .object(fields)
    }
}

struct TrackingSettingsRecord: Sendable, Equatable {
    var allergenCheckIns = true
    var checkInDelayMinutes = AllergenCheckIn.defaultDelayMinutes
}

struct CaregiverRemindersRecord: Sendable, Equatable {
    var feedReminders = false
    var feedLeadMinutes = 30
    var medicationReminders = true
    var medicationBreaksQuietHours = false
}

/// Reads of the tracking tables, always scoped to one child (whose household the caller's
/// membership was checked against first).
struct TrackingReadModel: Sendable {
    let client: PostgresClient
    let logger: Logger

    private static let columns = """
        log_id, child_id, household_id, kind, at, ended_at, detail::text, logged_by, client_id, version, logged_at, updated_at,
        updated_by, deleted, change_offset, last_event_id, source, import_id
        """

    /// Stands for "no log" where a query excludes one.
    private static let noLog = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!

    /// The child `id` of `household`, or nil (also when the member is not a child).
    func child(_ id: UUID, of household: UUID) async throws -> TrackedChild? {
        let rows = try await client.query(
            """
            SELECT m.member_id, m.household_id, m.name, to_char(m.birthdate, 'YYYY-MM-DD'), p.sex
            FROM household_members m LEFT JOIN child_profiles p ON p.child_id = m.member_id
            WHERE m.member_id = \(id) AND m.household_id = \(household) AND m.role = 'child'
            """, logger: logger)
        for try await (childId, householdId, name, birthdate, sex) in rows.decode((UUID, UUID, String, String?, String?).self) {
            return TrackedChild(childId: childId, householdId: householdId, name: name, birthdate: birthdate.flatMap(CalendarDay.init(isoDate:)), sex: sex)
        }
        return nil
    }

    /// The household a child is of; nil when no child has the id.
    func household(ofChild id: UUID) async throws -> UUID? {
        let rows = try await client.query(
            "SELECT household_id FROM household_members WHERE member_id = \(id) AND role = 'child'", logger: logger)
        for try await household in rows.decode(UUID.self) { return household }
        return nil
    }

    func log(_ id: UUID, child: UUID) async throws -> StoredLog? {
        try await logs(("SELECT \(unescaped: Self.columns) FROM tracking_logs WHERE log_id = \(id) AND child_id = \(child)" as PostgresQuery)).first
    }

    func log(clientId: String, child: UUID) async throws -> StoredLog? {
        try await logs(("SELECT \(unescaped: Self.columns) FROM tracking_logs WHERE client_id = \(clientId) AND child_id = \(child)" as PostgresQuery)).first
    }

    /// The child's live logs of `kinds` with a time in `[from, to)`, oldest first.
    func logs(child: UUID, kinds: [TrackingLogKind], from: Date, to: Date) async throws -> [StoredLog] {
        try await logs(("""
                SELECT \(unescaped: Self.columns) FROM tracking_logs
                WHERE child_id = \(child) AND kind = ANY(\(kinds.map(\.rawValue))) AND at >= \(from) AND at < \(to) AND NOT deleted ORDER BY at, log_id
                """ as PostgresQuery))
    }

    /// A page of the timeline: newest first, strictly before `(beforeAt, beforeId)` when given.
    func timeline(child: UUID, from: Date, to: Date, before: (Date, UUID)?, limit: Int) async throws -> [StoredLog] {
        let cursorAt = before?.0 ?? to
        let cursorId = before?.1 ?? UUID(uuidString: "ffffffff-ffff-ffff-ffff-ffffffffffff")!
        return try await logs(("""
                SELECT \(unescaped: Self.columns) FROM tracking_logs
                WHERE child_id = \(child) AND NOT deleted AND at >= \(from) AND at <= \(to) AND (at, log_id) < (\(cursorAt), \(cursorId))
                ORDER BY at DESC, log_id DESC LIMIT \(limit)
                """ as PostgresQuery))
    }

    /// Logs changed after `offset` (tombstones included), in the order they changed.
    func changes(child: UUID, after offset: Int64, limit: Int) async throws -> [StoredLog] {
        try await logs(("SELECT \(unescaped: Self.columns) FROM tracking_logs WHERE child_id = \(child) AND change_offset > \(offset) ORDER BY change_offset LIMIT \(limit)" as PostgresQuery))
    }

    /// Live sleeps of the child overlapping `[start, end)` (an ongoing one runs to the end of time).
    func overlappingSleep(child: UUID, start: Date, end: Date?, excluding: UUID?) async throws -> StoredLog? {
        try await logs(("""
                SELECT \(unescaped: Self.columns) FROM tracking_logs
                WHERE child_id = \(child) AND kind = 'sleep' AND NOT deleted AND log_id <> \(excluding ?? Self.noLog)
                  AND at < coalesce(\(end), 'infinity'::timestamptz) AND coalesce(ended_at, 'infinity'::timestamptz) > \(start)
                ORDER BY at LIMIT 1
                """ as PostgresQuery)).first
    }

    /// Live logs of `kind` within `window` of `at`, other than `excluding`.
    func near(child: UUID, kind: TrackingLogKind, at: Date, window: TimeInterval, excluding: UUID?) async throws -> [StoredLog] {
        try await logs(("""
                SELECT \(unescaped: Self.columns) FROM tracking_logs
                WHERE child_id = \(child) AND kind = \(kind.rawValue) AND NOT deleted AND log_id <> \(excluding ?? Self.noLog) AND at BETWEEN \(at.addingTimeInterval(-window)) AND \(at.addingTimeInterval(window)) ORDER BY at, log_id
                """ as PostgresQuery))
    }

    /// The child's latest live log of `kind` before `at`.
    func latest(child: UUID, kind: TrackingLogKind, before at: Date, excluding: UUID?) async throws -> StoredLog? {
        try await logs(("""
                SELECT \(unescaped: Self.columns) FROM tracking_logs
                WHERE child_id = \(child) AND kind = \(kind.rawValue) AND NOT deleted AND log_id <> \(excluding ?? Self.noLog) AND at < \(at) ORDER BY at DESC, log_id DESC LIMIT 1
                """ as PostgresQuery)).first
    }

    /// The event that made `version` of the log, once applied.
    func event(making version: Int, of logId: UUID) async throws -> UUID? {
        let rows = try await client.query(
            "SELECT event_id FROM tracking_log_versions WHERE log_id = \(logId) AND version = \(version)", logger: logger)
        for try await id in rows.decode(UUID.self) { return id }
        return nil
    }

    func settings(of household: UUID) async throws -> TrackingSettingsRecord {
        let rows = try await client.query(
            "SELECT allergen_check_ins, check_in_delay_minutes FROM tracking_settings WHERE household_id = \(household)", logger: logger)
        for try await (on, delay) in rows.decode((Bool, Int).self) { return TrackingSettingsRecord(allergenCheckIns: on, checkInDelayMinutes: delay) }
        return TrackingSettingsRecord()
    }

    /// The caregiver's reminders of one household (each household's are set on their own).
    func caregiverReminders(of user: UUID, in household: UUID) async throws -> CaregiverRemindersRecord {
        let rows = try await client.query(
            """
            SELECT feed_reminders, feed_lead_minutes, medication_reminders, medication_breaks_quiet_hours
            FROM caregiver_reminders WHERE user_id = \(user) AND household_id = \(household)
            """, logger: logger)
        for try await (feed, lead, medication, breaks) in rows.decode((Bool, Int, Bool, Bool).self) {
            return CaregiverRemindersRecord(feedReminders: feed, feedLeadMinutes: lead, medicationReminders: medication, medicationBreaksQuietHours: breaks)
        }
        return CaregiverRemindersRecord()
    }

    struct AllergenStatus: Sendable {
        var allergen: String
        var firstExposedAt: Date?
        var firstFoodLogId: UUID?
        var exposures: Int
        var reactedAt: Date?
        var severity: String?
        var source: String?
        var reactionLogId: UUID?
        var reportedBy: UUID?
    }

    func allergens(of child: UUID) async throws -> [AllergenStatus] {
        let rows = try await client.query(
            """
            SELECT allergen, first_exposed_at, first_food_log_id, exposures, reacted_at, reaction_severity, reaction_source, reaction_log_id,
                   reported_by
            FROM child_allergens WHERE child_id = \(child) ORDER BY allergen
            """, logger: logger)
        var result: [AllergenStatus] = []
        for try await row in rows.decode((String, Date?, UUID?, Int, Date?, String?, String?, UUID?, UUID?).self) {
            result.append(AllergenStatus(
                allergen: row.0, firstExposedAt: row.1, firstFoodLogId: row.2, exposures: row.3, reactedAt: row.4, severity: row.5,
                source: row.6, reactionLogId: row.7, reportedBy: row.8))
        }
        return result
    }

    struct CheckIn: Sendable {
        var checkInId: UUID
        var foodLogId: UUID
        var allergens: [String]
        var loggedAt: Date
        var outcome: String?
        var severity: String?
        var answeredBy: UUID?
        var answeredAt: Date?
    }

    func checkIns(of child: UUID) async throws -> [CheckIn] {
        let rows = try await client.query(
            """
            SELECT check_in_id, food_log_id, allergens, logged_at, outcome, severity, answered_by, answered_at
            FROM allergen_check_ins WHERE child_id = \(child) ORDER BY logged_at DESC, check_in_id
            """, logger: logger)
        var result: [CheckIn] = []
        for try await row in rows.decode((UUID, UUID, [String], Date, String?, String?, UUID?, Date?).self) {
            result.append(CheckIn(
                checkInId: row.0, foodLogId: row.1, allergens: row.2, loggedAt: row.3, outcome: row.4, severity: row.5, answeredBy: row.6,
                answeredAt: row.7))
        }
        return result
    }

    /// The reacted allergens of every child of the household (what meal plans must avoid).
    func reactedAllergens(of household: UUID) async throws -> [String] {
        let rows = try await client.query(
            "SELECT DISTINCT allergen FROM child_allergens WHERE household_id = \(household) AND reacted_at IS NOT NULL ORDER BY allergen",
            logger: logger)
        var result: [String] = []
        for try await allergen in rows.decode(String.self) { result.append(allergen) }
        return result
    }

    private func logs(_ query: PostgresQuery) async throws -> [StoredLog] {
        let rows = try await client.query(query, logger: logger)
        var result: [StoredLog] = []
        for try await row in rows.decode(
            (UUID, UUID, UUID, String, Date, Date?, String, UUID, String?, Int, Date, Date, UUID, Bool, Int64, UUID, String?, UUID?).self)
        {
            let (source, importId) = (row.16, row.17)
            guard let kind = TrackingLogKind(rawValue: row.3) else { continue }
            let detail = try JSONDecoder().decode(JSONValue.self, from: Data(row.6.utf8))
            result.append(StoredLog(
                logId: row.0, childId: row.1, householdId: row.2, kind: kind, at: row.4, endedAt: row.5, detail: detail, loggedBy: row.7,
                clientId: row.8, version: row.9, loggedAt: row.10, updatedAt: row.11, updatedBy: row.12, deleted: row.13,
                changeOffset: row.14, lastEventId: row.15, source: source, importId: importId))
        }
        return result
    }
}
