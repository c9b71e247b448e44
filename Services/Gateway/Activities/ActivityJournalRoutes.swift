import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime
import HearthStore
import Hummingbird
import PostgresNIO

/// What each caller does with the feed, synced across their devices (`/v1/activities/…`):
/// favourites, history, preferences, and the suggestions they shape. All of it is the caller's
/// own (every read is by their id), but for the suggestions, which are the family's: what the
/// owners and adults of the caller's households did or marked shapes them (never the entries
/// themselves), unless they also belong to a household the caller is not in.
struct ActivityJournalRoutes: Sendable {
    let feed: ActivityFeed
    let publisher: EventPublisher
    let client: PostgresClient
    let consistency: ReadConsistency

    static let readProjections: [Topic: [String]] = [
        .activityHistory: [ActivityHistoryProjection().name], .activities: [ActivitiesProjection().name],
    ]

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        let group = routes.group("activities")
        group.put("favorites/{activity_id}") { request, context in try await setFavourite(request, context: context, favourite: true) }
        group.delete("favorites/{activity_id}") { request, context in try await setFavourite(request, context: context, favourite: false) }
        group.get("favorites") { request, context in try await favourites(request, context: context) }
        group.post("history") { request, context in
            EditedResponse(status: .created, response: try await complete(request, context: context))
        }
        group.get("history") { request, context in try await history(request, context: context) }
        group.get("prefs") { request, context in try await prefs(request, context: context) }
        group.put("prefs") { request, context in try await setPrefs(request, context: context) }
        group.get("suggestions") { request, context in try await suggestions(request, context: context) }
    }

    private func wait(_ request: Request) async throws {
        try await consistency.wait(for: try consistency.pendingRead(in: request, projections: Self.readProjections, writtenBy: "an activity write"))
    }

    /// An activity of the feed, live: what a favourite or a history entry may name.
    private func requireLive(_ id: String, context: HearthRequestContext) async throws {
        guard (1...200).contains(id.count) else { throw APIError.invalid("activity_id", "activity_id must be 1 to 200 characters") }
        // The cached rows first; a miss reads the table (an approval this process has not heard of yet).
        if try await feed.allRows(bypassing: false).contains(where: { $0.id == id && !$0.withdrawn }) { return }
        guard try await feed.allRows(bypassing: true).contains(where: { $0.id == id && !$0.withdrawn }) else { throw APIError.notFound("activity") }
    }

    // MARK: Favourites

    struct FavouriteSet: ResponseEncodable {
        let activityId: String
        let favourite: Bool
        let position: String
        enum CodingKeys: String, CodingKey {
            case activityId = "activity_id"
            case favourite, position
        }
    }

    func setFavourite(_ request: Request, context: HearthRequestContext, favourite: Bool) async throws -> FavouriteSet {
        let user = try context.authenticatedUser()
        let id = try context.parameters.require("activity_id")
        guard (1...200).contains(id.count) else { throw APIError.invalid("activity_id", "activity_id must be 1 to 200 characters") }
        // Unmarking needs no live activity: a withdrawn favourite can still be removed.
        if favourite { try await requireLive(id, context: context) }
        let position = try await publisher.publish(ActivityFavouriteSet(userId: user, activityId: id, favourite: favourite), correlationId: context.correlationId)
        return FavouriteSet(activityId: id, favourite: favourite, position: position.description)
    }

    struct Favourites: ResponseEncodable {
        struct Item: Encodable {
            let activityId: String
            let createdAt: Date
            enum CodingKeys: String, CodingKey {
                case activityId = "activity_id"
                case createdAt = "created_at"
            }
        }
        let favorites: [Item]
    }

    func favourites(_ request: Request, context: HearthRequestContext) async throws -> Favourites {
        let user = try context.authenticatedUser()
        try await wait(request)
        let rows = try await client.query(
            "SELECT activity_id, created_at FROM activity_favourites WHERE user_id = \(user) ORDER BY created_at DESC, activity_id", logger: context.logger)
        var items: [Favourites.Item] = []
        for try await (id, created) in rows.decode((String, Date).self) { items.append(.init(activityId: id, createdAt: created)) }
        return Favourites(favorites: items)
    }

    // MARK: History

    struct CompletionRequest: Decodable {
        var activityId: String
        /// RFC 3339 with a zone.
        var completedAt: String
        var context: JSONValue?
        enum CodingKeys: String, CodingKey {
            case activityId = "activity_id"
            case completedAt = "completed_at"
            case context
        }
    }

    struct Completed: ResponseEncodable {
        @LowercaseID var entryId: UUID
        let position: String
        enum CodingKeys: String, CodingKey {
            case entryId = "entry_id"
            case position
        }
    }

    static let maxContextBytes = 2048

    func complete(_ request: Request, context: HearthRequestContext) async throws -> Completed {
        let user = try context.authenticatedUser()
        let body = try await JSONRequestBody.decode(CompletionRequest.self, from: request, context: context)
        let now = Date()
        guard let completedAt = Timestamp.parse(body.completedAt) else {
            throw APIError.invalid("completed_at", "completed_at must be an RFC 3339 date-time with a zone")
        }
        guard completedAt <= now.addingTimeInterval(300), completedAt >= now.addingTimeInterval(-366 * 86_400) else {
            throw APIError.invalid("completed_at", "completed_at must be within the last year and not in the future")
        }
        if let snapshot = body.context {
            guard case .object = snapshot else { throw APIError.invalid("context", "context must be a JSON object") }
            guard (try? JSONEncoder().encode(snapshot).count).map({ $0 <= Self.maxContextBytes }) ?? false else {
                throw APIError.invalid("context", "context must be at most \(Self.maxContextBytes) bytes as JSON")
            }
        }
        try await requireLive(body.activityId, context: context)
        let event = ActivityCompleted(
            userId: user, entryId: EventIdentity.newId("activity-history"), activityId: body.activityId, completedAt: completedAt, context: body.context)
        let position = try await publisher.publish(event, correlationId: context.correlationId)
        return Completed(entryId: event.entryId, position: position.description)
    }

    struct HistoryPage: ResponseEncodable {
        struct Entry: Encodable {
            @LowercaseID var entryId: UUID
            let activityId: String
            let completedAt: Date
            let context: JSONValue?
            enum CodingKeys: String, CodingKey {
                case entryId = "entry_id"
                case activityId = "activity_id"
                case completedAt = "completed_at"
                case context
            }
        }
        let entries: [Entry]
        /// `null` on the last page (written out: a client reads its absence as an error).
        let nextCursor: String?
        enum CodingKeys: String, CodingKey {
            case entries
            case nextCursor = "next_cursor"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(entries, forKey: .entries)
            try container.encode(nextCursor, forKey: .nextCursor)
        }
    }

    /// Newest first; `cursor` is the `next_cursor` of the page before (the last entry's time and id,
    /// so entries added meanwhile never shift a page).
    func history(_ request: Request, context: HearthRequestContext) async throws -> HistoryPage {
        let user = try context.authenticatedUser()
        let limit = try request.uri.queryParameters.get("limit").map { text -> Int in
            guard let value = Int(text), (1...100).contains(value) else { throw APIError.invalid("limit", "limit must be from 1 to 100") }
            return value
        } ?? 50
        var after: (Date, UUID)?
        if let cursor = request.uri.queryParameters.get("cursor") {
            guard let decoded = Self.decodeCursor(cursor) else { throw APIError.invalid("cursor", "cursor must be the next_cursor of an earlier page") }
            after = decoded
        }
        try await wait(request)
        let before = after?.0 ?? Date.distantFuture
        let beforeId = after?.1 ?? UUID(uuidString: "ffffffff-ffff-ffff-ffff-ffffffffffff")!
        let rows = try await client.query(
            """
            SELECT entry_id, activity_id, completed_at, context::text FROM activity_history
            WHERE user_id = \(user) AND (completed_at, entry_id) < (\(before), \(beforeId))
            ORDER BY completed_at DESC, entry_id DESC LIMIT \(limit + 1)
            """, logger: context.logger)
        var entries: [HistoryPage.Entry] = []
        for try await (id, activity, completed, snapshot) in rows.decode((UUID, String, Date, String?).self) {
            entries.append(.init(
                entryId: id, activityId: activity, completedAt: completed,
                context: try snapshot.map { try JSONDecoder().decode(JSONValue.self, from: Data($0.utf8)) }))
        }
        let more = entries.count > limit
        entries = Array(entries.prefix(limit))
        return HistoryPage(entries: entries, nextCursor: more ? entries.last.map { Self.encodeCursor($0.completedAt, $0.entryId) } : nil)
    }

    static func encodeCursor(_ date: Date, _ id: UUID) -> String {
        Data("\(Timestamp.format(date))|\(id.uuidString.lowercased())".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func decodeCursor(_ text: String) -> (Date, UUID)? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard text.count <= 200, let data = Data(base64Encoded: base64), let decoded = String(data: data, encoding: .utf8) else { return nil }
        let parts = decoded.split(separator: "|")
        guard parts.count == 2, let date = Timestamp.parse(String(parts[0])), let id = UUID(uuidString: String(parts[1])) else { return nil }
        return (date, id)
    }

    // MARK: Preferences

    /// The seed's UserPrefs: the times, energies and contexts the user usually picks, and flags.
    struct Prefs: Codable, ResponseEncodable, Equatable {
        var timeOptions: [Int]
        var energyDefaults: [String]
        var contextDefaults: [String]
        var flags: [String: Bool]

        enum CodingKeys: String, CodingKey {
            case timeOptions = "time_options"
            case energyDefaults = "energy_defaults"
            case contextDefaults = "context_defaults"
            case flags
        }

        static let none = Prefs(timeOptions: [], energyDefaults: [], contextDefaults: [], flags: [:])

        func validated() throws -> Prefs {
            guard timeOptions.allSatisfy(ActivityContent.times.contains), Set(timeOptions).count == timeOptions.count else {
                throw APIError.invalid("time_options", "time_options must list distinct values of \(ActivityContent.times.map(String.init).joined(separator: ", "))")
            }
            guard energyDefaults.allSatisfy(ActivityContent.energies.contains), Set(energyDefaults).count == energyDefaults.count else {
                throw APIError.invalid("energy_defaults", "energy_defaults must list distinct values of \(ActivityContent.energies.joined(separator: ", "))")
            }
            guard contextDefaults.allSatisfy(ActivityContent.contextOrder.contains), Set(contextDefaults).count == contextDefaults.count else {
                throw APIError.invalid("context_defaults", "context_defaults must list distinct values of \(ActivityContent.contextOrder.joined(separator: ", "))")
            }
            guard flags.count <= 32, flags.keys.allSatisfy({ (1...64).contains($0.count) }) else {
                throw APIError.invalid("flags", "flags must be at most 32 names of 1 to 64 characters")
            }
            return self
        }
    }

    struct PrefsSet: ResponseEncodable {
        let prefs: Prefs
        let position: String
    }

    func prefs(_ request: Request, context: HearthRequestContext) async throws -> Prefs {
        let user = try context.authenticatedUser()
        try await wait(request)
        let rows = try await client.query("SELECT prefs::text FROM activity_prefs WHERE user_id = \(user)", logger: context.logger)
        for try await json in rows.decode(String?.self) {
            guard let json else { return .none }
            return (try? JSONDecoder().decode(Prefs.self, from: Data(json.utf8))) ?? .none
        }
        return .none
    }

    func setPrefs(_ request: Request, context: HearthRequestContext) async throws -> PrefsSet {
        let user = try context.authenticatedUser()
        let prefs = try await JSONRequestBody.decode(Prefs.self, from: request, context: context).validated()
        let value = try JSONDecoder().decode(JSONValue.self, from: try JSONEncoder().encode(prefs))
        let position = try await publisher.publish(ActivityPrefsSet(userId: user, prefs: value), correlationId: context.correlationId)
        return PrefsSet(prefs: prefs, position: position.description)
    }

    // MARK: Suggestions

    struct Suggestions: ResponseEncodable {
        struct Item: Encodable {
            let row: ActivityRow
            let score: Double
            func encode(to encoder: any Encoder) throws {
                try row.content.encode(to: encoder)
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(row.id, forKey: .id)
                try container.encode(score, forKey: .score)
            }
            enum Keys: String, CodingKey { case id, score }
        }
        let suggestions: [Item]
    }

    func suggestions(_ request: Request, context: HearthRequestContext) async throws -> Suggestions {
        let user = try context.authenticatedUser()
        let query = try ActivityFeedQuery(
            queryPairs: request.uri.queryParameters.map { (String($0.0), String($0.1)) }, allowed: ActivityFeedQuery.parameters.filter { $0 != "since" },
            route: "suggestions")
        try await wait(request)
        let rows = try await feed.allRows(bypassing: false)
        // The family: the caller and the owners and adults of their households who belong to no
        // household the caller is not in. A caregiver, or a parent who is also in another
        // household, is left out: their history may be another family's, which suggestions must
        // not let anyone infer. (Coaches are not members.)
        var family: [UUID] = [user]
        for try await member in try await client.query(
            """
            SELECT DISTINCT other.user_id FROM user_households mine
            JOIN user_households other ON other.household_id = mine.household_id
            WHERE mine.user_id = \(user) AND other.user_id <> \(user) AND other.role IN ('owner', 'adult')
              AND NOT EXISTS (
                SELECT 1 FROM user_households elsewhere
                WHERE elsewhere.user_id = other.user_id
                  AND elsewhere.household_id NOT IN (SELECT household_id FROM user_households WHERE user_id = \(user)))
            """, logger: context.logger
        ).decode(UUID.self) {
            family.append(member)
        }
        let favouriteIds = try await client.query(
            "SELECT DISTINCT activity_id FROM activity_favourites WHERE user_id = ANY(\(family))", logger: context.logger)
            .decode(String.self).reduce(into: Set<String>()) { $0.insert($1) }
        let recent = try await client.query(
            """
            SELECT DISTINCT activity_id FROM activity_history
            WHERE user_id = ANY(\(family)) AND completed_at > \(Date().addingTimeInterval(-Double(ActivitySuggestions.recentDays) * 86_400))
            """, logger: context.logger).decode(String.self).reduce(into: Set<String>()) { $0.insert($1) }
        let ranked = ActivitySuggestions.rank(
            rows: rows, fitting: query, favourites: rows.filter { favouriteIds.contains($0.id) }.map(\.content), doneRecently: recent, user: user,
            day: CalendarDay(Date(), in: .gmt))
        return Suggestions(suggestions: ranked.map { .init(row: $0.row, score: $0.score) })
    }
}
