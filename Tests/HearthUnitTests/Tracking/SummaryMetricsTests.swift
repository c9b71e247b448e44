import Foundation
import HearthDomain
import HearthEvents
import Testing

/// A fixed fortnight of logs and the figures worked out by hand.
@Suite struct SummaryMetricsTests {
    static let utc = TimeZone(identifier: "UTC")!
    static let from = Timestamp.parse("2026-03-01T00:00:00Z")!
    static let to = Timestamp.parse("2026-03-15T00:00:00Z")!
    static let now = Timestamp.parse("2026-03-20T00:00:00Z")!
    static let child = SummaryChild(name: "Maya", birth: Timestamp.parse("2025-09-01T00:00:00Z"), sex: .female)

    static func at(_ day: Int, _ hour: Double) -> Date {
        from.addingTimeInterval(Double(day - 1) * 86_400 + hour * 3600)
    }

    /// 14 days: six 120 ml bottles four hours apart, a night 19:00–05:00 and a 90-minute nap, five
    /// wet diapers and one wet-and-dirty; four foods (one reaction, one un-marked); three doses;
    /// two measurements.
    static var fortnight: SummaryInput {
        var input = SummaryInput()
        for day in 1...14 {
            for hour in stride(from: 0.0, to: 24, by: 4) { input.feeds.append(FeedSample(at: at(day, hour), kind: .bottle, bottleMl: 120)) }
            input.sleeps.append(SleepSample(start: at(day, 19), end: at(day + 1, 5), isNap: false))
            input.sleeps.append(SleepSample(start: at(day, 13), end: at(day, 14.5), isNap: true))
            for hour in [7.0, 9, 11, 15, 17] { input.diapers.append(DiaperSample(at: at(day, hour), wet: true, dirty: false)) }
            input.diapers.append(DiaperSample(at: at(day, 10), wet: true, dirty: true))
        }
        input.feeds.append(FeedSample(at: at(15, 1), kind: .bottle, bottleMl: 200))  // after the range
        input.sleeps.append(SleepSample(start: at(0, 19), end: at(1, 5), isNap: false))  // reaches into the range: 5 h
        input.foods = [
            .init(at: at(2, 12), food: "Banana", colour: "yellow", reaction: "none", allergens: [], unmarked: false),
            .init(at: at(5, 12), food: "Peanut butter", colour: "brown", reaction: "mild", allergens: ["peanut"], unmarked: false),
            .init(at: at(9, 12), food: "Scrambled egg", colour: "yellow", reaction: "none", allergens: ["egg"], unmarked: false),
            .init(at: at(10, 12), food: "Pear", colour: "green", reaction: "none", allergens: [], unmarked: true),
        ]
        input.doses = [.init(at: at(3, 10), name: "paracetamol"), .init(at: at(3, 16), name: "Paracetamol"), .init(at: at(4, 9), name: "ibuprofen")]
        input.measurements = [.init(at: at(1, 9), weightKg: 7.0, lengthCm: 66), .init(at: at(14, 9), weightKg: 7.3, lengthCm: 67)]
        return input
    }

    static func metrics(_ input: SummaryInput = fortnight) throws -> SummaryMetrics {
        SummaryCalculator.metrics(input, from: from, to: to, now: now, child: child, standards: try GrowthStandards.load(), zone: utc)
    }

    @Test func aFortnightGivesTheHandComputedFigures() throws {
        let metrics = try Self.metrics()
        #expect(metrics.days == 14)
        // 14 × 10 h nights, less 5 h of the last one past the range, plus 5 h of the night before it; 14 naps of 1.5 h: 161 h / 14.
        let sleep = try #require(metrics.sleep)
        #expect(sleep.napsPerDay == 1 && sleep.averageNapMinutes == 90 && sleep.totalSleepHoursPerDay == 11.5)
        #expect(sleep.longestStretchMinutes == 600 && sleep.totalNaps == 14)
        let feeding = try #require(metrics.feeding)
        #expect(feeding.feedsPerDay == 6 && feeding.averageIntervalMinutes == 240 && feeding.totalFeeds == 84)
        #expect(feeding.averageBottleMl == 120 && feeding.averageNursingMinutes == nil)
        let diapers = try #require(metrics.diapers)
        #expect(diapers.changesPerDay == 6 && diapers.wet == 84 && diapers.dirty == 14)
        let medication = try #require(metrics.medication)
        #expect(medication.dosesPerDay == 0.2 && medication.names == ["Ibuprofen", "Paracetamol"] && medication.totalDoses == 3)
        let foods = try #require(metrics.foods)
        #expect(foods.newFoods == ["Banana", "Peanut butter", "Scrambled egg"])
        #expect(foods.byColour == ["yellow": 2, "brown": 1])
        #expect(foods.allergenExposures == ["peanut": 1, "egg": 1])
        #expect(foods.reactions.map { [$0.food, $0.reaction, $0.day] } == [["Peanut butter", "mild", "2026-03-05"]])
        let weight = try #require(metrics.growth?.weightKg)
        #expect(weight.start == 7.0 && weight.end == 7.3 && weight.change == 0.3)
        let standards = try GrowthStandards.load()
        #expect(weight.endPercentile == standards.assess(7.3, indicator: .weightForAge, sex: .female, ageDays: 194)?.percentile)  // 1 Sep 2025 to 14 Mar 2026
        #expect(metrics.growth?.lengthCm?.change == 1)
    }

