import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import HearthDomain
import Testing

@Suite struct TrackingChartsTests {
    static let svgNamespace = "http://www.w3.org/2000/svg"

    /// WHO weight-for-age for girls, roughly, monthly from birth to 12 months (kg).
    static let weightBands: [GrowthBandCurve] = {
        let ages = [0, 30, 61, 91, 122, 152, 183, 213, 244, 274, 304, 335, 365]
        let table: [(Double, [Double])] = [
            (3, [2.4, 3.2, 3.9, 4.5, 5.0, 5.4, 5.7, 6.0, 6.3, 6.5, 6.7, 6.9, 7.0]),
            (15, [2.8, 3.6, 4.5, 5.1, 5.6, 6.1, 6.4, 6.7, 7.0, 7.3, 7.5, 7.7, 7.9]),
            (50, [3.2, 4.2, 5.1, 5.8, 6.4, 6.9, 7.3, 7.6, 7.9, 8.2, 8.5, 8.7, 8.9]),
            (85, [3.7, 4.8, 5.8, 6.6, 7.3, 7.8, 8.3, 8.6, 9.0, 9.3, 9.6, 9.9, 10.1]),
            (97, [4.2, 5.4, 6.5, 7.4, 8.1, 8.7, 9.2, 9.6, 10.0, 10.4, 10.7, 11.0, 11.3]),
        ]
        return table.map { percentile, values in
            GrowthBandCurve(percentile: percentile, points: zip(ages, values).map { GrowthChartPoint(ageDays: $0, value: $1) })
        }
    }()

    static let weights: [GrowthChartPoint] = [
        .init(ageDays: 0, value: 3.3), .init(ageDays: 30, value: 4.3), .init(ageDays: 61, value: 5.2),
        .init(ageDays: 91, value: 5.9), .init(ageDays: 122, value: 6.5), .init(ageDays: 183, value: 7.4),
    ]

    static let week = ["2026-03-02", "2026-03-03", "2026-03-04", "2026-03-05", "2026-03-06", "2026-03-07", "2026-03-08"]

    static func growth(title: String = "Weight for age", measurements: [GrowthChartPoint] = weights) -> GrowthChart {
        GrowthChart(title: title, unit: "kg", bands: weightBands, measurements: measurements)
    }

    static func sleep() -> SleepChart {
        var intervals: [SleepChartInterval] = []
        for day in week.indices {
            intervals.append(.init(dayIndex: day, startMinuteOfDay: 0, endMinuteOfDay: 6 * 60 + 30, isNap: false))
            intervals.append(.init(dayIndex: day, startMinuteOfDay: 9 * 60 + 15, endMinuteOfDay: 10 * 60, isNap: true))
            intervals.append(.init(dayIndex: day, startMinuteOfDay: 13 * 60, endMinuteOfDay: 14 * 60 + 45, isNap: true))
            intervals.append(.init(dayIndex: day, startMinuteOfDay: 19 * 60 + 30, endMinuteOfDay: 1440, isNap: false))
        }
        return SleepChart(days: week, intervals: intervals)
    }

    static func feeds() -> FeedsChart {
        FeedsChart(days: week.enumerated().map { index, day in
            FeedsChartDay(day: day, bottle: 3 + index % 2, nursing: 4 - index % 3, solids: index >= 4 ? 1 : 0, bottleMl: Double(3 + index % 2) * 120)
        })
    }

