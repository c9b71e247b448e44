import Foundation
import HearthContent
import HearthDomain
import Testing

/// The WHO Child Growth Standards against WHO's own published numbers.
///
/// The published SD tables (WHO "z-score" tables by month, 0–5 years) round to 0.1 kg / 0.1 cm, so a
/// published −2 SD value may sit up to 0.05 kg/cm from the true curve. Each case therefore checks two
/// things: (1) the curve value at that SD, rounded to one decimal, *is* the published number; (2) the
/// z-score of the published number is within `tolerance` of the SD, where tolerance = 0.05 ÷ (the
/// smallest gap between neighbouring published SD columns at that age), i.e. the most a 0.05 rounding
/// can move z. Months are converted to completed days as WHO does (month × 30.4375, rounded).
@Suite struct GrowthStandardsTests {
    static let standards: GrowthStandards = {
        do { return try GrowthStandards.load() } catch { fatalError("\(error)") }
    }()

    struct Published: CustomStringConvertible {
        let indicator: GrowthIndicator
        let sex: GrowthSex
        let ageDays: Int
        let sd: Double
        let value: Double
        let tolerance: Double
        var description: String { "\(indicator.rawValue) \(sex.rawValue) day \(ageDays) \(sd) SD = \(value)" }
    }

    static func rows(
        _ indicator: GrowthIndicator, _ sex: GrowthSex, day: Int, tolerance: Double, _ values: [(sd: Double, value: Double)]
    ) -> [Published] {
        values.map { Published(indicator: indicator, sex: sex, ageDays: day, sd: $0.sd, value: $0.value, tolerance: tolerance) }
    }

    static let published: [Published] =
        // Weight-for-age. Birth: SD columns 0.4 kg apart → 0.05 / 0.4 = 0.125.
        rows(.weightForAge, .male, day: 0, tolerance: 0.13, [(-3, 2.1), (-2, 2.5), (0, 3.3), (2, 4.4), (3, 5.0)])
        + rows(.weightForAge, .female, day: 0, tolerance: 0.13, [(-2, 2.4), (0, 3.2), (2, 4.2)])
        // 12 months (day 365): columns ≥ 0.7 kg apart → 0.072.
        + rows(.weightForAge, .male, day: 365, tolerance: 0.075, [(-2, 7.7), (0, 9.6), (2, 12.0)])
        + rows(.weightForAge, .female, day: 365, tolerance: 0.075, [(-2, 7.0), (0, 8.9), (2, 11.5)])
        // Girls 24 months (day 730): ≥ 0.9 kg → 0.056.
        + rows(.weightForAge, .female, day: 730, tolerance: 0.06, [(-2, 9.0), (0, 11.5), (2, 14.8)])
        // 60 months (day 1826): ≥ 1.6 kg → 0.031. ±3 SD here also exercise the restricted-tail rule.
        + rows(.weightForAge, .male, day: 1826, tolerance: 0.035, [(-3, 12.4), (-2, 14.1), (0, 18.3), (2, 24.2), (3, 27.9)])
        + rows(.weightForAge, .female, day: 1826, tolerance: 0.035, [(-3, 12.1), (-2, 13.7), (0, 18.2), (2, 24.9), (3, 29.5)])
        // Length (0–730 days) and height (731+): columns ≥ 1.8 cm apart → 0.028.
        + rows(.lengthForAge, .male, day: 0, tolerance: 0.03, [(-2, 46.1), (0, 49.9), (2, 53.7)])
        + rows(.lengthForAge, .female, day: 0, tolerance: 0.03, [(-2, 45.4), (0, 49.1), (2, 52.9)])
        + rows(.lengthForAge, .male, day: 365, tolerance: 0.03, [(-2, 71.0), (0, 75.7), (2, 80.5)])
        // 24 months: WHO's length table (day 730) and height table (day 731) differ by the 0.7 cm
        // standing-vs-lying offset.
        + rows(.lengthForAge, .male, day: 730, tolerance: 0.03, [(-2, 81.7), (0, 87.8), (2, 93.9)])
        + rows(.lengthForAge, .male, day: 731, tolerance: 0.03, [(-2, 81.0), (0, 87.1), (2, 93.2)])
        + rows(.lengthForAge, .female, day: 730, tolerance: 0.03, [(-2, 80.0), (0, 86.4), (2, 92.9)])
        + rows(.lengthForAge, .female, day: 731, tolerance: 0.03, [(-2, 79.3), (0, 85.7), (2, 92.2)])
        + rows(.lengthForAge, .male, day: 1826, tolerance: 0.03, [(-2, 100.7), (0, 110.0), (2, 119.2)])
        + rows(.lengthForAge, .female, day: 1826, tolerance: 0.03, [(-2, 99.9), (0, 109.4), (2, 118.9)])
        // Head circumference: columns ≥ 1.1 cm apart → 0.045.
        + rows(.headCircumferenceForAge, .male, day: 0, tolerance: 0.05, [(-2, 31.9), (0, 34.5), (2, 37.0)])
        + rows(.headCircumferenceForAge, .female, day: 0, tolerance: 0.05, [(-2, 31.5), (0, 33.9), (2, 36.2)])
        + rows(.headCircumferenceForAge, .male, day: 365, tolerance: 0.05, [(-2, 43.5), (0, 46.1), (2, 48.6)])
        + rows(.headCircumferenceForAge, .female, day: 183, tolerance: 0.05, [(-2, 39.6), (0, 42.2), (2, 44.8)])
        + rows(.headCircumferenceForAge, .male, day: 1826, tolerance: 0.05, [(-2, 47.7), (0, 50.7), (2, 53.7)])
        + rows(.headCircumferenceForAge, .female, day: 1826, tolerance: 0.05, [(-2, 47.1), (0, 49.9), (2, 52.8)])

