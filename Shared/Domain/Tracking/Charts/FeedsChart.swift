import Foundation

/// One day of a `FeedsChart`: the number of feeds by type and the bottle volume in ml.
public struct FeedsChartDay: Sendable, Equatable {
    /// The calendar day as `YYYY-MM-DD`.
    public let day: String
    public let bottle: Int
    public let nursing: Int
    public let solids: Int
    public let bottleMl: Double

    public init(day: String, bottle: Int = 0, nursing: Int = 0, solids: Int = 0, bottleMl: Double = 0) {
        self.day = day
        self.bottle = bottle
        self.nursing = nursing
        self.solids = solids
        self.bottleMl = bottleMl
    }

    var total: Int { max(0, bottle) + max(0, nursing) + max(0, solids) }
    var millilitres: Double { bottleMl.isFinite ? max(0, bottleMl) : 0 }
}

/// A feeds chart as SVG: per day a bar of feed counts stacked by type (bottle, nursing, solids)
/// with its total on top, and a line for the bottle volume on a secondary axis at the right.
///
/// `days` are oldest first. Each day is one `<g class="day">` group, with a tooltip. Negative
/// counts and volumes count as zero. Without any feed the chart says "No data yet".
public struct FeedsChart: Sendable {
    public let title: String
    public let days: [FeedsChartDay]
    public let width: Int
    public let height: Int

    public init(title: String = "Feeds", days: [FeedsChartDay], width: Int = 720, height: Int = 400) {
        self.title = title
        self.days = days
        self.width = max(400, width)
        self.height = max(280, height)
    }

    static let bottleFill = "#3b82f6"
    static let nursingFill = "#ec4899"
    static let solidsFill = "#22c55e"
    static let volumeStroke = "#0f766e"
    static let gridStroke = "#e5e7eb"
    static let axisStroke = "#6b7280"
    static let textFill = "#111827"
    static let mutedFill = "#4b5563"

