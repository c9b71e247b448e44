import Foundation
import HearthDomain
import HearthEvents
import Testing

@Suite struct TrackingLogInputTests {
    typealias Fields = TrackingLogInput.Fields

    static let london = TimeZone(identifier: "Europe/London")!
    static let now = instant("2026-03-01T12:00:00Z")
    static let birth = instant("2025-06-01T00:00:00Z")
    static let context = TrackingLogInput.Context(now: now, birthdate: birth, timeZone: london)

    static func instant(_ text: String) -> Date { Timestamp.parse(text)! }

    static func parse(_ kind: TrackingLogKind, _ fields: Fields) throws -> TrackingLogInput {
        try TrackingLogInput.parse(kind, fields, context: context)
    }

    static func detail<D: TrackingLogDetail>(_ kind: TrackingLogKind, _ fields: Fields, as type: D.Type) throws -> D {
        try #require(try parse(kind, fields).detail as? D)
    }

    /// The field the refusal names, or nil when the body is accepted.
    static func refusal(_ kind: TrackingLogKind, _ fields: Fields) -> String? {
        do {
            _ = try TrackingLogInput.parse(kind, fields, context: context)
            return nil
        } catch {
            return error.field
        }
    }

    static func bottle(_ amount: Double, _ unit: String) -> Fields {
        ["method": .string("bottle"), "amount": .number(amount), "unit": .string(unit)]
    }

    static func text(_ length: Int) -> String { String(repeating: "a", count: length) }

    /// The stored detail as the read model keeps it (JSON with the log's time) is a valid body that
    /// parses back to the same detail and time.
    static func expectRoundTrip<D: TrackingLogDetail>(_ kind: TrackingLogKind, _ fields: Fields, as type: D.Type) throws {
        let first = try parse(kind, fields)
        let detail = try #require(first.detail as? D)
        let data = try JSONEncoder.hearth().encode(detail)
        var stored = try JSONDecoder().decode([String: JSONValue].self, from: data)
        stored["at"] = .string(Timestamp.format(first.at))
        let again = try parse(kind, stored)
        #expect(again.detail as? D == detail)
        #expect(again.at == first.at)
    }

    // MARK: bottle feeds

    @Test func aBottleInMillilitresKeepsItsAmount() throws {
        var fields = Self.bottle(120, "ml")
        fields["milk"] = .string("Formula")
        let feed = try Self.detail(.feed, fields, as: FeedDetail.self)
        #expect(feed == FeedDetail(method: "bottle", amountMl: 120, milk: "formula"))
    }

    @Test func aBottleInOuncesIsConvertedToMillilitresRoundedToATenth() throws {
        #expect(try Self.detail(.feed, Self.bottle(4, "oz"), as: FeedDetail.self).amountMl == 118.3)
        #expect(try Self.detail(.feed, Self.bottle(4, "floz"), as: FeedDetail.self).amountMl == 118.3)
    }

    @Test func aCanonicalAmountInMillilitresIsAcceptedAsIs() throws {
        let feed = try Self.detail(.feed, ["method": .string("bottle"), "amount_ml": .number(95.5)], as: FeedDetail.self)
        #expect(feed.amountMl == 95.5)
    }

    @Test func aBottleOfNothingOrLessIsRefusedNamingAmount() {
        #expect(Self.refusal(.feed, Self.bottle(0, "ml")) == "amount")
        #expect(Self.refusal(.feed, Self.bottle(-30, "ml")) == "amount")
    }

    @Test func aBottleMoreThanABabyDrinksIsRefusedNamingAmount() {
        #expect(Self.refusal(.feed, Self.bottle(600, "ml")) == "amount")
        // Five litres.
        #expect(Self.refusal(.feed, Self.bottle(5000, "ml")) == "amount")
        // Twenty ounces is 591.5 ml.
        #expect(Self.refusal(.feed, Self.bottle(20, "oz")) == "amount")
        // An amount in words is not a number.
        #expect(Self.refusal(.feed, ["method": .string("bottle"), "amount": .string("5 litres"), "unit": .string("ml")]) == "amount")
    }

    @Test func anUnknownUnitIsRefusedNamingUnit() {
        #expect(Self.refusal(.feed, Self.bottle(2, "cups")) == "unit")
        #expect(Self.refusal(.feed, Self.bottle(5, "litres")) == "unit")
    }

    @Test func anAmountWithoutAUnitIsRefusedNamingUnit() {
        #expect(Self.refusal(.feed, ["method": .string("bottle"), "amount": .number(120)]) == "unit")
    }

