import HearthDomain
import Testing

/// Sentences here are written for the tests, not taken from the evaluation set, so the rules are
/// checked on wording they were not shaped on.
@Suite struct ProfileFactExtractorTests {
    let extractor: ProfileFactExtractor
    let members = ["Ines", "Marek", "Tove", "Bram"]

    init() throws { extractor = try ProfileFactExtractor.bundled() }

    func facts(_ text: String, speaker: String = "Marek") -> [String] {
        extractor.extract(text: text, speaker: speaker, members: members)
            .map { "\($0.kind.rawValue) \($0.subject) \($0.value) \($0.polarity.rawValue)" }.sorted()
    }

    @Test func readsAnAllergyWithItsSpanAndExpandsNuts() throws {
        let extracted = extractor.extract(text: "Tove is allergic to nuts.", speaker: "Ines", members: members)
        #expect(extracted.map(\.value).sorted() == ["peanut", "tree_nut"])
        #expect(extracted.allSatisfy { $0.subject == "Tove" && $0.kind == .allergy && $0.polarity == .add })
        #expect(extracted.first?.quotedSpan == "Tove is allergic to nuts")
        #expect((extracted.first?.confidence ?? 0) >= 0.8)
    }

    /// Someone named who is not a member yet: safety and health facts are kept under the name as
    /// written (to be linked later); tastes and plans are not, and capitalised non-names never count.
    @Test func safetyFactsAboutSomeoneNotYetInTheHouseholdAreKeptUnderTheirName() {
        #expect(facts("Sam is allergic to sesame") == ["allergy Sam sesame add"])
        #expect(facts("Sam's coeliac, and he broke his wrist last week") == ["injury Sam broken wrist add", "intolerance Sam gluten add", "intolerance Sam wheat add"])
        #expect(facts("Noor is vegetarian now") == ["diet Noor vegetarian add"])
        #expect(facts("Sam hates broccoli").isEmpty, "a taste of someone unknown is not kept")
        #expect(facts("Sam has swimming on Thursdays at 5pm").isEmpty)
        #expect(facts("Swimming is on Thursday").isEmpty)
        #expect(facts("Dinner is dairy free tonight").isEmpty)
        #expect(facts("Tomorrow is nut free day at school").isEmpty)
        #expect(facts("My friend Sam is allergic to sesame").isEmpty, "an outsider stays out")
        #expect(facts("Sam's mum is allergic to nuts").isEmpty, "Sam's mum is not Sam")
        #expect(facts("Is Sam allergic to sesame?").isEmpty)
        #expect(facts("Tove is allergic to sesame") == ["allergy Tove sesame add"], "a member is still a member")
    }

    @Test func negationsBecomeRemovals() {
        #expect(facts("Bram isn't allergic to sesame any more") == ["allergy Bram sesame remove"])
        #expect(facts("Tove is no longer vegan") == ["diet Tove vegan remove"])
        #expect(facts("I used to be pescatarian") == ["diet Marek pescatarian remove"])
        #expect(facts("Ines outgrew her egg allergy") == ["allergy Ines egg remove"])
    }

    @Test func negativesWithoutAValueGiveNothing() {
        #expect(facts("Bram is not allergic to anything") == [])
        #expect(facts("None of us has any allergies") == [])
    }

    @Test func questionsHypotheticalsAndOutsidersGiveNothing() {
        #expect(facts("Is Tove allergic to soy?") == [])
        #expect(facts("What if Bram were allergic to fish?") == [])
        #expect(facts("I might be allergic to kiwi, the test is next week") == [])
        #expect(facts("My neighbour is allergic to celery") == [])
    }

    @Test func firstPersonIsTheSpeakerAndNamesSplitStatements() {
        #expect(facts("I can't stand anchovies and Tove loves risotto") == [
            "dislike Marek anchovies add", "preference Tove risotto add",
        ])
        #expect(facts("Ines and Bram are both intolerant to lactose") == [
            "intolerance Bram milk add", "intolerance Ines milk add",
        ])
    }

    @Test func tastesPhrasedNegativelyAreDislikesNotRemovals() {
        #expect(facts("Bram isn't keen on courgette") == ["dislike Bram zucchini add"])
        #expect(facts("Ines doesn't like olives anymore") == ["preference Ines olives remove"])
    }

    @Test func injuriesGoalsAndSchedules() {
        #expect(facts("Tove sprained her wrist at netball") == ["injury Tove sprained wrist add"])
        #expect(facts("Bram wants to swim a mile this year") == ["goal Bram swim a mile add"])
        #expect(facts("Ines has violin lessons on Thursdays at 6pm") == ["schedule Ines violin lessons thursday 18:00 add"])
    }

    @Test func clockTimes() {
        #expect(ProfileFactExtractor.clockTimeForTesting(["at", "7:30pm"]) == "19:30")
        #expect(ProfileFactExtractor.clockTimeForTesting(["at", "4"]) == "16:00")
        #expect(ProfileFactExtractor.clockTimeForTesting(["at", "10", "am"]) == "10:00")
    }

    @Test func evaluationSetMeetsItsFloor() throws {
        let result = ExtractionEvaluation.run(extractor, on: try ExtractionEvaluation.labelledMessages())
        #expect(result.messages >= 100)
        #expect(result.overall.precision >= 0.85)
        #expect(result.overall.recall >= 0.85)
        #expect(result.removals.recall >= 0.75)
    }
}
