import Foundation
import HearthDomain
import Logging
import PostgresNIO

/// One row of `calendar_entries`.
struct StoredCalendarEntry: Sendable {
    let id: UUID
    let source: CalendarEntry.Source
    let householdId: UUID?
    let ownerUserId: UUID
    let title: String
    let start: Date
    let end: Date
    let allDay: Bool
    let timeZone: String
    let kind: String
    let memberIds: [UUID]
    let assignee: String?
    let location: String?
    let rrule: String?
    let sequence: Int
    let updatedAt: Date
    let deleted: Bool

    /// The domain view. A stored rule or zone that no longer parses (it was accepted by an
    /// older gateway) degrades to a single occurrence in UTC rather than hiding the entry.
    var domain: CalendarEntry {
        CalendarEntry(
            id: id, source: source, title: title, start: start, end: end, allDay: allDay,
            timeZone: LocalTime.zone(named: timeZone) ?? TimeZone(identifier: "UTC")!, kind: kind, memberIds: memberIds,
            location: location, rule: rrule.flatMap { try? RecurrenceRule.parse($0) }, sequence: sequence, updatedAt: updatedAt)
    }
}

/// A feed found by its token.
struct CalendarFeedOwner: Sendable {
    let feedId: UUID
    let householdId: UUID?
    let userId: UUID
    let revoked: Bool
}

/// Reads of the calendar read models. An entry is visible to the members of its household, or,
/// when it has none, to its owner alone.
struct CalendarReadModel: Sendable {
    let client: PostgresClient
    let logger: Logger

    static let columns = """
        entry_id, source, household_id, owner_user_id, title, starts_at, ends_at, all_day, time_zone, kind, member_ids,
        assignee, location, rrule, sequence, updated_at, deleted
        """

    func entries(of user: UUID, household: UUID?) async throws -> [StoredCalendarEntry] {
        let rows: PostgresRowSequence
        if let household {
            rows = try await client.query(
                PostgresQuery(unsafeSQL: "SELECT \(Self.columns) FROM calendar_entries WHERE NOT deleted AND (household_id = $1 OR (household_id IS NULL AND owner_user_id = $2))",
                              binds: Self.binds(household, user)), logger: logger)
        } else {
            rows = try await client.query(
                PostgresQuery(unsafeSQL: "SELECT \(Self.columns) FROM calendar_entries WHERE NOT deleted AND household_id IS NULL AND owner_user_id = $1",
                              binds: Self.binds(user)), logger: logger)
        }
        return try await Self.decode(rows)
    }

    func entry(_ id: UUID) async throws -> StoredCalendarEntry? {
        let rows = try await client.query(
            PostgresQuery(unsafeSQL: "SELECT \(Self.columns) FROM calendar_entries WHERE entry_id = $1", binds: Self.binds(id)), logger: logger)
        return try await Self.decode(rows).first
    }

    /// The ids among `ids` that are not members of `household`.
    func unknownMembers(_ ids: [UUID], of household: UUID?) async throws -> [UUID] {
        guard !ids.isEmpty else { return [] }
        guard let household else { return ids }
        let rows = try await client.query(
            "SELECT member_id FROM household_members WHERE household_id = \(household) AND member_id = ANY(\(ids))", logger: logger)
        var known = Set<UUID>()
        for try await id in rows.decode(UUID.self) { known.insert(id) }
        return ids.filter { !known.contains($0) }
    }

    /// The household's member ids by lower-cased name, to place chore occurrences (which name
    /// their assignee) on a member's timeline.
    func memberIdsByName(in household: UUID?) async throws -> [String: [UUID]] {
        guard let household else { return [:] }
        let rows = try await client.query("SELECT member_id, name FROM household_members WHERE household_id = \(household)", logger: logger)
        var byName: [String: [UUID]] = [:]
        for try await (id, name) in rows.decode((UUID, String).self) { byName[name.lowercased(), default: []].append(id) }
        return byName
    }

    func feed(tokenSHA256: String) async throws -> CalendarFeedOwner? {
        let rows = try await client.query(
            "SELECT feed_id, household_id, user_id, revoked_at IS NOT NULL FROM calendar_feeds WHERE token_sha256 = \(tokenSHA256)", logger: logger)
        for try await (id, household, user, revoked) in rows.decode((UUID, UUID?, UUID, Bool).self) {
            return CalendarFeedOwner(feedId: id, householdId: household, userId: user, revoked: revoked)
        }
        return nil
    }

    func feed(id: UUID) async throws -> CalendarFeedOwner? {
        let rows = try await client.query(
            "SELECT feed_id, household_id, user_id, revoked_at IS NOT NULL FROM calendar_feeds WHERE feed_id = \(id)", logger: logger)
        for try await (id, household, user, revoked) in rows.decode((UUID, UUID?, UUID, Bool).self) {
            return CalendarFeedOwner(feedId: id, householdId: household, userId: user, revoked: revoked)
        }
        return nil
    }

    static func binds(_ ids: UUID...) -> PostgresBindings {
        var bindings = PostgresBindings()
        for id in ids { bindings.append(id) }
        return bindings
    }

    static func decode(_ rows: PostgresRowSequence) async throws -> [StoredCalendarEntry] {
        var entries: [StoredCalendarEntry] = []
        for try await row in rows {
            let columns = row.makeRandomAccess()
            entries.append(StoredCalendarEntry(
                id: try columns[0].decode(UUID.self),
                source: CalendarEntry.Source(rawValue: try columns[1].decode(String.self)) ?? .event,
                householdId: try columns[2].decode(UUID?.self),
                ownerUserId: try columns[3].decode(UUID.self),
                title: try columns[4].decode(String.self),
                start: try columns[5].decode(Date.self),
                end: try columns[6].decode(Date.self),
                allDay: try columns[7].decode(Bool.self),
                timeZone: try columns[8].decode(String.self),
                kind: try columns[9].decode(String.self),
                memberIds: try columns[10].decode([UUID].self),
                assignee: try columns[11].decode(String?.self),
                location: try columns[12].decode(String?.self),
                rrule: try columns[13].decode(String?.self),
                sequence: try columns[14].decode(Int.self),
                updatedAt: try columns[15].decode(Date.self),
                deleted: try columns[16].decode(Bool.self)))
        }
        return entries
    }
}