    @Test func aBottleWithoutAnyAmountIsRefusedNamingAmount() {
        #expect(Self.refusal(.feed, ["method": .string("bottle")]) == "amount")
    }

    @Test func aFeedWithoutAMethodIsRefusedNamingMethod() {
        #expect(Self.refusal(.feed, ["amount": .number(120), "unit": .string("ml")]) == "method")
        #expect(Self.refusal(.feed, ["method": .string("spoon")]) == "method")
    }

    @Test func aMilkOutsideTheVocabularyIsRefusedNamingMilk() {
        var fields = Self.bottle(120, "ml")
        fields["milk"] = .string("cow")
        #expect(Self.refusal(.feed, fields) == "milk")
    }

    // MARK: nursing and solids

    @Test func nursingNeedsASide() throws {
        #expect(Self.refusal(.feed, ["method": .string("nursing")]) == "side")
        #expect(Self.refusal(.feed, ["method": .string("nursing"), "side": .string("middle")]) == "side")
        let feed = try Self.detail(.feed, ["method": .string("nursing"), "side": .string("Left")], as: FeedDetail.self)
        #expect(feed == FeedDetail(method: "nursing", side: "left"))
    }

    @Test func nursingThatEndsBeforeItStartsIsRefusedNamingEndedAt() {
        let fields: Fields = [
            "method": .string("nursing"), "side": .string("left"),
            "at": .string("2026-03-01T11:00:00Z"), "ended_at": .string("2026-03-01T10:50:00Z"),
        ]
        #expect(Self.refusal(.feed, fields) == "ended_at")
        var same = fields
        same["ended_at"] = .string("2026-03-01T11:00:00Z")
        #expect(Self.refusal(.feed, same) == "ended_at")
    }

    @Test func nursingDurationIsWorkedOutFromItsTimes() throws {
        let fields: Fields = [
            "method": .string("nursing"), "side": .string("both"),
            "at": .string("2026-03-01T11:00:00Z"), "ended_at": .string("2026-03-01T11:25:30Z"),
        ]
        let input = try Self.parse(.feed, fields)
        #expect(input.at == Self.instant("2026-03-01T11:00:00Z"))
        let feed = try #require(input.detail as? FeedDetail)
        #expect(feed.endedAt == Self.instant("2026-03-01T11:25:30Z"))
        #expect(feed.durationMinutes == 25.5)
    }

    @Test func nursingForFourHoursIsRefused() {
        let timed: Fields = [
            "method": .string("nursing"), "side": .string("right"),
            "at": .string("2026-03-01T07:00:00Z"), "ended_at": .string("2026-03-01T11:00:00Z"),
        ]
        #expect(Self.refusal(.feed, timed) == "ended_at")
        let stated: Fields = ["method": .string("nursing"), "side": .string("right"), "duration_minutes": .number(240)]
        #expect(Self.refusal(.feed, stated) == "duration_minutes")
    }

    @Test func solidsNeedAtLeastOneFood() throws {
        #expect(Self.refusal(.feed, ["method": .string("solids")]) == "foods")
        #expect(Self.refusal(.feed, ["method": .string("solids"), "foods": .array([])]) == "foods")
        let feed = try Self.detail(
            .feed, ["method": .string("solids"), "foods": .array([.string("banana"), .string(" banana "), .string("oats")])],
            as: FeedDetail.self)
        #expect(feed == FeedDetail(method: "solids", foods: ["banana", "oats"]))
    }

    // MARK: sleep

    @Test func aSleepStartingInTheAfternoonIsANap() throws {
        let sleep = try Self.detail(.sleep, ["at": .string("2026-02-28T14:00:00Z")], as: SleepDetail.self)
        #expect(sleep.period == "nap")
        #expect(sleep.periodChosen == false)
    }

    @Test func aSleepStartingInTheEveningIsNight() throws {
        let sleep = try Self.detail(.sleep, ["at": .string("2026-02-28T21:00:00Z")], as: SleepDetail.self)
        #expect(sleep.period == "night")
        #expect(sleep.periodChosen == false)
    }

    @Test func thePeriodFollowsTheLocalHourNotUTC() throws {
        // 18:30 UTC in July is 19:30 in London (BST): night.
        let summer = try Self.detail(.sleep, ["at": .string("2025-07-15T18:30:00Z")], as: SleepDetail.self)
        #expect(summer.period == "night")
        // 06:30 UTC in July is 07:30 in London: a nap.
        let morning = try Self.detail(.sleep, ["at": .string("2025-07-15T06:30:00Z")], as: SleepDetail.self)
        #expect(morning.period == "nap")
    }

