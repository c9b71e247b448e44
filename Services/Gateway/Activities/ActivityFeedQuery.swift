import Crypto
import Foundation
import HearthEvents
import HearthRuntime

/// One activity of the feed as the gateway holds it in memory.
struct ActivityRow: Sendable, Equatable {
    var id: String
    var source: String
    var content: ActivityContent
    var withdrawn: Bool
    var revision: Int64
}

/// What `GET /v1/activities/feed` was asked: the changes from a cursor (`since`) and the tag
/// filters. Every parameter is checked by name; an unknown value is a 400, never an empty feed.
struct ActivityFeedQuery: Hashable, Sendable {
    /// Rows changed at or after this revision (the `cursor` of an earlier answer, or its etag).
    var since: Int64?
    /// At most this many minutes.
    var time: Int?
    var energy: String?
    var context: String?
    var category: String?
    /// Suitable at this age (years).
    var age: Int?

    static let parameters = ["since", "time", "energy", "context", "category", "age"]

    init(since: Int64? = nil, time: Int? = nil, energy: String? = nil, context: String? = nil, category: String? = nil, age: Int? = nil) {
        self.since = since
        self.time = time
        self.energy = energy
        self.context = context
        self.category = category
        self.age = age
    }

    /// A query string's pairs, any name outside `allowed` refused by name (`route` says whose).
    init(queryPairs: [(String, String)], allowed: [String] = parameters, route: String) throws {
        var parameters: [String: String] = [:]
        for (name, value) in queryPairs {
            guard allowed.contains(name) else {
                throw APIError.invalid(name, "unknown parameter \(name); \(route) takes \(allowed.joined(separator: ", "))")
            }
            parameters[name] = value
        }
        try self.init(parameters: parameters)
    }

    init(parameters: [String: String]) throws {
        if let since = parameters["since"] {
            guard let cursor = Self.cursor(in: since) else {
                throw APIError.invalid("since", "since must be the cursor or the etag of an earlier feed answer")
            }
            self.since = cursor
        }
        if let time = parameters["time"] {
            guard let minutes = Int(time), minutes > 0, minutes <= 1440 else { throw APIError.invalid("time", "time must be a number of minutes from 1 to 1440") }
            self.time = minutes
        }
        if let energy = parameters["energy"] {
            guard ActivityContent.energies.contains(energy) else { throw APIError.invalid("energy", "energy must be one of \(ActivityContent.energies.joined(separator: ", "))") }
            self.energy = energy
        }
        if let context = parameters["context"] {
            guard ActivityContent.contextOrder.contains(context) else {
                throw APIError.invalid("context", "context must be one of \(ActivityContent.contextOrder.joined(separator: ", "))")
            }
            self.context = context
        }
        if let category = parameters["category"] {
            guard ActivityContent.categories.contains(category) else {
                throw APIError.invalid("category", "category must be one of \(ActivityContent.categories.joined(separator: ", "))")
            }
            self.category = category
        }
        if let age = parameters["age"] {
            guard let years = Int(age), (0...120).contains(years) else { throw APIError.invalid("age", "age must be a whole number of years from 0 to 120") }
            self.age = years
        }
    }

    /// The cursor a `since` names: a cursor (`412`) or an etag (`412-9f…`, quoted or weak).
    static func cursor(in text: String) -> Int64? {
        var text = Substring(text.trimmingCharacters(in: .whitespaces))
        if text.hasPrefix("W/") { text = text.dropFirst(2) }
        text = Substring(text.trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 18, digits.count == text.count || text.dropFirst(digits.count).first == "-" else { return nil }
        return Int64(digits)
    }

    /// Whether a live activity belongs in this view.
    func matches(_ content: ActivityContent) -> Bool {
        if let time, content.timeMinutes > time { return false }
        if let energy, content.energy != energy { return false }
        if let context, !content.contexts.contains(context) { return false }
        if let category, content.category != category { return false }
        if let age, age < content.minAge || age > content.maxAge { return false }
        return true
    }

    /// The query with `since` left out: the filters a delta answer shares with a full one.
    var filters: ActivityFeedQuery { ActivityFeedQuery(time: time, energy: energy, context: context, category: category, age: age) }
}

/// An encoded feed answer and its strong ETag.
struct ActivityFeedAnswer: Sendable {
    var body: Data
    var etag: String
    var cursor: Int64

    /// An activity in the answer: whole, or (in a delta) a tombstone for one withdrawn or no longer
    /// in the filtered view.
    struct Item: Encodable, Equatable {
        var id: String
        var withdrawn: Bool
        var revision: Int64
        var source: String?
        var content: ActivityContent?

        func encode(to encoder: any Encoder) throws {
            try content?.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(id, forKey: .id)
            try container.encode(withdrawn, forKey: .withdrawn)
            try container.encode(revision, forKey: .revision)
            try container.encodeIfPresent(source, forKey: .source)
        }

        enum Keys: String, CodingKey { case id, withdrawn, revision, source }
    }

    struct Body: Encodable {
        var activities: [Item]
        var cursor: Int64
        var etag: String?
    }

    /// The answer to `query` over every row of the feed. Without `since`: the live activities the
    /// filters keep, by id. With it: every row changed at or after `since`, in revision order,
    /// whole when the filters keep it, else a tombstone (the client drops it from this view). The
    /// cursor is the revision after the newest change; the ETag hashes the rest of the body, so it
    /// changes exactly when the body does.
    static func make(rows: [ActivityRow], query: ActivityFeedQuery) throws -> ActivityFeedAnswer {
        let cursor = (rows.map(\.revision).max() ?? -1) + 1
        var items: [Item]
        if let since = query.since {
            items = rows.filter { $0.revision >= since }.sorted { ($0.revision, $0.id) < ($1.revision, $1.id) }.map { row in
                guard !row.withdrawn, query.matches(row.content) else { return Item(id: row.id, withdrawn: true, revision: row.revision) }
                return Item(id: row.id, withdrawn: false, revision: row.revision, source: row.source, content: row.content)
            }
        } else {
            items = rows.filter { !$0.withdrawn && query.matches($0.content) }.sorted { $0.id < $1.id }.map {
                Item(id: $0.id, withdrawn: false, revision: $0.revision, source: $0.source, content: $0.content)
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let unsigned = try encoder.encode(Body(activities: items, cursor: cursor, etag: nil))
        let digest = SHA256.hash(data: unsigned).prefix(12).map { String(format: "%02x", $0) }.joined()
        let etag = "\(cursor)-\(digest)"
        return ActivityFeedAnswer(body: try encoder.encode(Body(activities: items, cursor: cursor, etag: etag)), etag: etag, cursor: cursor)
    }

    /// Whether an `If-None-Match` value names this answer (`*`, or one of a list of tags; a weak
    /// tag matches too, as RFC 9110 has it for GET).
    func isMatched(by ifNoneMatch: String) -> Bool {
        ifNoneMatch.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == "\"\(etag)\""
        }
    }
}
