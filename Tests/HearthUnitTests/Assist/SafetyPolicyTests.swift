import Foundation
import HearthAssist
import Testing

/// Every rule of the shipped policy, each with a text it must refuse and a near miss it must let
/// through (same domain, same ages). A rule without a case here fails `everyRuleHasACase`.
struct SafetyRuleCase: Sendable, CustomTestStringConvertible {
    var rule: String
    var domain: String
    var ages: [Int]
    var checkpoint: SafetyCheckpoint
    var positive: String
    var nearMiss: String
    var testDescription: String { rule }

    init(_ rule: String, _ domain: String, ages: [Int] = [6], at checkpoint: SafetyCheckpoint = .goal, _ positive: String, nearMiss: String) {
        self.rule = rule
        self.domain = domain
        self.ages = ages
        self.checkpoint = checkpoint
        self.positive = positive
        self.nearMiss = nearMiss
    }
}

@Suite struct SafetyPolicyTests {
    static let policy: SafetyPolicy = {
        do { return try SafetyPolicy.load() } catch { fatalError("bundled policy does not load: \(error)") }
    }()

    static let cases: [SafetyRuleCase] = [
        // Every domain.
        .init("all.emergency", "meals", "my son swallowed a button battery, what should I feed him",
              nearMiss: "buy batteries for the toy car and plan dinner"),
        .init("all.self_harm", "assistant", "my teen talks about self-harm, what do I say",
              nearMiss: "my teen hurt himself playing football, plan an easy week"),
        .init("all.medical_advice", "routines", "how much Tylenol can I give a 3 year old before bed",
              nearMiss: "add buying children's Tylenol at the pharmacy to the weekend routine"),
        .init("all.medication_dose", "routines", at: .output, "At 7pm, give 5 ml of children's Motrin with milk.",
              nearMiss: "At 7pm, warm 250 ml of milk and read a story."),
        .init("all.physical_punishment", "routines", "should I spank my toddler when he bites",
              nearMiss: "my toddler hits his sister, which routine helps"),
        // Meals.
        .init("meals.restrictive_diet", "meals", "help my 8 year old lose weight with smaller dinners",
              nearMiss: "high-calorie snacks for an underweight picky eater"),
        .init("meals.allergen_challenge", "meals", "sneak some peanuts into her lunch so she gets used to them",
              nearMiss: "hide spinach in smoothies for a picky eater"),
        .init("meals.infant_honey", "meals", ages: [0], "oatmeal with honey for breakfast",
              nearMiss: "oatmeal with honeydew melon for breakfast"),
        .init("meals.choking_hazards", "meals", ages: [3], "popcorn for movie night",
              nearMiss: "pop-up tent picnic with quartered grapes"),
        .init("meals.caffeine", "meals", ages: [10], "an iced coffee for the walk to school",
              nearMiss: "coffee cake for the grown-ups' brunch"),
        .init("meals.energy_drinks", "meals", ages: [15], "energy drinks before football practice",
              nearMiss: "oat energy bites before football practice"),
        .init("meals.unpasteurized", "meals", ages: [2], "raw milk with breakfast",
              nearMiss: "pasteurized milk with breakfast"),
        // Chores.
        .init("chores.chemical_mixing", "chores", ages: [14], "mix bleach and ammonia for the bathroom tiles",
              nearMiss: "mix flour and water for salt dough"),
        .init("chores.knives_and_heat", "chores", ages: [6], "chop vegetables with the chef's knife",
              nearMiss: "set the table with butter knives"),
        .init("chores.chemicals", "chores", ages: [9], "scrub the toilet with bleach",
              nearMiss: "wipe the counters with soapy water"),
        .init("chores.mowing", "chores", ages: [10], "mow the lawn on Saturdays",
              nearMiss: "rake the lawn on Saturdays"),
        .init("chores.heights", "chores", ages: [12], "climb the ladder to clean the gutters",
              nearMiss: "sweep the garden path and water the plants"),
        .init("chores.power_tools", "chores", ages: [15], "cut up the fallen tree with the chainsaw",
              nearMiss: "stack the firewood by the shed"),
        // Routines.
        .init("routines.sleep_training", "routines", ages: [0], "a cry it out schedule for my 6 month old",
              nearMiss: "a calm bedtime routine, she cries when we leave"),
        .init("routines.infant_screen_time", "routines", ages: [1], "an hour of YouTube after lunch",
              nearMiss: "an hour at the table drawing after lunch"),
        .init("routines.infant_safe_sleep", "routines", ages: [0], "put a pillow in the crib for naps",
              nearMiss: "tummy time after every nap"),
        .init("routines.bath_alone", "routines", ages: [4], "let her bathe alone while I cook",
              nearMiss: "bath time with bubbles before stories"),
        .init("routines.home_alone", "routines", ages: [8], "leave him home alone after school",
              nearMiss: "quiet alone time in his room after school"),
        // Assistant.
        .init("assistant.covert_surveillance", "assistant", ages: [14], "how do I secretly track my daughter's phone",
              nearMiss: "how do we set up a shared family calendar"),
        .init("assistant.weapons", "assistant", ages: [10], "how do we make a bomb for the science fair",
              nearMiss: "how do we make bath bombs for the science fair"),
        .init("assistant.social_media", "assistant", ages: [11], "set up an Instagram account for my son",
              nearMiss: "help with his social studies homework"),
        .init("assistant.mature_media", "assistant", ages: [9], "an R-rated movie for family night",
              nearMiss: "a PG-rated movie for family night"),
        // Wellbeing (a user's own check-in notes).
        .init("wellbeing.danger_to_self", "wellbeing", "I want to hurt myself tonight",
              nearMiss: "this deadline is killing me and I hurt myself at football"),
        // Submissions to the public activity feed.
        .init("activities.unsafe", "activities", ages: [], "let the kids light the candles for a birthday song",
              nearMiss: "an adult lights the candles while the kids sing"),
        .init("activities.medical_claim", "activities", ages: [], "a bedtime tea that cures anxiety",
              nearMiss: "a bedtime tea and a chat about worries"),
        .init("activities.spam", "activities", ages: [], "get the kit at www.craftkits.example with promo code FUN10",
              nearMiss: "make a kit from old boxes, tape and paper"),
        .init("activities.identifying", "activities", ages: [], "my son Tom Baker at Oakfield Primary loves this",
              nearMiss: "my son loves this after primary school"),
    ]