    @Test func aChosenPeriodOverridesTheDerivedOne() throws {
        let sleep = try Self.detail(.sleep, ["at": .string("2026-02-28T14:00:00Z"), "period": .string("night")], as: SleepDetail.self)
        #expect(sleep == SleepDetail(endedAt: nil, period: "night", periodChosen: true))
        #expect(Self.refusal(.sleep, ["period": .string("siesta")]) == "period")
    }

    @Test func aSleepThatEndsBeforeItStartsIsRefused() {
        #expect(Self.refusal(.sleep, ["at": .string("2026-03-01T10:00:00Z"), "ended_at": .string("2026-03-01T09:00:00Z")]) == "ended_at")
    }

    @Test func aSleepOfThirtyHoursIsRefused() {
        #expect(Self.refusal(.sleep, ["at": .string("2026-02-27T06:00:00Z"), "ended_at": .string("2026-02-28T12:00:00Z")]) == "ended_at")
    }

    @Test func anOngoingSleepHasNoEnd() throws {
        let sleep = try Self.detail(.sleep, ["at": .string("2026-03-01T11:30:00Z")], as: SleepDetail.self)
        #expect(sleep.endedAt == nil)
        let ended = try Self.detail(
            .sleep, ["at": .string("2026-03-01T09:30:00Z"), "ended_at": .string("2026-03-01T11:00:00Z")], as: SleepDetail.self)
        #expect(ended == SleepDetail(endedAt: Self.instant("2026-03-01T11:00:00Z"), period: "nap", periodChosen: false))
    }

    // MARK: the log's time

    @Test func aTimeMoreThanFiveMinutesAheadIsRefusedNamingAt() {
        #expect(Self.refusal(.diaper, ["contents": .string("wet"), "at": .string("2026-03-01T12:06:00Z")]) == "at")
        #expect(Self.refusal(.diaper, ["contents": .string("wet"), "at": .string("2026-03-02T12:00:00Z")]) == "at")
    }

    @Test func aTimeFourMinutesAheadIsAcceptedForClockSkew() throws {
        let input = try Self.parse(.diaper, ["contents": .string("wet"), "at": .string("2026-03-01T12:04:00Z")])
        #expect(input.at == Self.instant("2026-03-01T12:04:00Z"))
    }

    @Test func anOffsetTimeIsTheSameInstant() throws {
        let input = try Self.parse(.diaper, ["contents": .string("wet"), "at": .string("2026-03-01T13:15:00+02:00")])
        #expect(input.at == Self.instant("2026-03-01T11:15:00Z"))
    }

    @Test func aTimeBeforeTheChildWasBornIsRefused() {
        #expect(Self.refusal(.diaper, ["contents": .string("wet"), "at": .string("2025-05-01T00:00:00Z")]) == "at")
    }

    @Test func aTimeThatIsNotRFC3339IsRefusedNamingAt() {
        for bad in ["yesterday", "2026-03-01 11:00", "01/03/2026 11:00", "2026-03-01", "2026-02-30T10:00:00Z"] {
            #expect(Self.refusal(.diaper, ["contents": .string("wet"), "at": .string(bad)]) == "at", "\(bad)")
        }
        #expect(Self.refusal(.diaper, ["contents": .string("wet"), "at": .number(1_772_366_400)]) == "at")
    }

    @Test func aMissingTimeIsNow() throws {
        #expect(try Self.parse(.diaper, ["contents": .string("wet")]).at == Self.now)
        #expect(try Self.parse(.diaper, ["contents": .string("wet"), "at": .null]).at == Self.now)
    }

    // MARK: diapers

    @Test func diaperContentsAreWetDirtyOrBoth() throws {
        #expect(Self.refusal(.diaper, [:]) == "contents")
        #expect(Self.refusal(.diaper, ["contents": .string("damp")]) == "contents")
        let diaper = try Self.detail(.diaper, ["contents": .string("Both"), "consistency": .string("seedy")], as: DiaperDetail.self)
        #expect(diaper == DiaperDetail(contents: "both", consistency: "seedy"))
    }

    @Test func diaperColoursComeFromTheVocabulary() throws {
        #expect(Self.refusal(.diaper, ["contents": .string("dirty"), "colour": .string("blue")]) == "colour")
        #expect(Self.refusal(.diaper, ["contents": .string("dirty"), "consistency": .string("lumpy")]) == "consistency")
        let diaper = try Self.detail(.diaper, ["contents": .string("dirty"), "colour": .string("Green")], as: DiaperDetail.self)
        #expect(diaper.colour == "green")
    }

    // MARK: growth

