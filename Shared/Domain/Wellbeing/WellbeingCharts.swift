import Foundation

/// The wellbeing charts as SVG, drawn with `SVGDocument` like the tracking charts.
///
/// Urge levels are always drawn on their fixed 0–10 scale, so a calm fortnight does not look as
/// steep as a hard one. A day without a check-in is a gap in the line, never a zero: zero is a
/// real answer ("no urge at all") and must not be confused with "did not check in".
public enum WellbeingCharts {
    static let urgeStroke = "#7c3aed"
    static let averageStroke = "#6b7280"
    static let checkInFill = "#93c5fd"
    static let gridStroke = "#e5e7eb"
    static let axisStroke = "#6b7280"
    static let textFill = "#111827"
    static let mutedFill = "#4b5563"

    /// The average urge per day as a line with a dot per day that has check-ins, broken at days
    /// without, over a dashed line at the average of the whole range. `days` are oldest first;
    /// each is one `<g class="day">` group with a tooltip.
    public static func cravingTrend(_ days: [DayUrge], title: String = "Urge level by day", width: Int = 720, height: Int = 360) -> String {
        let width = max(400, width), height = max(260, height)
        let (w, h) = (Double(width), Double(height))
        let left = 56.0, right = w - 24, top = 72.0, bottom = h - 56
        func y(_ urge: Double) -> Double { bottom - min(max(urge, 0), 10) / 10 * (bottom - top) }
        let slot = (right - left) / Double(max(days.count, 1))
        func center(_ index: Int) -> Double { left + slot * (Double(index) + 0.5) }
        let average = rangeAverage(days)

        var document = SVGDocument(width: width, height: height, title: title, description: trendDescription(days, title: title))
        document.append(.text(title, x: 16, y: 28, [("font-size", "18"), ("font-weight", "600"), ("fill", textFill)]))
        document.append(LegendSwatch.legend([("Average urge per day (0 to 10)", .lineWithDot(urgeStroke))], x: left, y: 52))
        document.append(urgeGrid(left: left, right: right, labelX: left - 8, anchor: "end", y: y))
        document.append(dayLabels(days.map(\.day), center: center, bottom: bottom))

        if let average {
            let averageY = y(average)
            document.append(.group([("class", "range-average")], children: [
                .line(x1: left, y1: averageY, x2: right, y2: averageY, [("stroke", averageStroke), ("stroke-width", "1.5"), ("stroke-dasharray", "6 4")]),
                .text("Average \(SVGDocument.number(average, maxDecimals: 1))", x: right - 4, y: averageY - 6,
                      [("text-anchor", "end"), ("fill", averageStroke), ("font-size", "11")]),
            ]))
        }

        document.append(urgeLine(days, center: center, y: y))
        document.append(contentsOf: axes(left: left, right: right, top: top, bottom: bottom, rightStroke: nil))
        let midY = (top + bottom) / 2
        document.append(.text("Urge (0 to 10)", x: 16, y: midY, [("text-anchor", "middle"), ("fill", textFill),
                                                                  ("transform", "rotate(-90 16 \(SVGDocument.number(midY)))")]))
        if average == nil {
            document.append(contentsOf: ChartPlaceholder.noData(x: (left + right) / 2, y: midY))
        }
        return document.render()
    }

