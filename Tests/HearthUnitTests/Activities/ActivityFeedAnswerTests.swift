import Foundation
@testable import GatewayService
import HearthEvents
import HearthRuntime
import Testing

@Suite struct ActivityFeedAnswerTests {
    static func row(_ id: String, revision: Int64, energy: String = "low", time: Int = 5, ages: ClosedRange<Int> = 0...99, withdrawn: Bool = false) -> ActivityRow {
        ActivityRow(
            id: id, source: "library",
            content: ActivityContent(
                title: "Title of \(id)", description: "What to do for \(id).", timeMinutes: time, energy: energy, contexts: ["indoor"], category: "play",
                minAge: ages.lowerBound, maxAge: ages.upperBound, repeatability: "daily"),
            withdrawn: withdrawn, revision: revision)
    }

    static let rows = [row("act-b", revision: 1), row("act-a", revision: 0, energy: "high"), row("act-c", revision: 2, withdrawn: true)]

    struct Decoded: Decodable {
        struct Item: Decodable {
            var id: String
            var withdrawn: Bool
            var revision: Int64
            var title: String?
            var energy: String?
        }
        var activities: [Item]
        var cursor: Int64
        var etag: String
    }

    static func decode(_ answer: ActivityFeedAnswer) throws -> Decoded {
        try JSONDecoder().decode(Decoded.self, from: answer.body)
    }

    @Test func aFullAnswerHasTheLiveActivitiesByIdAndTheCursorAfterTheNewestChange() throws {
        let answer = try ActivityFeedAnswer.make(rows: Self.rows, query: ActivityFeedQuery())
        let body = try Self.decode(answer)
        #expect(body.activities.map(\.id) == ["act-a", "act-b"])
        #expect(body.activities.allSatisfy { !$0.withdrawn && $0.title != nil })
        #expect(body.cursor == 3)
        #expect(body.etag == answer.etag)
        #expect(answer.etag.hasPrefix("3-"))
    }

    @Test func theETagIsStableForEqualAnswersAndChangesWithAnyChange() throws {
        let first = try ActivityFeedAnswer.make(rows: Self.rows, query: ActivityFeedQuery())
        let again = try ActivityFeedAnswer.make(rows: Self.rows.reversed(), query: ActivityFeedQuery())
        #expect(first.etag == again.etag)
        #expect(first.body == again.body)
        var edited = Self.rows
        edited[0].content.title = "A new title"
        #expect(try ActivityFeedAnswer.make(rows: edited, query: ActivityFeedQuery()).etag != first.etag)
        let filtered = try ActivityFeedAnswer.make(rows: Self.rows, query: ActivityFeedQuery(energy: "high"))
        #expect(filtered.etag != first.etag)
        #expect(try Self.decode(filtered).activities.map(\.id) == ["act-a"])
    }

    @Test func aDeltaHasEveryChangeSinceTheCursorWithTombstonesForWhatLeftTheView() throws {
        let delta = try Self.decode(try ActivityFeedAnswer.make(rows: Self.rows, query: ActivityFeedQuery(since: 1, energy: "low")))
        // act-b changed at 1 and is in the view; act-c was withdrawn at 2.
        #expect(delta.activities.map(\.id) == ["act-b", "act-c"])
        #expect(delta.activities.map(\.withdrawn) == [false, true])
        #expect(delta.activities[1].title == nil)
        // A change that moves an activity out of the filtered view is a tombstone there too.
        let highOnly = try Self.decode(try ActivityFeedAnswer.make(rows: Self.rows, query: ActivityFeedQuery(since: 0, energy: "high")))
        #expect(highOnly.activities.map(\.id) == ["act-a", "act-b", "act-c"])
        #expect(highOnly.activities.map(\.withdrawn) == [false, true, true])
        // Nothing changed at or after the cursor: an empty delta with the same cursor.
        let none = try Self.decode(try ActivityFeedAnswer.make(rows: Self.rows, query: ActivityFeedQuery(since: 3)))
        #expect(none.activities.isEmpty)
        #expect(none.cursor == 3)
    }

    @Test func filtersKeepWhatFitsTheTimeTheAgeAndTheTags() {
        let query = ActivityFeedQuery(time: 15, context: "indoor", age: 4)
        #expect(query.matches(Self.row("x", revision: 0, time: 15, ages: 3...6).content))
        #expect(!query.matches(Self.row("x", revision: 0, time: 30).content))
        #expect(!query.matches(Self.row("x", revision: 0, ages: 5...8).content))
        #expect(!ActivityFeedQuery(context: "car").matches(Self.row("x", revision: 0).content))
    }

    @Test func ifNoneMatchTakesTheTagQuotedWeakOrInAList() throws {
        let answer = try ActivityFeedAnswer.make(rows: Self.rows, query: ActivityFeedQuery())
        #expect(answer.isMatched(by: "\"\(answer.etag)\""))
        #expect(answer.isMatched(by: "W/\"\(answer.etag)\""))
        #expect(answer.isMatched(by: "\"other\", \"\(answer.etag)\""))
        #expect(answer.isMatched(by: "*"))
        #expect(!answer.isMatched(by: answer.etag))
        #expect(!answer.isMatched(by: "\"3-000000\""))
    }

    @Test func sinceTakesACursorOrAnETagAndRefusesAnythingElseByName() throws {
        #expect(ActivityFeedQuery.cursor(in: "412") == 412)
        #expect(ActivityFeedQuery.cursor(in: "412-9f00ab") == 412)
        #expect(ActivityFeedQuery.cursor(in: "\"412-9f00ab\"") == 412)
        #expect(ActivityFeedQuery.cursor(in: "W/\"7-ab\"") == 7)
        for bad in ["", "-1", "abc", "12x", "99999999999999999999"] {
            #expect(ActivityFeedQuery.cursor(in: bad) == nil, "\(bad)")
        }
        for (name, value) in [("since", "yesterday"), ("time", "0"), ("energy", "extreme"), ("context", "space"), ("category", "chores"), ("age", "-2")] {
            let error = #expect(throws: APIError.self) { try ActivityFeedQuery(parameters: [name: value]) }
            #expect(error?.field == name)
        }
        let query = try ActivityFeedQuery(parameters: ["since": "5-ab", "time": "15", "energy": "low", "context": "car", "category": "calm", "age": "7"])
        #expect(query == ActivityFeedQuery(since: 5, time: 15, energy: "low", context: "car", category: "calm", age: 7))
    }
}