    @Test func growthNeedsAtLeastOneMeasurement() {
        #expect(Self.refusal(.growth, [:]) == "weight")
        #expect(Self.refusal(.growth, ["notes": .string("clinic visit")]) == "weight")
    }

    @Test func poundsAreConvertedToKilograms() throws {
        let growth = try Self.detail(.growth, ["weight": .number(15), "weight_unit": .string("lb")], as: GrowthDetail.self)
        #expect(growth == GrowthDetail(weightKg: 6.804, lengthCm: nil, headCm: nil))
    }

    @Test func inchesAreConvertedToCentimetres() throws {
        let growth = try Self.detail(.growth, ["length": .number(20), "length_unit": .string("in")], as: GrowthDetail.self)
        #expect(growth.lengthCm == 50.8)
    }

    @Test func gramsAreConvertedToKilograms() throws {
        let growth = try Self.detail(.growth, ["weight": .number(4200), "weight_unit": .string("g")], as: GrowthDetail.self)
        #expect(growth.weightKg == 4.2)
    }

    @Test func anAbsurdWeightIsRefused() {
        #expect(Self.refusal(.growth, ["weight": .number(80), "weight_unit": .string("kg")]) == "weight")
        #expect(Self.refusal(.growth, ["weight": .number(100), "weight_unit": .string("g")]) == "weight")
    }

    @Test func anAbsurdHeadCircumferenceIsRefused() {
        #expect(Self.refusal(.growth, ["head": .number(70), "head_unit": .string("cm")]) == "head")
        #expect(Self.refusal(.growth, ["head_cm": .number(70)]) == "head")
    }

    @Test func aGrowthUnitOutsideTheListIsRefusedNamingItsUnitField() {
        #expect(Self.refusal(.growth, ["weight": .number(7), "weight_unit": .string("stone")]) == "weight_unit")
        #expect(Self.refusal(.growth, ["length": .number(60)]) == "length_unit")
    }

    @Test func aCanonicalWeightInKilogramsIsAcceptedAsIs() throws {
        let growth = try Self.detail(.growth, ["weight_kg": .number(7.25), "head_cm": .number(42.1)], as: GrowthDetail.self)
        #expect(growth == GrowthDetail(weightKg: 7.25, lengthCm: nil, headCm: 42.1))
    }

    // MARK: medication

    static let calpol: Fields = ["name": .string("Calpol"), "dose": .number(2.5), "dose_unit": .string("ml"), "interval_hours": .number(4)]

    @Test func aMedicationDoseIsKeptWithItsUnitAndInterval() throws {
        let medication = try Self.detail(.medication, Self.calpol, as: MedicationDetail.self)
        #expect(medication == MedicationDetail(name: "Calpol", dose: 2.5, doseUnit: "ml", intervalHours: 4))
    }

    @Test func aMedicationNeedsANameADoseAndAUnit() {
        for field in ["name", "dose", "dose_unit"] {
            var fields = Self.calpol
            fields.removeValue(forKey: field)
            #expect(Self.refusal(.medication, fields) == field)
        }
    }

    @Test func aDoseOfNothingIsRefused() {
        var fields = Self.calpol
        fields["dose"] = .number(0)
        #expect(Self.refusal(.medication, fields) == "dose")
    }

    @Test func anIntervalOfOneHundredHoursIsRefused() {
        var fields = Self.calpol
        fields["interval_hours"] = .number(100)
        #expect(Self.refusal(.medication, fields) == "interval_hours")
    }

    @Test func aDoseUnitOutsideTheListIsRefused() {
        var fields = Self.calpol
        fields["dose_unit"] = .string("spoonful")
        #expect(Self.refusal(.medication, fields) == "dose_unit")
    }

    // MARK: foods tried