    @Test func theBundledTablesCoverEveryDayFromBirthToFiveYears() throws {
        let standards = Self.standards
        #expect(standards.source.contains("WHO Child Growth Standards"))
        for indicator in GrowthIndicator.allCases {
            for sex in GrowthSex.allCases {
                #expect(standards.value(atZScore: 0, indicator: indicator, sex: sex, ageDays: 0) != nil)
                #expect(standards.value(atZScore: 0, indicator: indicator, sex: sex, ageDays: 1856) != nil)
            }
        }
    }

    @Test(arguments: published)
    func publishedSDValuesSitOnTheirSDLines(_ row: Published) throws {
        let standards = Self.standards
        let curve = try #require(standards.value(atZScore: row.sd, indicator: row.indicator, sex: row.sex, ageDays: row.ageDays))
        #expect((curve * 10).rounded() / 10 == row.value, "\(row): curve gives \(curve)")
        let assessment = try #require(standards.assess(row.value, indicator: row.indicator, sex: row.sex, ageDays: row.ageDays))
        #expect(abs(assessment.zScore - row.sd) <= row.tolerance, "\(row): z = \(assessment.zScore)")
        #expect(assessment.ageDays == row.ageDays && assessment.indicator == row.indicator)
    }

    @Test func theMedianOfThePublishedLMSTableIsThe50thPercentile() throws {
        // M values straight from WHO's daily LMS tables (weianthro / lenanthro / hcanthro).
        let medians: [(GrowthIndicator, GrowthSex, Int, Double)] = [
            (.weightForAge, .male, 0, 3.3464), (.weightForAge, .female, 1826, 18.2179), (.weightForAge, .male, 365, 9.646),
            (.lengthForAge, .female, 0, 49.1477), (.lengthForAge, .male, 730, 87.8018), (.lengthForAge, .male, 731, 87.1303),
            (.headCircumferenceForAge, .male, 0, 34.4618), (.headCircumferenceForAge, .female, 1826, 49.9225),
        ]
        for (indicator, sex, day, median) in medians {
            let assessment = try #require(Self.standards.assess(median, indicator: indicator, sex: sex, ageDays: day))
            #expect(abs(assessment.zScore) < 1e-12, "\(indicator) \(sex) day \(day)")
            #expect(assessment.percentile == 50)
            #expect(Self.standards.value(atPercentile: 50, indicator: indicator, sex: sex, ageDays: day) == median)
        }
    }