    /// A week as bars of check-ins per day (left axis) with the average urge per day as a line on
    /// a fixed 0–10 axis at the right, broken at days without check-ins.
    public static func weeklySummary(_ figures: WeeklyFigures, width: Int = 720, height: Int = 400) -> String {
        let width = max(400, width), height = max(280, height)
        let (w, h) = (Double(width), Double(height))
        let left = 56.0, right = w - 64, top = 76.0, bottom = h - 60
        let days = figures.days.isEmpty ? emptyWeek(figures.weekStart) : figures.days

        let maxCount = Double(days.map(\.checkIns).max() ?? 0)
        let countStep = ChartTicks.niceIntegerStep(max(maxCount, 4) / 4)
        let steps = max(1, Int(((max(maxCount, 3) + 0.5) / countStep).rounded(.up)))
        let countUpper = Double(steps) * countStep
        func yCount(_ count: Double) -> Double { bottom - count / countUpper * (bottom - top) }
        func yUrge(_ urge: Double) -> Double { bottom - min(max(urge, 0), 10) / 10 * (bottom - top) }
        let slot = (right - left) / Double(max(days.count, 1))
        func center(_ index: Int) -> Double { left + slot * (Double(index) + 0.5) }

        let title = "Week of \(ChartDay.dayMonth(figures.weekStart))"
        var document = SVGDocument(width: width, height: height, title: title, description: weekDescription(figures, days: days))
        document.append(.text(title, x: 16, y: 28, [("font-size", "18"), ("font-weight", "600"), ("fill", textFill)]))
        document.append(LegendSwatch.legend([("Check-ins", .box(checkInFill)), ("Average urge (right axis, 0 to 10)", .lineWithDot(urgeStroke))],
                                            x: left, y: 52))

        var grid: [SVGElement] = []
        for step in 0...steps {
            let ty = yCount(Double(step) * countStep)
            grid.append(.line(x1: left, y1: ty, x2: right, y2: ty, [("stroke", gridStroke)]))
            grid.append(.text(SVGDocument.number(Double(step) * countStep), x: left - 8, y: ty + 4, [("text-anchor", "end"), ("fill", mutedFill)]))
        }
        for urge in stride(from: 0.0, through: 10, by: 2) {
            grid.append(.text(SVGDocument.number(urge), x: right + 8, y: yUrge(urge) + 4, [("fill", urgeStroke)]))
        }
        document.append(.group([("class", "grid")], children: grid))
        document.append(dayLabels(days.map(\.day), center: center, bottom: bottom))

        let barWidth = min(48, slot * 0.6)
        var bars: [SVGElement] = [], totals: [SVGElement] = []
        for (index, day) in days.enumerated() {
            var children: [SVGElement] = [.title(tooltip(day))]
            if day.checkIns > 0 {
                let barTop = yCount(Double(day.checkIns))
                children.append(.rect(x: center(index) - barWidth / 2, y: barTop, width: barWidth, height: bottom - barTop,
                                      [("class", "check-ins"), ("fill", checkInFill)]))
                totals.append(.text("\(day.checkIns)", x: center(index), y: barTop - 5, [("text-anchor", "middle"), ("data-day", day.day)]))
            }
            bars.append(.group([("class", "day"), ("data-day", day.day)], children: children))
        }
        document.append(.group([("class", "bars")], children: bars))
        document.append(urgeLine(days, center: center, y: yUrge, tooltips: false))
        // Counts go over the urge line, with a white halo, as on the feeds chart.
        document.append(.group([("class", "totals"), ("font-size", "11"), ("fill", textFill), ("stroke", "#ffffff"),
                                ("stroke-width", "3"), ("paint-order", "stroke")], children: totals))

        document.append(contentsOf: axes(left: left, right: right, top: top, bottom: bottom, rightStroke: urgeStroke))
        let midY = (top + bottom) / 2
        document.append(.text("Check-ins", x: 16, y: midY, [("text-anchor", "middle"), ("fill", textFill),
                                                             ("transform", "rotate(-90 16 \(SVGDocument.number(midY)))")]))
        let rightTitleX = w - 14
        document.append(.text("Urge (0 to 10)", x: rightTitleX, y: midY, [("text-anchor", "middle"), ("fill", urgeStroke),
                                                                          ("transform", "rotate(90 \(SVGDocument.number(rightTitleX)) \(SVGDocument.number(midY)))")]))
        if !days.contains(where: { $0.checkIns > 0 }) {
            document.append(contentsOf: ChartPlaceholder.noData(x: (left + right) / 2, y: midY))
        }
        return document.render()
    }

    // MARK: Parts

    /// Grid lines and labels at 0, 2, … 10.
    static func urgeGrid(left: Double, right: Double, labelX: Double, anchor: String, y: (Double) -> Double) -> SVGElement {
        var grid: [SVGElement] = []
        for urge in stride(from: 0.0, through: 10, by: 2) {
            grid.append(.line(x1: left, y1: y(urge), x2: right, y2: y(urge), [("stroke", gridStroke)]))
            grid.append(.text(SVGDocument.number(urge), x: labelX, y: y(urge) + 4, [("text-anchor", anchor), ("fill", mutedFill)]))
        }
        return .group([("class", "grid")], children: grid)
    }

    /// Weekday and date for up to two weeks, else a date on every few days.
    static func dayLabels(_ days: [String], center: (Int) -> Double, bottom: Double) -> SVGElement {
        var labels: [SVGElement] = []
        let every = days.count <= 14 ? 1 : Int((Double(days.count) / 10).rounded(.up))
        for (index, day) in days.enumerated() where index % every == 0 {
            if days.count <= 14, let weekday = ChartDay.weekday(day) {
                labels.append(.text(weekday, x: center(index), y: bottom + 18, [("text-anchor", "middle"), ("fill", mutedFill)]))
                labels.append(.text(ChartDay.dayMonth(day), x: center(index), y: bottom + 32, [("text-anchor", "middle"), ("fill", mutedFill)]))
            } else {
                labels.append(.text(ChartDay.dayMonth(day), x: center(index), y: bottom + 18, [("text-anchor", "middle"), ("fill", mutedFill)]))
            }
        }
        return .group([("class", "day-labels")], children: labels)
    }