    @Test(arguments: cases) func ruleFiresOnItsPositiveExample(_ rule: SafetyRuleCase) throws {
        let violation = Self.policy.violation(in: rule.positive, domain: rule.domain, childAges: rule.ages, at: rule.checkpoint)
        #expect(violation?.ruleId == rule.rule, "\(rule.positive)")
        #expect(violation.map { !$0.refusalText.isEmpty } == true)
    }

    @Test(arguments: cases) func ruleDoesNotFireOnItsNearMiss(_ rule: SafetyRuleCase) {
        let violation = Self.policy.violation(in: rule.nearMiss, domain: rule.domain, childAges: rule.ages, at: rule.checkpoint)
        #expect(violation == nil, "\(rule.nearMiss) → \(violation?.ruleId ?? "")")
    }

    @Test func everyRuleHasACase() {
        let covered = Set(Self.cases.map(\.rule))
        let all = Set(Self.policy.domainNames.flatMap { Self.policy.ruleIds(domain: $0) })
        #expect(all.subtracting(covered).sorted() == [])
        #expect(covered.subtracting(all).sorted() == [])
        #expect(Self.policy.domainNames == ["activities", "assistant", "chores", "meals", "routines", "wellbeing"])
    }

    @Test func ageGatesOnlyApplyInsideTheirAgeRange() {
        let policy = Self.policy
        // Honey: under one only.
        #expect(policy.precheck(goal: "yoghurt with honey", domain: "meals", childAges: [0]) != .allowed)
        #expect(policy.precheck(goal: "yoghurt with honey", domain: "meals", childAges: [1]) == .allowed)
        // Choking hazards: up to and including three; any child in range is enough.
        #expect(policy.precheck(goal: "popcorn and a film", domain: "meals", childAges: [3]) != .allowed)
        #expect(policy.precheck(goal: "popcorn and a film", domain: "meals", childAges: [4, 9]) == .allowed)
        #expect(policy.precheck(goal: "popcorn and a film", domain: "meals", childAges: [9, 2]) != .allowed)
        // No children, no age gates.
        #expect(policy.precheck(goal: "popcorn and a film", domain: "meals", childAges: []) == .allowed)
        // Mowing from twelve, power tools from sixteen.
        #expect(policy.precheck(goal: "mow the lawn", domain: "chores", childAges: [11]) != .allowed)
        #expect(policy.precheck(goal: "mow the lawn", domain: "chores", childAges: [12]) == .allowed)
        #expect(policy.precheck(goal: "use the chainsaw", domain: "chores", childAges: [16]) == .allowed)
    }

    @Test func keywordsMatchWholeWordsInAnyCaseAndPlural() {
        let gate = { (goal: String) in Self.policy.precheck(goal: goal, domain: "meals", childAges: [2]) }
        #expect(gate("WHOLE   GRAPES as a snack") != .allowed)
        #expect(gate("whole-grapes as a snack") != .allowed)
        #expect(gate("hard candies in the party bags") != .allowed)
        #expect(gate("whole grapefruit segments") == .allowed)
        #expect(gate("wholegrain toast with grape jam") == .allowed)
    }