    @Test func growthChartIsAnSVGDocumentWithAccessibleTitleAndDescription() throws {
        let svg = Self.growth().svg()
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 720 480\" width=\"720\" height=\"480\" role=\"img\""))
        let tree = try #require(SVGTree.parse(svg))
        #expect(tree.root.name == "svg")
        #expect(tree.root.namespace == Self.svgNamespace)
        #expect(tree.root.children.first?.name == "title")
        #expect(tree.root.children.first?.text == "Weight for age")
        #expect(tree.root.children.dropFirst().first?.name == "desc")
        #expect(tree.all("script").isEmpty)
        #expect(!svg.contains("href"))
    }

    @Test func growthChartLabelsEachPercentileOnceAndDrawsOneDotPerMeasurement() throws {
        let tree = try #require(SVGTree.parse(Self.growth().svg()))
        let texts = tree.all("text").map(\.text)
        for label in ["P3", "P15", "P50", "P85", "P97"] {
            #expect(texts.filter { $0 == label }.count == 1, "\(label)")
        }
        #expect(tree.all("circle").count == Self.weights.count)
        #expect(tree.all("path").filter { $0.attributes["class"] == "band" }.count == 2)
        #expect(tree.all("polyline").filter { $0.attributes["class"] == "median" }.count == 1)
        #expect(!texts.contains("No data yet"))
    }

    @Test func growthChartAgeAxisEndsAtTheNextThreeMonthsAfterTheLastMeasurement() throws {
        let tree = try #require(SVGTree.parse(Self.growth().svg()))
        let grid = try #require(tree.all("g").first { $0.attributes["class"] == "grid" })
        let labels = grid.children.filter { $0.name == "text" && $0.attributes["text-anchor"] == "middle" }.map(\.text)
        #expect(labels == (0...9).map(String.init))
    }

    @Test func titleWithMarkupCharactersIsEscapedAndStillParses() throws {
        let title = "Weight <for> \"age\" & 'more'"
        let svg = Self.growth(title: title).svg()
        #expect(svg.contains("<title>Weight &lt;for&gt; \"age\" &amp; 'more'</title>"))
        let tree = try #require(SVGTree.parse(svg))
        #expect(tree.root.children.first?.text == title)
        #expect(tree.all("text").contains { $0.text == title })
    }

    @Test func emptyChartsParseAndSayNoDataYet() throws {
        let charts = [
            GrowthChart(title: "Length for age", unit: "cm", bands: [], measurements: []).svg(),
            GrowthChart(title: "Weight for age", unit: "kg", bands: Self.weightBands, measurements: []).svg(),
            SleepChart(days: [], intervals: []).svg(),
            SleepChart(days: Self.week, intervals: []).svg(),
            FeedsChart(days: []).svg(),
            FeedsChart(days: Self.week.map { FeedsChartDay(day: $0) }).svg(),
        ]
        for svg in charts {
            let tree = try #require(SVGTree.parse(svg))
            #expect(tree.root.namespace == Self.svgNamespace)
            #expect(tree.all("text").contains { $0.text == "No data yet" })
        }
    }

    @Test func sameInputGivesTheSameBytes() {
        #expect(Self.growth().svg() == Self.growth().svg())
        #expect(Self.sleep().svg() == Self.sleep().svg())
        #expect(Self.feeds().svg() == Self.feeds().svg())
    }

    @Test func sleepChartTotalsEachDay() throws {
        let chart = SleepChart(days: ["2026-03-02", "2026-03-03", "2026-03-04"], intervals: [
            .init(dayIndex: 0, startMinuteOfDay: 13 * 60, endMinuteOfDay: 15 * 60, isNap: true),
            .init(dayIndex: 0, startMinuteOfDay: 0, endMinuteOfDay: 7 * 60, isNap: false),
            .init(dayIndex: 0, startMinuteOfDay: 21 * 60 + 30, endMinuteOfDay: 1440, isNap: false),
            // Overlaps count once: 8 h.
            .init(dayIndex: 1, startMinuteOfDay: 0, endMinuteOfDay: 6 * 60, isNap: false),
            .init(dayIndex: 1, startMinuteOfDay: 5 * 60, endMinuteOfDay: 8 * 60, isNap: false),
            // Not a day of the chart, and empty.
            .init(dayIndex: 7, startMinuteOfDay: 0, endMinuteOfDay: 60, isNap: true),
            .init(dayIndex: 2, startMinuteOfDay: 60, endMinuteOfDay: 60, isNap: true),
        ])
        #expect(chart.totalMinutes() == [690, 480, nil])
        let tree = try #require(SVGTree.parse(chart.svg()))
        let totals = tree.all("text").filter { $0.attributes["class"] == "total" }.map(\.text)
        #expect(totals == ["11.5 h", "8 h", "–"])
        #expect(tree.all("rect").filter { $0.attributes["class"] == "nap" }.count == 1)
        #expect(tree.all("rect").filter { $0.attributes["class"] == "night" }.count == 4)
        let hours = tree.all("text").map(\.text)
        for label in ["0", "6", "12", "18", "24"] {
            #expect(hours.contains(label))
        }
    }

    @Test func sleepChartHasOneRowLabelPerDay() throws {
        let tree = try #require(SVGTree.parse(Self.sleep().svg()))
        let texts = tree.all("text").map(\.text)
        #expect(texts.contains("Mon 2 Mar"))
        #expect(texts.contains("Sun 8 Mar"))
        #expect(tree.all("text").filter { $0.attributes["class"] == "total" }.map(\.text) == Array(repeating: "13.5 h", count: 7))  // 6.5 + 0.75 + 1.75 + 4.5
    }

    @Test func feedsChartDrawsOneBarGroupPerDay() throws {
        let chart = Self.feeds()
        let tree = try #require(SVGTree.parse(chart.svg()))
        let groups = tree.all("g").filter { $0.attributes["class"] == "day" }
        #expect(groups.count == Self.week.count)
        #expect(groups.map { $0.attributes["data-day"] } == Self.week)
        for (group, day) in zip(groups, chart.days) {
            let segments = group.children.filter { $0.name == "rect" }.compactMap { $0.attributes["class"] }
            let expected = [("bottle", day.bottle), ("nursing", day.nursing), ("solids", day.solids)].filter { $0.1 > 0 }.map(\.0)
            #expect(segments == expected)
        }
        #expect(tree.all("g").contains { $0.attributes["class"] == "bottle-ml" })
        #expect(tree.all("text").contains { $0.text == "Bottle (ml)" })
    }

    @Test func numbersHaveAtMostTwoDecimalsAndNoLocale() {
        #expect(SVGDocument.number(3) == "3")
        #expect(SVGDocument.number(-0.001) == "0")
        #expect(SVGDocument.number(1234.5678) == "1234.57")
        #expect(SVGDocument.number(0.1) == "0.1")
        #expect(SVGDocument.number(-2.05) == "-2.05")
        #expect(SVGDocument.number(11.5, maxDecimals: 1) == "11.5")
        #expect(SVGDocument.number(.nan) == "0")
        #expect(SVGDocument.escapeAttribute("a\"b'<c>&\n") == "a&quot;b&apos;&lt;c&gt;&amp;&#10;")
        #expect(SVGDocument.escapeText("a\u{1}b<") == "ab&lt;")
    }
}

