import Foundation
import HearthEvents
import HearthRuntime
import Hummingbird
import Logging
import PostgresNIO

/// `GET /v1/admin/feedback?mode=&rating=&limit=`, the *Feedback* page's twin: the newest feedback
/// with the run it judged (its goal, PII-redacted before it was ever published, mode, models and
/// the plan's outline), and the up/down ratio per week over the last twelve.
struct FeedbackReport: ResponseEncodable, Sendable {
    struct Item: Encodable, Sendable {
        @LowercaseID var feedbackId: UUID
        let runId: String
        /// up, down or edit.
        let signal: String
        let comment: String?
        let givenAt: Date
        /// Nil when the run is not a Hearth run (or its read model has not caught up).
        let mode: String?
        let goal: String?
        let models: [String]
        /// The plan's outline: each part of the final answer and how many entries it has.
        let planOutline: String?

        enum CodingKeys: String, CodingKey {
            case feedbackId = "feedback_id"
            case runId = "run_id"
            case signal, comment
            case givenAt = "given_at"
            case mode, goal, models
            case planOutline = "plan_outline"
        }
    }

    struct Week: Encodable, Sendable {
        /// The Monday the week starts on.
        let week: String
        let up: Int
        let down: Int
        let edit: Int
        /// up / (up + down), nil without either.
        var upRatio: Double? { up + down == 0 ? nil : Double(up) / Double(up + down) }

        enum CodingKeys: String, CodingKey {
            case week, up, down, edit
            case upRatio = "up_ratio"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(week, forKey: .week)
            try container.encode(up, forKey: .up)
            try container.encode(down, forKey: .down)
            try container.encode(edit, forKey: .edit)
            try container.encode(upRatio.map { ($0 * 1000).rounded() / 1000 }, forKey: .upRatio)
        }
    }

    let mode: String?
    let rating: String?
    let items: [Item]
    let weeks: [Week]

    enum CodingKeys: String, CodingKey {
        case mode, rating, items, weeks
    }

    /// The filters are written when null too: the document says they are always there.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(mode, forKey: .mode)
        try container.encode(rating, forKey: .rating)
        try container.encode(items, forKey: .items)
        try container.encode(weeks, forKey: .weeks)
    }
}

struct FeedbackReview: Sendable {
    let client: PostgresClient
    let logger: Logger

    static let modes = ["meals", "chores", "routines"]
    static let ratings = ["up", "down", "edit"]
    static let weeks = 12

    /// `GET /v1/admin/feedback`, on the admins' group.
    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.get("feedback") { request, _ in
            let query = request.uri.queryParameters
            return try await report(try Filter(mode: query.get("mode"), rating: query.get("rating"), limit: query.get("limit")))
        }
    }

    struct Filter: Sendable, Equatable {
        var mode: String?
        var rating: String?
        var limit = 100

        /// From `?mode=&rating=&limit=`; an empty value means any.
        init(mode: String?, rating: String?, limit: String?) throws {
            let mode = mode.flatMap { $0.isEmpty ? nil : $0 }, rating = rating.flatMap { $0.isEmpty ? nil : $0 }
            if let mode, !FeedbackReview.modes.contains(mode) {
                throw APIError.invalid("mode", "mode must be one of \(FeedbackReview.modes.joined(separator: ", "))")
            }
            if let rating, !FeedbackReview.ratings.contains(rating) {
                throw APIError.invalid("rating", "rating must be one of \(FeedbackReview.ratings.joined(separator: ", "))")
            }
            self.mode = mode
            self.rating = rating
            self.limit = try AdminRoutes.integer(limit, name: "limit", default: 100, range: 1...500)
        }
    }

    func report(_ filter: Filter) async throws -> FeedbackReport {
        var items: [FeedbackReport.Item] = []
        for try await (id, run, signal, comment, givenAt, mode, goal, models, final) in try await client.query(
            """
            SELECT f.feedback_id, f.run_id, f.signal, f.comment, f.given_at, r.mode, r.goal, r.models_used::text, r.final::text
            FROM feedback f LEFT JOIN agent_runs r ON r.run_id::text = lower(f.run_id)
            WHERE (\(filter.mode)::text IS NULL OR r.mode = \(filter.mode)) AND (\(filter.rating)::text IS NULL OR f.signal = \(filter.rating))
            ORDER BY f.given_at DESC, f.feedback_id LIMIT \(filter.limit)
            """, logger: logger
        ).decode((UUID, String, String, String?, Date, String?, String?, String?, String?).self) {
            let used = models.flatMap { try? JSONDecoder().decode([String: Int].self, from: Data($0.utf8)) } ?? [:]
            items.append(FeedbackReport.Item(
                feedbackId: id, runId: run, signal: signal, comment: comment, givenAt: givenAt, mode: mode, goal: goal,
                models: used.keys.sorted(), planOutline: final.flatMap(Self.outline)))
        }
        var weeks: [FeedbackReport.Week] = []
        for try await (week, up, down, edit) in try await client.query(
            """
            SELECT to_char(w.week, 'YYYY-MM-DD'),
                   count(f.feedback_id) FILTER (WHERE f.signal = 'up')::int, count(f.feedback_id) FILTER (WHERE f.signal = 'down')::int,
                   count(f.feedback_id) FILTER (WHERE f.signal = 'edit')::int
            FROM generate_series(date_trunc('week', now() AT TIME ZONE 'UTC') - make_interval(weeks => \(Int32(Self.weeks - 1))),
                                 date_trunc('week', now() AT TIME ZONE 'UTC'), interval '1 week') AS w(week)
            LEFT JOIN (feedback f LEFT JOIN agent_runs r ON r.run_id::text = lower(f.run_id))
              ON date_trunc('week', f.given_at AT TIME ZONE 'UTC') = w.week AND (\(filter.mode)::text IS NULL OR r.mode = \(filter.mode))
            GROUP BY w.week ORDER BY w.week
            """, logger: logger
        ).decode((String, Int, Int, Int).self) {
            weeks.append(FeedbackReport.Week(week: week, up: up, down: down, edit: edit))
        }
        return FeedbackReport(mode: filter.mode, rating: filter.rating, items: items, weeks: weeks)
    }

    /// "days: 7 · grocery_list: 23": each top-level part of a final answer, with the number of
    /// entries of a list or object. Words of the plan itself stay out of the page.
    static func outline(_ finalJSON: String) -> String? {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(finalJSON.utf8))) as? [String: Any], !object.isEmpty else { return nil }
        return object.keys.sorted().map { key in
            switch object[key] {
            case let list as [Any]: "\(key): \(list.count)"
            case let dictionary as [String: Any]: "\(key): \(dictionary.count)"
            default: key
            }
        }.joined(separator: " · ")
    }
}