    @Test func aSectionWithoutDataIsAbsentNotZero() throws {
        let metrics = try Self.metrics(SummaryInput(feeds: [FeedSample(at: Self.at(3, 8), kind: .nursing, nursingMinutes: 12)]))
        #expect(metrics.feeding?.totalFeeds == 1)
        #expect(metrics.feeding?.averageIntervalMinutes == nil)
        #expect(metrics.sleep == nil && metrics.diapers == nil && metrics.foods == nil && metrics.medication == nil && metrics.growth == nil)
        let json = String(decoding: try JSONEncoder().encode(metrics), as: UTF8.self)
        #expect(!json.contains("sleep") && !json.contains("diapers"))
    }

    @Test func everyNumberOfTheNarrativeComesFromTheMetrics() throws {
        let metrics = try Self.metrics()
        let narrative = SummaryNarrative.template(metrics, childName: "Maya")
        let allowed = try SummaryNumber.allowed(in: metrics)
        let used = SummaryNumber.numbers(in: narrative.text)
        #expect(!used.isEmpty)
        for number in used { #expect(allowed.contains(number), "\(number) is not a metric: \(narrative.text)") }
        #expect((2...3).contains(narrative.paragraphs.count))
        #expect((3...5).contains(narrative.highlights.count))
        #expect(narrative.concerns.contains { $0.hasPrefix("Ask your pediatrician") && $0.contains("Peanut butter") })
        #expect(narrative.disclaimer.contains("not medical advice"))
    }

    @Test func theNarrativeAsksRatherThanDiagnoses() throws {
        var input = Self.fortnight
        // Diapers logged all day long, but only two wet ones a day: far fewer than a baby has.
        input.diapers = (1...14).flatMap { day in
            [7.0, 12].map { DiaperSample(at: Self.at(day, $0), wet: true, dirty: false) }
                + [9.0, 15, 18].map { DiaperSample(at: Self.at(day, $0), wet: false, dirty: true) }
        }
        let narrative = SummaryNarrative.template(try Self.metrics(input), childName: "Maya")
        #expect(narrative.concerns.contains { $0.contains("drinking enough") })
        for sentence in narrative.concerns { #expect(sentence.lowercased().contains("ask your pediatrician"), "\(sentence)") }
        for word in ["diagnos", "is allergic", "has an allergy", "dehydrated", "disease"] {
            #expect(!narrative.text.lowercased().contains(word), "\(word) in \(narrative.text)")
        }
    }

    @Test func daysWithoutDiapersLoggedRaiseNoHydrationQuestion() throws {
        var input = Self.fortnight
        input.diapers = Array(input.diapers.prefix(12))  // two days' worth: the daycare's days are not logged
        let narrative = SummaryNarrative.template(try Self.metrics(input), childName: "Maya")
        #expect(!narrative.concerns.contains { $0.contains("drinking enough") })
    }

    @Test func aModelsTextIsKeptOnlyWhenEveryNumberIsAMetric() throws {
        let metrics = try Self.metrics()
        let names = ["Maya", "2026-03-01", "2026-03-14"] + metrics.names
        func kept(_ text: String) throws -> Bool { try SummaryNumber.onlyMetrics(in: text, metrics: metrics, ignoring: names) }
        #expect(try kept("From 2026-03-01 Maya slept 11.5 hours a day and fed 6 times, bottles of 120 ml."))
        #expect(try kept("Weight went from 7 kg to 7.3 kg, up 0.3 kg; Peanut butter caused a mild reaction on 2026-03-05."))
        #expect(try !kept("Maya slept 12 hours a day."), "an invented number")
        #expect(try !kept("Maya had three naps a day."), "a number in words cannot be checked")
        #expect(try !kept("Maya fed ６ times a day."), "digits of another script cannot be checked")
        #expect(try kept("Maya slept 11.50 hours a day."), "the same value written another way")
        var losing = metrics
        losing.growth?.weightKg?.change = -0.2
        #expect(try SummaryNumber.onlyMetrics(in: "Her weight changed by -0.2 kg (0.2 kg down).", metrics: losing, ignoring: names))
    }

    @Test func numbersAreReadOutOfText() {
        #expect(SummaryNumber.numbers(in: "slept 11.5 hours, 6 feeds. Then 240.") == ["11.5", "6", "240"])
        #expect(SummaryNumber.text(6) == "6" && SummaryNumber.text(0.2) == "0.2")
    }
}