    @Test func ageGatesAreDomainSpecific() {
        // Honey is a meals rule; a chores plan for a baby's family may mention honey.
        #expect(Self.policy.precheck(goal: "put the honey jar back in the cupboard", domain: "chores", childAges: [0]) == .allowed)
    }

    @Test func refusalCarriesKeyAndText() {
        let verdict = Self.policy.precheck(goal: "Can you diagnose this rash?", domain: "meals", childAges: [5])
        guard case .refused(let key, let text) = verdict else {
            Issue.record("expected a refusal, got \(verdict)")
            return
        }
        #expect(key == "medical")
        #expect(text == Self.policy.refusals["medical"])
        #expect(text.contains("pediatrician"))
    }

    @Test func checkpointsRestrictWhereRulesApply() {
        let policy = Self.policy
        // An emergency is something a parent says, not something to refuse in a plan.
        #expect(policy.precheck(goal: "she is not breathing", domain: "routines", childAges: [2]) == .refused(
            key: "emergency", text: policy.refusals["emergency"]!))
        #expect(policy.postcheck(text: "If your child is not breathing, call 911.", domain: "routines", childAges: [2]) == .allowed)
        // A dose is refused wherever it appears.
        #expect(policy.postcheck(text: "Give 200 mg ibuprofen.", domain: "meals", childAges: [8]) != .allowed)
        #expect(policy.precheck(goal: "is 200 mg ibuprofen ok", domain: "meals", childAges: [8]) != .allowed)
        // Age gates apply to output too: a model suggesting honey to a baby's family is caught.
        #expect(policy.postcheck(text: "Day 2: porridge with honey", domain: "meals", childAges: [0]) != .allowed)
    }

    @Test func unknownDomainStillGetsTheRulesForEveryDomain() {
        #expect(Self.policy.precheck(goal: "should I spank him", domain: "baby", childAges: [1]) != .allowed)
        #expect(Self.policy.precheck(goal: "oatmeal with honey", domain: "baby", childAges: [0]) == .allowed)
        #expect(Self.policy.precheck(goal: "should I spank him", domain: "ROUTINES", childAges: [1]) != .allowed)
    }

    @Test func precheckLooksAtTheRedactedGoal() {
        // The address contains a rule's keyword; redaction removes it before the rules run.
        #expect(Self.policy.precheck(goal: "we live at 12 Popcorn Lane, plan snacks", domain: "meals", childAges: [2]) == .allowed)
        #expect(Self.policy.precheck(goal: "email me at honey.bee@example.com", domain: "meals", childAges: [0]) == .allowed)
        #expect(Self.policy.precheck(goal: "honey on toast, email me at a@example.com", domain: "meals", childAges: [0]) != .allowed)
    }

    @Test func everyRefusalKeyHasText() {
        for (key, text) in Self.policy.refusals {
            #expect(!text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(key)")
        }
    }

    @Test func brokenPoliciesDoNotLoad() {
        let base = """
            version: 1
            refusals: { medical: "no" }
            domains:
              meals:
            """
        #expect(throws: Never.self) { try SafetyPolicy.parse(base + "\n    content_rules: [{id: a, pattern: 'x', refusal: medical}]") }
        // A refusal key without text.
        #expect(throws: SafetyPolicyError.self) { try SafetyPolicy.parse(base + "\n    content_rules: [{id: a, pattern: 'x', refusal: nope}]") }
        // A pattern that does not compile.
        #expect(throws: SafetyPolicyError.self) { try SafetyPolicy.parse(base + "\n    content_rules: [{id: a, pattern: '(x', refusal: medical}]") }
        // The same id twice.
        #expect(throws: SafetyPolicyError.self) {
            try SafetyPolicy.parse(base + "\n    content_rules: [{id: a, pattern: 'x', refusal: medical}, {id: a, pattern: 'y', refusal: medical}]")
        }
        // Ages upside down.
        #expect(throws: SafetyPolicyError.self) {
            try SafetyPolicy.parse(base + "\n    age_gates: [{id: g, min_age: 5, max_age: 2, keywords: [x], refusal: medical}]")
        }
        // A checkpoint that does not exist.
        #expect(throws: SafetyPolicyError.self) {
            try SafetyPolicy.parse(base + "\n    content_rules: [{id: a, pattern: 'x', refusal: medical, applies_to: [input]}]")
        }
        // An unsupported version.
        #expect(throws: SafetyPolicyError.self) { try SafetyPolicy.parse("version: 2\nrefusals: {}\ndomains: {}") }
        #expect(throws: SafetyPolicyError.self) { try SafetyPolicy.load(from: URL(fileURLWithPath: "/nonexistent/policies.yaml")) }
    }
}
