import Foundation
@testable import HearthAssist
import HearthDomain
import HearthEvents
import Testing

@Suite struct ActivitySubmissionScreenTests {
    static let screen = ActivitySubmissionScreen(policy: SafetyPolicyTests.policy)

    static func content(_ title: String, _ description: String) -> ActivityContent {
        ActivityContent(
            title: title, description: description, timeMinutes: 5, energy: "low", contexts: ["indoor"], category: "play", minAge: 3, maxAge: 99,
            repeatability: "weekly")
    }

    @Test(arguments: [
        ("Candle stories", "Let the kids light the candles themselves and tell a story by candlelight.", ActivityRefusalReason.unsafe),
        ("Breath game", "See who can hold their breath longest underwater in the bath.", .unsafe),
        ("Calm jar", "Shake the glitter jar together; the lavender oil in it cures anxiety in children.", .medical),
        ("Morning detox walk", "A brisk walk to detox the body before school.", .medical),
        ("Pen pals", "Write to us at family.fun@example.org and we will send a pen pal.", .pii),
        ("Call grandma", "Ring grandma on 07700 900123 every Sunday evening to say hello.", .pii),
        ("Craft box", "Get our craft box with promo code FAMILY20 for the best rainy days.", .spam),
        ("Nature hunt", "Print the sheet from www.naturehunts.example and go outside.", .spam),
        ("BEST GAME EVER", "THIS IS THE BEST GAME EVER PLAY IT NOW WITH EVERYONE", .spam),
        ("Kindness notes", "Leave kind notes, like my daughter Emma Jones does at Oakfield Primary every week.", .pii),
    ])
    func aSubmissionWithAProblemIsRefusedForIt(title: String, description: String, reason: ActivityRefusalReason) throws {
        let finding = try #require(Self.screen.screen(Self.content(title, description)))
        #expect(finding.reason == reason, "\(finding.ruleId)")
        #expect(!finding.note.isEmpty)
        #expect(!finding.note.contains(title))
    }

    /// The library is what families should be able to send: none of it may be refused, and few
    /// held for a person (what needs care: the knives of a cooking activity, a pond).
    @Test func noActivityOfTheLibraryIsRefusedAndFewAreHeld() throws {
        let library = try ActivityLibrary.bundled()
        #expect(library.entries.count >= 150)
        let findings = library.entries.compactMap { entry in Self.screen.screen(entry.content).map { (entry.id, $0) } }
        #expect(findings.filter { $0.1.reason != nil }.map { "\($0.0): \($0.1.ruleId)" } == [])
        #expect(findings.count <= library.entries.count / 10, "\(findings.map { "\($0.0): \($0.1.ruleId)" })")
    }

    @Test(arguments: [
        ("Whittling", "Carve spoons from green wood with a knife, sitting down, blade away from you."),
        ("Bonfire tales", "Tell stories round the bonfire once it has burned down to embers."),
        ("Pond dipping", "Use a net to see what lives in the pond, lying on the bank."),
    ])
    func aTopicThatNeedsCareIsHeldNotRefused(title: String, description: String) {
        let finding = Self.screen.screen(Self.content(title, description))
        #expect(finding != nil && finding?.reason == nil, "\(String(describing: finding))")
        #expect(ActivityModerationDecision.decide(finding: finding, nearest: nil, thresholds: .measured).decision == "held")
    }

    @Test func gibberishIsToldFromLongEnglishWords() {
        for word in ["asdfgh", "zxqv", "mmmph", "qwerty"] { #expect(ActivitySubmissionScreen.isUnpronounceable(word), "\(word)") }
        for word in ["birthday", "strengths", "nightstand", "catchphrase", "rhythm", "queen", "lengths"] {
            #expect(!ActivitySubmissionScreen.isUnpronounceable(word), "\(word)")
        }
    }

    @Test func theDecisionWeighsTheFindingThenTheNearestNeighbour() {
        let thresholds = ActivityModerationDecision.Thresholds(duplicateAt: 0.8, holdAt: 0.7)
        let finding = ActivitySubmissionScreen.Finding(reason: .spam, ruleId: "activities.spam", note: "no ads")
        let near = ActivityNeighbour(id: "act-x", title: "Gratitude round", similarity: 0.85, inFeed: true)
        #expect(ActivityModerationDecision.decide(finding: finding, nearest: near, thresholds: thresholds).reason == .spam)
        let duplicate = ActivityModerationDecision.decide(finding: nil, nearest: near, thresholds: thresholds)
        #expect(duplicate.decision == "rejected" && duplicate.reason == .duplicate)
        #expect(duplicate.note.contains("“Gratitude round”"))
        var close = near
        close.similarity = 0.75
        #expect(ActivityModerationDecision.decide(finding: nil, nearest: close, thresholds: thresholds).decision == "held")
        // A submission not yet in the feed is its author's: never named.
        close.inFeed = false
        close.title = "Secret words"
        #expect(!ActivityModerationDecision.decide(finding: nil, nearest: close, thresholds: thresholds).note.contains("Secret words"))
        close.similarity = 0.5
        #expect(ActivityModerationDecision.decide(finding: nil, nearest: close, thresholds: thresholds).decision == "approved")
        #expect(ActivityModerationDecision.decide(finding: nil, nearest: nil, thresholds: thresholds).decision == "approved")
    }
}