    @Test func weightBeyondThreeSDUsesWHOsRestrictedRule() throws {
        // Boys at birth, WHO weianthro day 0: L 0.3487, M 3.3464, S 0.14602.
        let (l, m, s) = (0.3487, 3.3464, 0.14602)
        func sd(_ z: Double) -> Double { m * pow(1 + l * s * z, 1 / l) }
        let heavy = try #require(Self.standards.assess(5.6, indicator: .weightForAge, sex: .male, ageDays: 0))
        #expect(abs(heavy.zScore - (3 + (5.6 - sd(3)) / (sd(3) - sd(2)))) < 1e-9)
        #expect(abs(heavy.zScore - 3.9314) < 1e-4)  // the plain LMS formula would say 3.8625
        let light = try #require(Self.standards.assess(1.6, indicator: .weightForAge, sex: .male, ageDays: 0))
        #expect(abs(light.zScore - (-3 + (1.6 - sd(-3)) / (sd(-2) - sd(-3)))) < 1e-9)
        #expect(abs(light.zScore - -4.2673) < 1e-4)  // plain: −4.4555
        // WHO anthro's own test case: a girl of 1522 days weighing 17 kg has z = 0.24.
        let girl = try #require(Self.standards.assess(17, indicator: .weightForAge, sex: .female, ageDays: 1522))
        #expect((girl.zScore * 100).rounded() / 100 == 0.24)
        // Length is not adjusted: 60 cm at birth is (60 / 49.8842 − 1) / 0.03795 SD.
        let long = try #require(Self.standards.assess(60, indicator: .lengthForAge, sex: .male, ageDays: 0))
        #expect(abs(long.zScore - (60 / 49.8842 - 1) / 0.03795) < 1e-9)
    }

    @Test func percentilesComeFromTheNormalDistribution() throws {
        #expect(abs(StandardNormal.cdf(-2) - 0.022750131948179195) < 1e-15)
        #expect(abs(StandardNormal.cdf(1.959963984540054) - 0.975) < 1e-15)
        #expect(abs(StandardNormal.cdf(-8) - 6.22096057427178e-16) < 1e-28)
        for p in [1e-10, 0.001, 0.03, 0.15, 0.5, 0.85, 0.97, 0.999, 1 - 1e-10] {
            #expect(abs(StandardNormal.cdf(StandardNormal.quantile(p)) - p) <= 1e-15 + 1e-12 * p, "p = \(p)")
        }
        #expect(abs(StandardNormal.quantile(0.97) - 1.880793608151251) < 1e-12)
        // Published −2 SD of weight at birth (boys 2.5 kg) is about the 2.5th percentile … within rounding.
        let boy = try #require(Self.standards.assess(2.5, indicator: .weightForAge, sex: .male, ageDays: 0))
        #expect(boy.percentile == (StandardNormal.cdf(boy.zScore) * 1000).rounded() / 10)
        #expect((2.0...3.0).contains(boy.percentile))
    }

    @Test func chartBandsRoundTripThroughAssess() throws {
        for indicator in GrowthIndicator.allCases {
            for sex in GrowthSex.allCases {
                for day in [0, 1, 183, 365, 730, 731, 1200, 1856] {
                    var previous = 0.0
                    for p in GrowthStandards.bandPercentiles + [0.1, 99.9] {
                        let value = try #require(Self.standards.value(atPercentile: p, indicator: indicator, sex: sex, ageDays: day))
                        let back = try #require(Self.standards.assess(value, indicator: indicator, sex: sex, ageDays: day))
                        #expect(back.percentile == p, "\(indicator) \(sex) day \(day) p\(p)")
                        if p > 1, p < 99 {
                            #expect(value > previous)
                            previous = value
                        }
                    }
                    // Beyond ±3 SD (restricted for weight) the inverse still round-trips.
                    for z in [-4.5, -3.2, 3.2, 4.5] {
                        let value = try #require(Self.standards.value(atZScore: z, indicator: indicator, sex: sex, ageDays: day))
                        let back = try #require(Self.standards.assess(value, indicator: indicator, sex: sex, ageDays: day))
                        #expect(abs(back.zScore - z) < 1e-9)
                    }
                }
            }
        }
    }

