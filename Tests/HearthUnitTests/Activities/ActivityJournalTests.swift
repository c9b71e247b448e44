import Foundation
@testable import GatewayService
import HearthAssist
import HearthDomain
import HearthEvents
import Testing

@Suite struct ActivityJournalTests {
    static let user = UUID(uuidString: "6a1f0c52-7d0b-4f3e-9a51-2c7e4b8d9f10")!
    static let day = CalendarDay(year: 2026, month: 11, day: 27)!

    static func row(_ id: String, category: String, energy: String = "low", contexts: [String] = ["indoor"], time: Int = 5) -> ActivityRow {
        ActivityRow(
            id: id, source: "library",
            content: ActivityContent(
                title: id, description: "Do \(id).", timeMinutes: time, energy: energy, contexts: contexts, category: category, minAge: 0, maxAge: 99,
                repeatability: "daily"),
            withdrawn: false, revision: 1)
    }

    static let rows = [
        row("a", category: "calm"), row("b", category: "calm", energy: "high"), row("c", category: "play", energy: "high", contexts: ["outdoor"]),
        row("d", category: "play"), row("e", category: "nature", contexts: ["outdoor"]), row("f", category: "calm", time: 30),
        row("g", category: "kindness"),
    ]

    @Test func suggestionsLeaveOutTheWeeksActivitiesAndLeanTowardsTheFavourites() {
        let favourites = [Self.rows[0].content]
        let ranked = ActivitySuggestions.rank(rows: Self.rows, fitting: ActivityFeedQuery(), favourites: favourites, doneRecently: ["a"], user: Self.user, day: Self.day)
        #expect(ranked.count == 5)
        #expect(!ranked.contains { $0.row.id == "a" })
        // Calm first: the favourite's category.
        #expect(ranked.prefix(2).allSatisfy { $0.row.content.category == "calm" })
        #expect(ranked[0].score >= ranked[1].score && ranked[1].score > ranked[2].score)
        // Filters apply; the same day gives the same order, without favourites too.
        let short = ActivitySuggestions.rank(rows: Self.rows, fitting: ActivityFeedQuery(time: 5), favourites: [], doneRecently: [], user: Self.user, day: Self.day)
        #expect(!short.contains { $0.row.id == "f" })
        #expect(short.map(\.row.id) == ActivitySuggestions.rank(rows: Self.rows, fitting: ActivityFeedQuery(time: 5), favourites: [], doneRecently: [], user: Self.user, day: Self.day).map(\.row.id))
    }

    @Test func theHistoryCursorRoundTripsAndRefusesAnythingElse() throws {
        let date = Date(timeIntervalSince1970: 1_790_000_000.123)
        let id = UUID()
        let cursor = ActivityJournalRoutes.encodeCursor(date, id)
        #expect(!cursor.contains("=") && !cursor.contains("/") && !cursor.contains("+"))
        let decoded = try #require(ActivityJournalRoutes.decodeCursor(cursor))
        #expect(abs(decoded.0.timeIntervalSince(date)) < 0.001 && decoded.1 == id)
        for bad in ["", "garbage", "Zm9vfGJhcg", String(repeating: "A", count: 300)] { #expect(ActivityJournalRoutes.decodeCursor(bad) == nil, "\(bad)") }
    }

    @Test func aModelsIdeasAreReadFromItsReplyAndItsPromptIsRedacted() {
        let reply = """
            Sure! ```json
            {"ideas":[{"title":"Cloud spotting","description":"Lie on the grass and name the shapes the clouds make.","time_minutes":15,"energy":"low","contexts":["outside"],"category":"nature"},
            {"title":"Cloud shapes","description":"Lie on the grass and name the shapes the clouds make together.","time_minutes":15,"energy":"low","contexts":["outdoor","indoor"],"category":"nature"},
            {"title":"x","description":"too short","time_minutes":15,"energy":"low","contexts":["outdoor"],"category":"nature"}]}
            ```
            """
        let ideas = ActivityIdeaPrompt.parse(reply)
        #expect(ideas.map(\.title) == ["Cloud shapes"])
        #expect(ideas.first?.contexts == ["indoor", "outdoor"])
        #expect(ActivityIdeaPrompt.parse("no json here").isEmpty)
        let request = ActivityIdeasRequest(time: 15, energy: "low", context: "outdoor", ages: [3, 6], prompt: "call me on 020 7946 0958 or mail a@b.co")
        let prompt = ActivityIdeaPrompt.prompt(for: request, redactor: PIIRedactor())
        #expect(prompt.contains("[phone]") && prompt.contains("[email]") && !prompt.contains("7946") && !prompt.contains("a@b.co"))
        #expect(prompt.contains("Children's ages: 3, 6."))
    }

    @Test func ideasFitTheTagsAndEveryAge() {
        let request = ActivityIdeasRequest(time: 15, energy: "low", context: "indoor", ages: [2, 9], prompt: nil)
        var content = Self.rows[0].content
        #expect(request.fits(content))
        content.minAge = 3
        #expect(!request.fits(content))
        #expect(!request.fits(Self.rows[5].content))
        #expect(request.searchText(redactor: PIIRedactor()) == "low energy, indoor, 15 minutes")
        let asked = ActivityIdeasRequest(time: nil, energy: nil, context: nil, ages: nil, prompt: "ring 020 7946 0958")
        #expect(asked.searchText(redactor: PIIRedactor()) == "ring [phone]")
    }

    @Test func gzipIsDeterministicAndReadable() throws {
        let text = Data(String(repeating: "a family activity, ", count: 200).utf8)
        let once = try Gzip.compress(text)
        #expect(once == (try Gzip.compress(text)))
        #expect(once.prefix(2) == Data([0x1f, 0x8b]))
        #expect(once.count < text.count / 10)
        #expect(try Gzip.compress(Data()).prefix(2) == Data([0x1f, 0x8b]))
    }
}
