import Foundation

/// A stretch of sleep within one calendar day of a `SleepChart`: minutes since that day's
/// midnight, `endMinuteOfDay` up to 1440. Sleep across midnight is split by the caller.
public struct SleepChartInterval: Sendable, Equatable {
    /// Index into the chart's `days`.
    public let dayIndex: Int
    public let startMinuteOfDay: Int
    public let endMinuteOfDay: Int
    public let isNap: Bool

    public init(dayIndex: Int, startMinuteOfDay: Int, endMinuteOfDay: Int, isNap: Bool) {
        self.dayIndex = dayIndex
        self.startMinuteOfDay = startMinuteOfDay
        self.endMinuteOfDay = endMinuteOfDay
        self.isNap = isNap
    }
}

/// A sleep chart as SVG: one row per day over a 24-hour axis, night sleep and naps in two
/// colours, and each day's total sleep at the right of its row.
///
/// `days` are calendar days as `YYYY-MM-DD`, oldest first. Intervals are cut to 0...1440 minutes;
/// empty ones and those for a day not in `days` are ignored. A day's total is the time covered by
/// any of its intervals (overlaps count once), in hours with one decimal ("11.5 h"); a day
/// without intervals shows "–". Without intervals the chart says "No data yet".
public struct SleepChart: Sendable {
    public static let minutesPerDay = 1440

    public let title: String
    public let days: [String]
    public let intervals: [SleepChartInterval]
    public let width: Int

    public init(title: String = "Sleep", days: [String], intervals: [SleepChartInterval], width: Int = 720) {
        self.title = title
        self.days = days
        self.intervals = intervals
        self.width = max(400, width)
    }

    static let nightFill = "#4f46e5"
    static let napFill = "#f59e0b"
    static let gridStroke = "#e5e7eb"
    static let axisStroke = "#6b7280"
    static let textFill = "#111827"
    static let mutedFill = "#4b5563"

    /// The drawable intervals, cut to the day.
    var validIntervals: [SleepChartInterval] {
        intervals.compactMap { interval in
            guard days.indices.contains(interval.dayIndex) else { return nil }
            let start = min(max(interval.startMinuteOfDay, 0), Self.minutesPerDay)
            let end = min(max(interval.endMinuteOfDay, 0), Self.minutesPerDay)
            guard end > start else { return nil }
            return SleepChartInterval(dayIndex: interval.dayIndex, startMinuteOfDay: start, endMinuteOfDay: end, isNap: interval.isNap)
        }
    }

    /// Minutes of sleep per day (overlapping intervals counted once), nil for days without any.
    public func totalMinutes() -> [Int?] {
        var byDay = [[SleepChartInterval]](repeating: [], count: days.count)
        for interval in validIntervals {
            byDay[interval.dayIndex].append(interval)
        }
        return byDay.map { intervals -> Int? in
            guard !intervals.isEmpty else { return nil }
            var total = 0, coveredTo = 0
            for interval in intervals.sorted(by: { ($0.startMinuteOfDay, $0.endMinuteOfDay) < ($1.startMinuteOfDay, $1.endMinuteOfDay) }) {
                let start = max(interval.startMinuteOfDay, coveredTo)
                if interval.endMinuteOfDay > start {
                    total += interval.endMinuteOfDay - start
                    coveredTo = interval.endMinuteOfDay
                }
            }
            return total
        }
    }

    /// "11.5 h" for 690 minutes.
    static func hours(_ minutes: Int) -> String {
        "\(SVGDocument.number(Double(minutes) / 60, maxDecimals: 1)) h"
    }

    static func clock(_ minute: Int) -> String {
        let hours = minute / 60, minutes = minute % 60
        return (hours < 10 ? "0" : "") + "\(hours):" + (minutes < 10 ? "0" : "") + "\(minutes)"
    }

