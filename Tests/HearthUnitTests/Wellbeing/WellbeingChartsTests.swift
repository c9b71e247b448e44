import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import HearthDomain
import Testing

@Suite struct WellbeingChartsTests {
    static let svgNamespace = "http://www.w3.org/2000/svg"

    /// Six days; the 3rd and 6th without a check-in. Average over the range: (7 + 4 + 6 + 2) / 5 = 3.8.
    static let days: [DayUrge] = [
        DayUrge(day: "2026-03-02", checkIns: 2, urgeTotal: 7),
        DayUrge(day: "2026-03-03", checkIns: 0, urgeTotal: 0),
        DayUrge(day: "2026-03-04", checkIns: 1, urgeTotal: 4),
        DayUrge(day: "2026-03-05", checkIns: 1, urgeTotal: 6),
        DayUrge(day: "2026-03-06", checkIns: 0, urgeTotal: 0),
        DayUrge(day: "2026-03-07", checkIns: 1, urgeTotal: 2),
    ]

    @Test func cravingTrendIsWellFormedWithTitleAndDescription() throws {
        let svg = WellbeingCharts.cravingTrend(Self.days, title: "Urges & <cravings>")
        let tree = try #require(SVGTree.parse(svg))
        #expect(tree.root.name == "svg")
        #expect(tree.root.namespace == Self.svgNamespace)
        #expect(tree.root.attributes["role"] == "img")
        #expect(tree.root.children.first?.name == "title")
        #expect(tree.root.children.first?.text == "Urges & <cravings>")
        let desc = try #require(tree.root.children.dropFirst().first)
        #expect(desc.name == "desc")
        #expect(desc.text.contains("2026-03-02 to 2026-03-07"))
        #expect(desc.text.contains("0 to 10"))
        #expect(desc.text.contains("Average over the range: 3.8, from 5 check-ins."))
        #expect(desc.text.contains("2 days without a check-in are left as gaps."))
        #expect(tree.all("script").isEmpty)
        #expect(!svg.contains("href"))
    }

    @Test func daysWithoutCheckInsAreGaps() throws {
        let tree = try #require(SVGTree.parse(WellbeingCharts.cravingTrend(Self.days, title: "Urge")))
        // A dot for each day with check-ins and none for the others.
        let dots = tree.all("circle").filter { $0.attributes["class"] == "urge-point" }
        #expect(dots.compactMap { $0.attributes["data-day"] } == ["2026-03-02", "2026-03-04", "2026-03-05", "2026-03-07"])
        // Lines only join neighbouring days with check-ins: the 4th to the 5th. The 2nd and 7th stand alone.
        let lines = tree.all("polyline").filter { $0.attributes["class"] == "urge-line" }
        #expect(lines.count == 1)
        #expect(lines.first?.attributes["points"]?.split(separator: " ").count == 2)
        // Each gap day is still a group with a tooltip saying so.
        let gaps = tree.all("g").filter { $0.attributes["class"] == "day no-check-in" }
        #expect(gaps.compactMap { $0.attributes["data-day"] } == ["2026-03-03", "2026-03-06"])
        #expect(gaps.allSatisfy { $0.children.first?.name == "title" && $0.children.first?.text.hasSuffix("no check-in") == true })
        #expect(tree.all("g").filter { $0.attributes["class"] == "day" }.count == 4)
        // The range average is drawn and labelled.
        let average = try #require(tree.all("g").first { $0.attributes["class"] == "range-average" })
        #expect(average.children.contains { $0.name == "text" && $0.text == "Average 3.8" })
        #expect(!tree.all("text").contains { $0.text == "No data yet" })
    }

    @Test func anUrgeOfZeroIsADotOnTheAxisNotAGap() throws {
        let days = [DayUrge(day: "2026-03-02", checkIns: 1, urgeTotal: 0), DayUrge(day: "2026-03-03", checkIns: 1, urgeTotal: 10)]
        let tree = try #require(SVGTree.parse(WellbeingCharts.cravingTrend(days)))
        let dots = tree.all("circle").filter { $0.attributes["class"] == "urge-point" }
        #expect(dots.count == 2)
        // 0 sits on the baseline (360 - 56 = 304), 10 at the top (72).
        #expect(dots.map { $0.attributes["cy"] } == ["304", "72"])
        #expect(tree.all("polyline").count == 1)
    }

    @Test func aRangeWithoutCheckInsSaysSo() throws {
        let days = (2...8).map { DayUrge(day: "2026-03-0\($0)", checkIns: 0, urgeTotal: 0) }
        let tree = try #require(SVGTree.parse(WellbeingCharts.cravingTrend(days)))
        #expect(tree.all("circle").isEmpty)
        #expect(tree.all("polyline").isEmpty)
        #expect(tree.all("text").contains { $0.text == "No data yet" })
        #expect(tree.root.children.dropFirst().first?.text.hasSuffix("No check-ins yet.") == true)
        #expect(SVGTree.parse(WellbeingCharts.cravingTrend([])) != nil)
    }

    @Test func weeklySummaryHasABarPerDayWithCheckInsAndTheUrgeLine() throws {
        let figures = try #require(WeeklyFigures.compute(weekStart: "2026-03-23", timeZone: ParisMarch2026.zone,
                                                         checkIns: ParisMarch2026.checkIns, quizzes: ParisMarch2026.quizzes,
                                                         exercises: ParisMarch2026.exercises))
        let tree = try #require(SVGTree.parse(WellbeingCharts.weeklySummary(figures)))
        #expect(tree.root.children.first?.text == "Week of 23 Mar")
        let desc = try #require(tree.root.children.dropFirst().first?.text)
        #expect(desc.contains("2026-03-23 to 2026-03-29"))
        #expect(desc.contains("9 check-ins on 7 days, average urge 3, average mood 6.6."))
        let bars = tree.all("rect").filter { $0.attributes["class"] == "check-ins" }
        #expect(bars.count == 7)
        #expect(tree.all("g").filter { $0.attributes["class"] == "day" }.compactMap { $0.attributes["data-day"] }.count == 7)
        #expect(tree.all("circle").filter { $0.attributes["class"] == "urge-point" }.count == 7)
        #expect(tree.all("polyline").filter { $0.attributes["class"] == "urge-line" }.count == 1)
        // Each bar carries its count; Sunday's is 3.
        let totals = try #require(tree.all("g").first { $0.attributes["class"] == "totals" })
        #expect(totals.children.map(\.text) == ["1", "1", "1", "1", "1", "1", "3"])
        #expect(totals.children.last?.attributes["data-day"] == "2026-03-29")
    }

    @Test func weeklySummaryOfAnEmptyWeek() throws {
        let figures = try #require(WeeklyFigures.compute(weekStart: "2026-04-06", timeZone: ParisMarch2026.zone,
                                                         checkIns: ParisMarch2026.checkIns, quizzes: [], exercises: []))
        let tree = try #require(SVGTree.parse(WellbeingCharts.weeklySummary(figures)))
        #expect(tree.all("rect").filter { $0.attributes["class"] == "check-ins" }.isEmpty)
        #expect(tree.all("polyline").isEmpty)
        #expect(tree.all("text").contains { $0.text == "No data yet" })
        #expect(tree.root.children.dropFirst().first?.text.hasSuffix("no check-ins this week.") == true)
    }

    @Test func chartsAreDeterministic() throws {
        #expect(WellbeingCharts.cravingTrend(Self.days) == WellbeingCharts.cravingTrend(Self.days))
    }
}