    public func svg() -> String {
        let (w, h) = (Double(width), Double(height))
        let left = 64.0, right = w - 72, top = 76.0, bottom = h - 60
        let hasData = days.contains { $0.total > 0 || $0.millilitres > 0 }

        // Left axis: counts on whole steps; right axis: ml with as many steps, so grid lines match.
        let maxCount = Double(days.map(\.total).max() ?? 0)
        let countStep = ChartTicks.niceIntegerStep(max(maxCount, 4) / 4)
        let steps = max(1, Int(((max(maxCount, 3) + 0.5) / countStep).rounded(.up)))
        let countUpper = Double(steps) * countStep
        let maxMl = days.map(\.millilitres).max() ?? 0
        let mlStep = ChartTicks.niceStep(maxMl > 0 ? maxMl * 1.05 / Double(steps) : 250 / Double(steps))
        let mlUpper = mlStep * Double(steps)
        func yCount(_ count: Double) -> Double { bottom - count / countUpper * (bottom - top) }
        func yMl(_ ml: Double) -> Double { bottom - ml / mlUpper * (bottom - top) }
        let slot = (right - left) / Double(max(days.count, 1))
        func center(_ index: Int) -> Double { left + slot * (Double(index) + 0.5) }

        var document = SVGDocument(width: width, height: height, title: title, description: description)
        document.append(.text(title, x: 16, y: 28, [("font-size", "18"), ("font-weight", "600"), ("fill", Self.textFill)]))
        document.append(LegendSwatch.legend([("Bottle", .box(Self.bottleFill)), ("Nursing", .box(Self.nursingFill)),
                                             ("Solids", .box(Self.solidsFill)), ("Bottle ml (right axis)", .lineWithDot(Self.volumeStroke))],
                                            x: left, y: 52))

        // Grid and both value axes.
        var grid: [SVGElement] = []
        for step in 0...steps {
            let ty = yCount(Double(step) * countStep)
            grid.append(.line(x1: left, y1: ty, x2: right, y2: ty, [("stroke", Self.gridStroke)]))
            grid.append(.text(SVGDocument.number(Double(step) * countStep), x: left - 8, y: ty + 4, [("text-anchor", "end"), ("fill", Self.mutedFill)]))
            grid.append(.text(SVGDocument.number(Double(step) * mlStep), x: right + 8, y: ty + 4, [("fill", Self.volumeStroke)]))
        }
        document.append(.group([("class", "grid")], children: grid))

        // Day labels: weekday and date for up to two weeks, else a date on every few days.
        var labels: [SVGElement] = []
        let labelEvery = days.count <= 14 ? 1 : Int((Double(days.count) / 10).rounded(.up))
        for (index, day) in days.enumerated() where index % labelEvery == 0 {
            if days.count <= 14, let weekday = ChartDay.weekday(day.day) {
                labels.append(.text(weekday, x: center(index), y: bottom + 18, [("text-anchor", "middle"), ("fill", Self.mutedFill)]))
                labels.append(.text(ChartDay.dayMonth(day.day), x: center(index), y: bottom + 32, [("text-anchor", "middle"), ("fill", Self.mutedFill)]))
            } else {
                labels.append(.text(ChartDay.dayMonth(day.day), x: center(index), y: bottom + 18, [("text-anchor", "middle"), ("fill", Self.mutedFill)]))
            }
        }
        document.append(.group([("class", "day-labels")], children: labels))

        // Stacked bars, one group per day.
        let barWidth = min(48, slot * 0.6)
        var groups: [SVGElement] = [], totals: [SVGElement] = []
        for (index, day) in days.enumerated() {
            let ml = SVGDocument.number(day.millilitres)
            var children: [SVGElement] = [
                .title("\(day.day): \(day.total) feeds (\(max(0, day.bottle)) bottle, \(max(0, day.nursing)) nursing, \(max(0, day.solids)) solids); \(ml) ml from bottles"),
            ]
            var stacked = 0
            for (kind, count, fill) in [("bottle", day.bottle, Self.bottleFill), ("nursing", day.nursing, Self.nursingFill), ("solids", day.solids, Self.solidsFill)]
            where count > 0 {
                let barTop = yCount(Double(stacked + count)), barBase = yCount(Double(stacked))
                children.append(.rect(x: center(index) - barWidth / 2, y: barTop, width: barWidth, height: barBase - barTop,
                                      [("class", kind), ("fill", fill), ("stroke", "#ffffff"), ("stroke-width", "1")]))
                stacked += count
            }
            if day.total > 0, barWidth >= 12 {
                totals.append(.text("\(day.total)", x: center(index), y: yCount(Double(day.total)) - 5, [("text-anchor", "middle")]))
            }
            groups.append(.group([("class", "day"), ("data-day", day.day)], children: children))
        }
        document.append(.group([("class", "bars")], children: groups))

        // Bottle volume.
        if days.contains(where: { $0.millilitres > 0 }) {
            let points = days.enumerated().map { (x: center($0.offset), y: yMl($0.element.millilitres)) }
            var volume: [SVGElement] = []
            if points.count > 1 {
                volume.append(.polyline(points, [("fill", "none"), ("stroke", Self.volumeStroke), ("stroke-width", "2"), ("stroke-linejoin", "round")]))
            }
            for (day, point) in zip(days, points) {
                volume.append(.circle(cx: point.x, cy: point.y, r: 3, [("fill", Self.volumeStroke), ("stroke", "#ffffff"), ("stroke-width", "1")],
                                      children: [.title("\(day.day): \(SVGDocument.number(day.millilitres)) ml")]))
            }
            document.append(.group([("class", "bottle-ml")], children: volume))
        }

        // Totals above the bars, over the volume line, with a white halo.
        document.append(.group([("class", "totals"), ("font-size", "11"), ("fill", Self.textFill), ("stroke", "#ffffff"),
                                ("stroke-width", "3"), ("paint-order", "stroke")], children: totals))

        // Axes and their titles.
        document.append(.line(x1: left, y1: bottom, x2: right, y2: bottom, [("stroke", Self.axisStroke)]))
        document.append(.line(x1: left, y1: top, x2: left, y2: bottom, [("stroke", Self.axisStroke)]))
        document.append(.line(x1: right, y1: top, x2: right, y2: bottom, [("stroke", Self.volumeStroke)]))
        let midY = (top + bottom) / 2
        document.append(.text("Feeds per day", x: 18, y: midY, [("text-anchor", "middle"), ("fill", Self.textFill),
                                                               ("transform", "rotate(-90 18 \(SVGDocument.number(midY)))")]))
        let rightTitleX = w - 14
        document.append(.text("Bottle (ml)", x: rightTitleX, y: midY, [("text-anchor", "middle"), ("fill", Self.volumeStroke),
                                                                       ("transform", "rotate(90 \(SVGDocument.number(rightTitleX)) \(SVGDocument.number(midY)))")]))

        if !hasData {
            document.append(contentsOf: ChartPlaceholder.noData(x: (left + right) / 2, y: (top + bottom) / 2))
        }
        return document.render()
    }

    var description: String {
        guard let first = days.first, let last = days.last else { return "\(title) per day. No data yet." }
        let noun = days.count == 1 ? "day" : "days"
        var text = "\(title) per day over \(days.count) \(noun), \(first.day) to \(last.day), stacked by type, with bottle volume in ml."
        let total = days.map(\.total).reduce(0, +)
        if total == 0, !days.contains(where: { $0.millilitres > 0 }) {
            text += " No data yet."
        } else {
            let bottle = days.map { max(0, $0.bottle) }.reduce(0, +)
            let nursing = days.map { max(0, $0.nursing) }.reduce(0, +)
            let solids = days.map { max(0, $0.solids) }.reduce(0, +)
            let ml = days.map(\.millilitres).reduce(0, +)
            text += " \(total) feeds in total: \(bottle) bottle, \(nursing) nursing, \(solids) solids; \(SVGDocument.number(ml)) ml from bottles."
        }
        return text
    }
}