    public func svg() -> String {
        let valid = validIntervals
        let totals = totalMinutes()
        let rowHeight = days.count <= 14 ? 26.0 : 16.0
        let rows = max(days.count, 1)
        let left = 96.0, right = Double(width) - 72, top = 76.0
        let plotHeight = days.isEmpty ? 130 : Double(rows) * rowHeight
        let bottom = top + plotHeight
        let height = Int(bottom + 52)
        func x(_ minute: Int) -> Double { left + Double(minute) / Double(Self.minutesPerDay) * (right - left) }

        var document = SVGDocument(width: width, height: height, title: title, description: description(totals, valid))
        document.append(.text(title, x: 16, y: 28, [("font-size", "18"), ("font-weight", "600"), ("fill", Self.textFill)]))
        document.append(LegendSwatch.legend([("Night sleep", .box(Self.nightFill)), ("Nap", .box(Self.napFill))], x: left, y: 52))

        // Row backgrounds and labels.
        var rowElements: [SVGElement] = []
        for (index, day) in days.enumerated() {
            let rowTop = top + Double(index) * rowHeight
            if index % 2 == 0 {
                rowElements.append(.rect(x: left, y: rowTop, width: right - left, height: rowHeight, [("fill", "#f9fafb")]))
            }
            let label = days.count <= 14 ? ChartDay.long(day) : ChartDay.dayMonth(day)
            rowElements.append(.text(label, x: left - 8, y: rowTop + rowHeight / 2 + 4, [("text-anchor", "end"), ("fill", Self.mutedFill)]))
            let total = totals[index].map(Self.hours) ?? "–"
            rowElements.append(.text(total, x: right + 8, y: rowTop + rowHeight / 2 + 4, [("class", "total"), ("fill", Self.textFill)]))
        }
        if !days.isEmpty {
            rowElements.append(.text("Total", x: right + 8, y: top - 8, [("font-weight", "600"), ("fill", Self.mutedFill)]))
        }
        document.append(.group([("class", "rows")], children: rowElements))

        // Hour grid and ticks: lines every 3 hours, labels every 6.
        var grid: [SVGElement] = []
        for hour in stride(from: 0, through: 24, by: 3) {
            let tx = x(hour * 60)
            let labelled = hour % 6 == 0
            grid.append(.line(x1: tx, y1: top, x2: tx, y2: bottom, [("stroke", labelled ? "#d1d5db" : Self.gridStroke)]))
            if labelled {
                grid.append(.line(x1: tx, y1: bottom, x2: tx, y2: bottom + 5, [("stroke", Self.axisStroke)]))
                grid.append(.text("\(hour)", x: tx, y: bottom + 18, [("text-anchor", "middle"), ("fill", Self.mutedFill)]))
            }
        }
        document.append(.group([("class", "grid")], children: grid))

        // Sleep bars.
        let barInset = rowHeight > 20 ? 4.0 : 2.0
        var bars: [SVGElement] = []
        for interval in valid {
            let rowTop = top + Double(interval.dayIndex) * rowHeight
            let kind = interval.isNap ? "Nap" : "Night sleep"
            let tooltip = "\(days[interval.dayIndex]) \(kind) \(Self.clock(interval.startMinuteOfDay))–\(Self.clock(interval.endMinuteOfDay))"
            bars.append(.rect(x: x(interval.startMinuteOfDay), y: rowTop + barInset,
                              width: x(interval.endMinuteOfDay) - x(interval.startMinuteOfDay), height: rowHeight - 2 * barInset,
                              [("class", interval.isNap ? "nap" : "night"), ("rx", "2"), ("fill", interval.isNap ? Self.napFill : Self.nightFill)],
                              children: [.title(tooltip)]))
        }
        document.append(.group([("class", "sleep")], children: bars))

        // Axes.
        document.append(.line(x1: left, y1: bottom, x2: right, y2: bottom, [("stroke", Self.axisStroke)]))
        document.append(.line(x1: left, y1: top, x2: left, y2: bottom, [("stroke", Self.axisStroke)]))
        document.append(.text("Hour of day", x: (left + right) / 2, y: bottom + 38, [("text-anchor", "middle"), ("fill", Self.textFill)]))

        if valid.isEmpty {
            document.append(contentsOf: ChartPlaceholder.noData(x: (left + right) / 2, y: (top + bottom) / 2))
        }
        return document.render()
    }

    func description(_ totals: [Int?], _ valid: [SleepChartInterval]) -> String {
        guard let first = days.first, let last = days.last else { return "\(title) per day. No data yet." }
        let noun = days.count == 1 ? "day" : "days"
        var text = "\(title) per day over \(days.count) \(noun), \(first) to \(last); night sleep and naps on a 24-hour axis."
        let logged = totals.compactMap { $0 }
        if logged.isEmpty {
            text += " No data yet."
        } else {
            let average = Int((Double(logged.reduce(0, +)) / Double(logged.count)).rounded())
            let naps = valid.filter(\.isNap).count
            text += " Average \(Self.hours(average)) over \(logged.count) logged \(logged.count == 1 ? "day" : "days"); \(naps) \(naps == 1 ? "nap" : "naps")."
        }
        return text
    }
}