    /// One polyline per run of consecutive days with check-ins (a lone day is just its dot), and
    /// a dot per such day. With `tooltips`, every day (gaps included) is a `<g class="day">`
    /// group carrying its tooltip and dot.
    static func urgeLine(_ days: [DayUrge], center: (Int) -> Double, y: (Double) -> Double, tooltips: Bool = true) -> SVGElement {
        var children: [SVGElement] = []
        var run: [(x: Double, y: Double)] = []
        func flush() {
            if run.count > 1 {
                children.append(.polyline(run, [("class", "urge-line"), ("fill", "none"), ("stroke", urgeStroke), ("stroke-width", "2"),
                                                ("stroke-linejoin", "round")]))
            }
            run = []
        }
        for (index, day) in days.enumerated() {
            if let urge = day.averageUrge {
                run.append((x: center(index), y: y(urge)))
            } else {
                flush()
            }
        }
        flush()
        for (index, day) in days.enumerated() {
            var dot: [SVGElement] = []
            if let urge = day.averageUrge {
                dot.append(.circle(cx: center(index), cy: y(urge), r: 3.5,
                                   [("class", "urge-point"), ("data-day", day.day), ("fill", urgeStroke), ("stroke", "#ffffff"), ("stroke-width", "1")],
                                   children: tooltips ? [] : [.title(tooltip(day))]))
            }
            if tooltips {
                let kind = day.averageUrge == nil ? "day no-check-in" : "day"
                children.append(.group([("class", kind), ("data-day", day.day)], children: [.title(tooltip(day))] + dot))
            } else {
                children += dot
            }
        }
        return .group([("class", "urge")], children: children)
    }

    static func axes(left: Double, right: Double, top: Double, bottom: Double, rightStroke: String?) -> [SVGElement] {
        var lines: [SVGElement] = [
            .line(x1: left, y1: bottom, x2: right, y2: bottom, [("stroke", axisStroke)]),
            .line(x1: left, y1: top, x2: left, y2: bottom, [("stroke", axisStroke)]),
        ]
        if let rightStroke {
            lines.append(.line(x1: right, y1: top, x2: right, y2: bottom, [("stroke", rightStroke)]))
        }
        return lines
    }

    static func tooltip(_ day: DayUrge) -> String {
        guard let urge = day.averageUrge else { return "\(day.day): no check-in" }
        let noun = day.checkIns == 1 ? "check-in" : "check-ins"
        return "\(day.day): average urge \(SVGDocument.number(urge, maxDecimals: 1)) from \(day.checkIns) \(noun)"
    }

    /// The mean urge of every check-in in `days`, rounded half up to one decimal; nil without any.
    static func rangeAverage(_ days: [DayUrge]) -> Double? {
        WellbeingClock.tenths(sum: days.map(\.urgeTotal).reduce(0, +), count: days.map(\.checkIns).reduce(0, +))
    }

    static func trendDescription(_ days: [DayUrge], title: String) -> String {
        guard let first = days.first, let last = days.last else { return "\(title). No days to show." }
        let noun = days.count == 1 ? "day" : "days"
        var text = "Average urge level per day on a 0 to 10 scale over \(days.count) \(noun), \(first.day) to \(last.day)."
        let checkIns = days.map(\.checkIns).reduce(0, +)
        guard let average = rangeAverage(days) else { return text + " No check-ins yet." }
        text += " Average over the range: \(SVGDocument.number(average, maxDecimals: 1)), from \(checkIns) \(checkIns == 1 ? "check-in" : "check-ins")."
        let gaps = days.filter { $0.averageUrge == nil }.count
        if gaps == 1 {
            text += " 1 day without a check-in is left as a gap."
        } else if gaps > 1 {
            text += " \(gaps) days without a check-in are left as gaps."
        }
        return text
    }

    static func weekDescription(_ figures: WeeklyFigures, days: [DayUrge]) -> String {
        let end = figures.weekEnd ?? days.last?.day ?? figures.weekStart
        var text = "Check-ins per day (bars) and average urge level per day (line, 0 to 10 scale) for the week of \(figures.weekStart) to \(end)"
        guard figures.checkIns > 0 else { return text + ": no check-ins this week." }
        let checkInNoun = figures.checkIns == 1 ? "check-in" : "check-ins"
        let dayNoun = figures.daysWithCheckIn == 1 ? "day" : "days"
        text += ": \(figures.checkIns) \(checkInNoun) on \(figures.daysWithCheckIn) \(dayNoun)"
        if let urge = figures.averageUrge { text += ", average urge \(SVGDocument.number(urge, maxDecimals: 1))" }
        if let mood = figures.averageMood { text += ", average mood \(SVGDocument.number(mood, maxDecimals: 1))" }
        return text + "."
    }

    /// Seven empty days from `weekStart`'s Monday, for figures built without their days.
    static func emptyWeek(_ weekStart: String) -> [DayUrge] {
        guard let day = WellbeingClock.parse(weekStart) else { return [] }
        let monday = WellbeingClock.monday(of: day)
        return (monday..<(monday + 7)).map { DayUrge(day: WellbeingClock.string($0), checkIns: 0, urgeTotal: 0) }
    }
}