/// The elements of a parsed SVG document (the tracking and wellbeing chart tests read with it).
final class SVGTree: NSObject, XMLParserDelegate {
    final class Node {
        let name: String
        let namespace: String?
        let attributes: [String: String]
        var text = ""
        var children: [Node] = []

        init(name: String, namespace: String?, attributes: [String: String]) {
            self.name = name
            self.namespace = namespace
            self.attributes = attributes
        }
    }

    private var stack: [Node] = []
    private(set) var root = Node(name: "", namespace: nil, attributes: [:])

    static func parse(_ svg: String) -> SVGTree? {
        let tree = SVGTree()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.shouldProcessNamespaces = true
        parser.delegate = tree
        guard parser.parse(), !tree.root.name.isEmpty else { return nil }
        return tree
    }

    /// Every element named `name`, in document order.
    func all(_ name: String) -> [Node] {
        var found: [Node] = []
        func visit(_ node: Node) {
            if node.name == name { found.append(node) }
            node.children.forEach(visit)
        }
        visit(root)
        return found
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        let node = Node(name: elementName, namespace: namespaceURI, attributes: attributes)
        if let parent = stack.last { parent.children.append(node) } else { root = node }
        stack.append(node)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        stack.removeLast()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        stack.last?.text += string
    }
}
