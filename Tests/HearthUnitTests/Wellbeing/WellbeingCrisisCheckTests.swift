import HearthAssist
import Testing

/// The words of danger in a check-in, read by the safety policy — and the hard-day words that
/// must not be mistaken for them.
@Suite struct WellbeingCrisisCheckTests {
    static let check: WellbeingCrisisCheck = {
        do { return WellbeingCrisisCheck(policy: try SafetyPolicy.load()) } catch { fatalError("bundled policy does not load: \(error)") }
    }()

    @Test(arguments: [
        "I want to hurt myself", "i'm thinking about hurting... no: I'm thinking about cutting myself? no — I am tempted to cut myself",
        "planning to kill myself this weekend", "I just want to end it all", "there is no reason to live", "everyone would be better off without me",
        "I don't want to wake up tomorrow", "I can't go on anymore", "going to take all my pills", "I feel suicidal", "thoughts of self-harm again",
        "I WANT TO HURT MYSELF", "urges to punish myself", "he stopped breathing",
    ])
    func dangerIsACrisis(_ note: String) {
        #expect(Self.check.isCrisis([note]), "\(note)")
    }

    @Test(arguments: [
        "this deadline is killing me", "I hurt myself at football", "I could kill for a coffee", "I want to end this habit", "I'm dead tired",
        "ended my streak, feel bad", "I want to live better", "took my vitamins", "how much ibuprofen is too much", "I feel like giving up on this diet",
        "my back hurts", "",
    ])
    func aHardDayIsNotACrisis(_ note: String) {
        #expect(!Self.check.isCrisis([note]), "\(note)")
    }

    @Test func anyTextOfTheCheckInCounts() {
        #expect(Self.check.isCrisis([nil, "bored", "I want to hurt myself"]))
        #expect(!Self.check.isCrisis([nil, nil]))
        #expect(Self.check.message.contains("988"))
    }
}