    @Test func aFoodWithoutAReactionHasNone() throws {
        let food = try Self.detail(.food, ["food": .string("Scrambled egg"), "allergens": .array([.string("Egg")])], as: FoodDetail.self)
        #expect(food == FoodDetail(
            food: "Scrambled egg", allergens: ["egg"], reaction: "none", symptoms: [], liked: nil, colour: nil, unmarkedAt: nil))
    }

    @Test func aFoodNeedsAName() {
        #expect(Self.refusal(.food, [:]) == "food")
        #expect(Self.refusal(.food, ["food": .string("   ")]) == "food")
    }

    @Test func aReactionOutsideTheScaleIsRefused() {
        #expect(Self.refusal(.food, ["food": .string("peanut"), "reaction": .string("terrible")]) == "reaction")
    }

    @Test func untryingAFoodMarksItUnmarkedNow() throws {
        let food = try Self.detail(.food, ["food": .string("peanut"), "tried": .bool(false)], as: FoodDetail.self)
        #expect(food.unmarkedAt == Self.now)
        // Already unmarked: the first time stays.
        let again = try Self.detail(
            .food, ["food": .string("peanut"), "tried": .bool(false), "unmarked_at": .string("2026-02-20T08:00:00Z")], as: FoodDetail.self)
        #expect(again.unmarkedAt == Self.instant("2026-02-20T08:00:00Z"))
    }

    @Test func tryingAFoodAgainClearsTheUnmarking() throws {
        let food = try Self.detail(
            .food, ["food": .string("peanut"), "tried": .bool(true), "unmarked_at": .string("2026-02-20T08:00:00Z")], as: FoodDetail.self)
        #expect(food.unmarkedAt == nil)
    }

    @Test func symptomsMustBeAListOfStrings() throws {
        #expect(Self.refusal(.food, ["food": .string("egg"), "symptoms": .array([.string("rash"), .number(1)])]) == "symptoms")
        #expect(Self.refusal(.food, ["food": .string("egg"), "symptoms": .string("rash")]) == "symptoms")
        let food = try Self.detail(
            .food, ["food": .string("egg"), "reaction": .string("mild"), "symptoms": .array([.string("rash"), .string("hives")])],
            as: FoodDetail.self)
        #expect(food.reaction == "mild")
        #expect(food.symptoms == ["rash", "hives"])
    }

    @Test func foodColoursComeFromTheVocabulary() throws {
        #expect(Self.refusal(.food, ["food": .string("beetroot"), "colour": .string("pink")]) == "colour")
        #expect(try Self.detail(.food, ["food": .string("beetroot"), "colour": .string("Purple")], as: FoodDetail.self).colour == "purple")
    }

    @Test func aNumberWhereTextIsExpectedIsRefusedNamingTheField() {
        #expect(Self.refusal(.food, ["food": .number(3)]) == "food")
        #expect(Self.refusal(.food, ["food": .string("egg"), "notes": .number(1)]) == "notes")
        #expect(Self.refusal(.food, ["food": .string("egg"), "liked": .string("yes")]) == "liked")
        #expect(Self.refusal(.diaper, ["contents": .number(1)]) == "contents")
    }

    @Test func textLongerThanFiveHundredCharactersIsRefused() throws {
        #expect(Self.refusal(.food, ["food": .string("egg"), "notes": .string(Self.text(600))]) == "notes")
        #expect(Self.refusal(.food, ["food": .string(Self.text(600))]) == "food")
        let food = try Self.detail(.food, ["food": .string("egg"), "notes": .string(Self.text(500))], as: FoodDetail.self)
        #expect(food.notes?.count == 500)
    }

    // MARK: photos

    @Test func photosAreNotLoggedAsJSON() {
        #expect(Self.refusal(.photo, ["caption": .string("first smile")]) == "kind")
    }

    // MARK: a stored detail is a valid body

    @Test func aStoredBottleFeedParsesBackToItself() throws {
        var fields = Self.bottle(4, "oz")
        fields["milk"] = .string("breast_milk")
        fields["at"] = .string("2026-03-01T09:15:00Z")
        fields["notes"] = .string("fussy")
        try Self.expectRoundTrip(.feed, fields, as: FeedDetail.self)
    }

    @Test func aStoredSleepWithAChosenPeriodParsesBackToItself() throws {
        let fields: Fields = [
            "at": .string("2026-02-28T14:00:00Z"), "ended_at": .string("2026-02-28T16:30:00Z"), "period": .string("night"),
        ]
        try Self.expectRoundTrip(.sleep, fields, as: SleepDetail.self)
    }

    @Test func aStoredGrowthLogParsesBackToItself() throws {
        let fields: Fields = [
            "at": .string("2026-02-25T10:00:00Z"), "weight": .number(15), "weight_unit": .string("lb"),
            "length": .number(25.5), "length_unit": .string("in"), "head_cm": .number(41.3),
        ]
        try Self.expectRoundTrip(.growth, fields, as: GrowthDetail.self)
    }

    @Test func aStoredFoodParsesBackToItself() throws {
        let fields: Fields = [
            "at": .string("2026-02-27T17:45:00Z"), "food": .string("Peanut butter"), "allergens": .array([.string("Peanut")]),
            "reaction": .string("mild"), "symptoms": .array([.string("rash")]), "liked": .bool(true), "colour": .string("brown"),
            "tried": .bool(false),
        ]
        try Self.expectRoundTrip(.food, fields, as: FoodDetail.self)
    }
}