    @Test func agesOutsideZeroToEighteenFiftySixDaysAndBadValuesHaveNoAnswer() {
        let standards = Self.standards
        #expect(standards.assess(3.3, indicator: .weightForAge, sex: .male, ageDays: -1) == nil)
        #expect(standards.assess(18.3, indicator: .weightForAge, sex: .male, ageDays: 1857) == nil)
        #expect(standards.assess(110, indicator: .lengthForAge, sex: .female, ageDays: 1856) != nil)
        #expect(standards.value(atPercentile: 50, indicator: .headCircumferenceForAge, sex: .female, ageDays: 1857) == nil)
        #expect(standards.value(atPercentile: 0, indicator: .weightForAge, sex: .male, ageDays: 10) == nil)
        #expect(standards.value(atPercentile: 100, indicator: .weightForAge, sex: .male, ageDays: 10) == nil)
        #expect(standards.assess(0, indicator: .weightForAge, sex: .male, ageDays: 10) == nil)
        #expect(standards.assess(-3, indicator: .weightForAge, sex: .male, ageDays: 10) == nil)
        #expect(standards.assess(.nan, indicator: .weightForAge, sex: .male, ageDays: 10) == nil)
    }

    /// The bundled file as a mutable JSON object, for the decoding failures.
    static func bundledJSON() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: HearthContent.data(of: .whoGrowthLMS)) as? [String: Any])
    }

    static func decode(_ mutate: (inout [String: [String: Any]]) -> Void) throws -> GrowthStandardsError? {
        var json = try bundledJSON()
        var indicators = try #require(json["indicators"] as? [String: [String: Any]])
        mutate(&indicators)
        json["indicators"] = indicators
        do {
            _ = try GrowthStandards(decoding: JSONSerialization.data(withJSONObject: json))
            return nil
        } catch let error as GrowthStandardsError {
            return error
        }
    }

    @Test func unknownSexesAndIndicatorsAreRejectedClearly() throws {
        #expect(try Self.decode { _ in } == nil)

        let sex = try Self.decode {
            let male = $0["weight_for_age"]?["male"]
            $0["weight_for_age"]?["unknown"] = male
        }
        #expect(sex == .unknownSex("unknown", indicator: "weight_for_age"))
        #expect(sex?.description == #"who_growth_lms.json: weight_for_age: unknown sex "unknown" (expected male or female)"#)

        let indicator = try Self.decode {
            let weight = $0["weight_for_age"]
            $0["bmi_for_age"] = weight
        }
        #expect(indicator == .unknownIndicator("bmi_for_age"))
        #expect(indicator?.description.contains(#"unknown indicator "bmi_for_age""#) == true)

        #expect(try Self.decode { $0["head_circumference_for_age"] = nil } == .missingTable(.headCircumferenceForAge, .male))
        #expect(try Self.decode { $0["length_height_for_age"]?["female"] = [[0, 1, 49.1477, 0.0379]] }
            == .wrongAgeRange(.lengthForAge, .female, rows: 1))
        #expect(try Self.decode {
            var rows = $0["weight_for_age"]?["male"] as? [[Double]] ?? []
            rows[5][0] = 6
            $0["weight_for_age"]?["male"] = rows
        } == .badRow(.weightForAge, .male, row: 5, reason: "age 6.0 is not day 5"))

        do {
            _ = try GrowthStandards(decoding: Data(#"{"source": "x"}"#.utf8))
            Issue.record("decoding a file without indicators should fail")
        } catch {
            guard case .unreadable = error else { Issue.record("\(error)"); return }
        }
    }
}
