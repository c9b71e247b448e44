import Foundation

/// A point of a growth curve or a measurement: age in days since birth and a value in the
/// chart's unit.
public struct GrowthChartPoint: Sendable, Equatable {
    public let ageDays: Int
    public let value: Double

    public init(ageDays: Int, value: Double) {
        self.ageDays = ageDays
        self.value = value
    }
}

/// One percentile curve of a growth standard (e.g. WHO weight-for-age P15), computed elsewhere.
public struct GrowthBandCurve: Sendable, Equatable {
    public let percentile: Double
    public let points: [GrowthChartPoint]

    public init(percentile: Double, points: [GrowthChartPoint]) {
        self.percentile = percentile
        self.points = points
    }
}

/// A growth chart as SVG: percentile bands of a standard and a child's measurements by age.
///
/// Curves are paired from the outside in (P3 with P97, P15 with P85, …) and each pair is drawn as
/// a shaded band, the inner ones darker; an unpaired middle curve (P50) is drawn as a line. Every
/// curve is labelled at its right end ("P3", "P15", …). The child's measurements are dots joined by
/// a line. The x axis is age in months (of 30.4375 days, as in the WHO tables), from birth to
/// the last measurement plus half a month rounded up to a multiple of three months; curves are cut
/// there. The y axis covers the curves and measurements with some padding. Without measurements
/// the chart says "No data yet" (bands are still drawn when given).
public struct GrowthChart: Sendable {
    public static let daysPerMonth = 30.4375

    public let title: String
    public let unit: String
    public let bands: [GrowthBandCurve]
    public let measurements: [GrowthChartPoint]
    public let width: Int
    public let height: Int

    public init(title: String, unit: String, bands: [GrowthBandCurve], measurements: [GrowthChartPoint],
                width: Int = 720, height: Int = 480) {
        self.title = title
        self.unit = unit
        self.bands = bands
        self.measurements = measurements
        self.width = max(360, width)
        self.height = max(280, height)
    }

    static let bandFills = ["#dbeafe", "#bfdbfe", "#93c5fd", "#60a5fa"]
    static let curveStroke = "#60a5fa"
    static let medianStroke = "#1d4ed8"
    static let labelFill = "#1e40af"
    static let childStroke = "#ea580c"
    static let gridStroke = "#e5e7eb"
    static let axisStroke = "#6b7280"
    static let textFill = "#111827"
    static let mutedFill = "#4b5563"

    /// A curve cut to the x range, with ages as fractional days.
    struct Curve {
        var percentile: Double
        var points: [(x: Double, y: Double)]
    }

    /// The child's measurements that can be drawn, by age.
    var validMeasurements: [GrowthChartPoint] {
        measurements.filter { $0.ageDays >= 0 && $0.value.isFinite }
            .sorted { ($0.ageDays, $0.value) < ($1.ageDays, $1.value) }
    }

    /// The curves that can be drawn, by percentile, each sorted by age.
    var validCurves: [GrowthBandCurve] {
        bands.enumerated()
            .filter { $0.element.percentile.isFinite }
            .sorted { ($0.element.percentile, $0.offset) < ($1.element.percentile, $1.offset) }
            .map { entry in
                GrowthBandCurve(percentile: entry.element.percentile,
                                points: entry.element.points.filter { $0.ageDays >= 0 && $0.value.isFinite }
                                    .sorted { ($0.ageDays, $0.value) < ($1.ageDays, $1.value) })
            }
            .filter { !$0.points.isEmpty }
    }

    /// The last month on the x axis: a multiple of three, at least 3.
    static func maxMonths(measurements: [GrowthChartPoint], curves: [GrowthBandCurve]) -> Int {
        let months: Double
        if let last = measurements.map(\.ageDays).max() {
            months = Double(last) / daysPerMonth + 0.5
        } else if let last = curves.flatMap({ $0.points.map(\.ageDays) }).max() {
            months = Double(last) / daysPerMonth - 0.01
        } else {
            months = 12
        }
        return max(3, Int((months / 3).rounded(.up)) * 3)
    }

    /// `curve` up to `maxDays`, with a point interpolated at `maxDays` where it goes on beyond.
    static func cut(_ curve: GrowthBandCurve, at maxDays: Double) -> Curve {
        var points: [(x: Double, y: Double)] = []
        for point in curve.points {
            let x = Double(point.ageDays)
            if x <= maxDays {
                points.append((x, point.value))
            } else {
                if let previous = points.last, previous.x < maxDays {
                    let t = (maxDays - previous.x) / (x - previous.x)
                    points.append((maxDays, previous.y + t * (point.value - previous.y)))
                }
                break
            }
        }
        return Curve(percentile: curve.percentile, points: points)
    }

    static func percentileLabel(_ percentile: Double) -> String {
        "P" + SVGDocument.number(percentile)
    }

    public func svg() -> String {
        let children = validMeasurements
        let sourceCurves = validCurves
        let months = Self.maxMonths(measurements: children, curves: sourceCurves)
        let maxDays = Double(months) * Self.daysPerMonth
        let curves = sourceCurves.map { Self.cut($0, at: maxDays) }.filter { !$0.points.isEmpty }

        // Plot area and scales.
        let (w, h) = (Double(width), Double(height))
        let left = 64.0, right = w - 48, top = 76.0, bottom = h - 52
        let values = curves.flatMap { $0.points.map(\.y) } + children.map(\.value)
        let yRange: (lower: Double, upper: Double, step: Double)
        if let low = values.min(), let high = values.max() {
            let pad = high > low ? (high - low) * 0.05 : max(abs(high) * 0.1, 1)
            var range = ChartTicks.range(low - pad, high + pad, steps: 6)
            if low >= 0, range.lower < 0 { range.lower = 0 }
            yRange = range
        } else {
            yRange = (0, 10, 2)
        }
        func x(_ days: Double) -> Double { left + days / maxDays * (right - left) }
        func y(_ value: Double) -> Double { bottom - (value - yRange.lower) / (yRange.upper - yRange.lower) * (bottom - top) }

        var document = SVGDocument(width: width, height: height, title: title, description: description(children, curves, months))
        document.append(.text(title, x: 16, y: 28, [("font-size", "18"), ("font-weight", "600"), ("fill", Self.textFill)]))

        // Grid, ticks and tick labels.
        var grid: [SVGElement] = []
        let monthStep = months <= 12 ? 1 : months <= 36 ? 3 : months <= 72 ? 6 : 12
        for month in stride(from: 0, through: months, by: monthStep) {
            let tx = x(Double(month) * Self.daysPerMonth)
            grid.append(.line(x1: tx, y1: top, x2: tx, y2: bottom, [("stroke", Self.gridStroke)]))
            grid.append(.line(x1: tx, y1: bottom, x2: tx, y2: bottom + 5, [("stroke", Self.axisStroke)]))
            grid.append(.text("\(month)", x: tx, y: bottom + 18, [("text-anchor", "middle"), ("fill", Self.mutedFill)]))
        }
        for value in ChartTicks.values(yRange.lower, yRange.upper, step: yRange.step) {
            let ty = y(value)
            grid.append(.line(x1: left, y1: ty, x2: right, y2: ty, [("stroke", Self.gridStroke)]))
            grid.append(.line(x1: left - 5, y1: ty, x2: left, y2: ty, [("stroke", Self.axisStroke)]))
            grid.append(.text(SVGDocument.number(value), x: left - 8, y: ty + 4, [("text-anchor", "end"), ("fill", Self.mutedFill)]))
        }
        document.append(.group([("class", "grid")], children: grid))

        // Bands, from the outside in, and the curves themselves.
        var bandElements: [SVGElement] = []
        var legend: [(label: String, swatch: LegendSwatch)] = []
        for index in 0..<(curves.count / 2) {
            let lower = curves[index], upper = curves[curves.count - 1 - index]
            let outline = upper.points.map { (x: x($0.x), y: y($0.y)) } + lower.points.reversed().map { (x: x($0.x), y: y($0.y)) }
            let fill = Self.bandFills[min(index, Self.bandFills.count - 1)]
            bandElements.append(.path(SVGDocument.pathData(outline, closed: true), [("class", "band"), ("fill", fill), ("stroke", "none")]))
            legend.append(("\(Self.percentileLabel(lower.percentile))–\(Self.percentileLabel(upper.percentile))", .box(fill)))
        }
        let medianIndex: Int? = curves.count % 2 == 1 ? curves.count / 2 : nil
        for (index, curve) in curves.enumerated() {
            let points = curve.points.map { (x: x($0.x), y: y($0.y)) }
            if index == medianIndex {
                bandElements.append(.polyline(points, [("class", "median"), ("fill", "none"), ("stroke", Self.medianStroke), ("stroke-width", "2")]))
            } else {
                bandElements.append(.polyline(points, [("fill", "none"), ("stroke", Self.curveStroke), ("stroke-width", "0.75")]))
            }
        }
        if let medianIndex {
            let label = Self.percentileLabel(curves[medianIndex].percentile)
            legend.append((curves[medianIndex].percentile == 50 ? "\(label) (median)" : label, .line(Self.medianStroke)))
        }
        document.append(.group([("class", "bands")], children: bandElements))

        // Curve labels at their right ends, spread apart so they never overlap.
        var labels = curves.map { curve in
            (text: Self.percentileLabel(curve.percentile), x: x(curve.points.last!.x) + 5, y: y(curve.points.last!.y) + 4)
        }
        let order = labels.indices.sorted { (labels[$0].y, $0) < (labels[$1].y, $1) }
        let spacing = 12.0
        var previous = -Double.infinity
        for index in order {
            labels[index].y = max(labels[index].y, previous + spacing)
            previous = labels[index].y
        }
        let overflow = (order.last.map { labels[$0].y } ?? 0) - (bottom + 4)
        if overflow > 0 {
            for index in order { labels[index].y -= overflow }
        }
        document.append(.group([("class", "band-labels"), ("font-size", "11"), ("fill", Self.labelFill)],
                               children: labels.map { .text($0.text, x: $0.x, y: $0.y, [("class", "band-label")]) }))

        // The child's measurements.
        if !children.isEmpty {
            let points = children.map { (x: x(Double($0.ageDays)), y: y($0.value)) }
            var elements: [SVGElement] = []
            if points.count > 1 {
                elements.append(.polyline(points, [("fill", "none"), ("stroke", Self.childStroke), ("stroke-width", "2"), ("stroke-linejoin", "round")]))
            }
            for (measurement, point) in zip(children, points) {
                let months = SVGDocument.number(Double(measurement.ageDays) / Self.daysPerMonth, maxDecimals: 1)
                let tooltip = "Day \(measurement.ageDays) (\(months) months): \(SVGDocument.number(measurement.value)) \(unit)"
                elements.append(.circle(cx: point.x, cy: point.y, r: 4, [("class", "measurement"), ("fill", Self.childStroke), ("stroke", "#ffffff"), ("stroke-width", "1.5")],
                                        children: [.title(tooltip)]))
            }
            document.append(.group([("class", "measurements")], children: elements))
        } else {
            document.append(contentsOf: ChartPlaceholder.noData(x: (left + right) / 2, y: (top + bottom) / 2))
        }
        legend.append(("Measurements", .lineWithDot(Self.childStroke)))

        // Axes and their titles.
        document.append(.line(x1: left, y1: bottom, x2: right, y2: bottom, [("stroke", Self.axisStroke)]))
        document.append(.line(x1: left, y1: top, x2: left, y2: bottom, [("stroke", Self.axisStroke)]))
        document.append(.text("Age (months)", x: (left + right) / 2, y: h - 14, [("text-anchor", "middle"), ("fill", Self.textFill)]))
        let midY = (top + bottom) / 2
        document.append(.text(unit, x: 18, y: midY, [("text-anchor", "middle"), ("fill", Self.textFill),
                                                     ("transform", "rotate(-90 18 \(SVGDocument.number(midY)))")]))

        document.append(LegendSwatch.legend(legend, x: left, y: 52))
        return document.render()
    }

    func description(_ children: [GrowthChartPoint], _ curves: [Curve], _ months: Int) -> String {
        var text = "\(title) in \(unit) by age in months, from birth to \(months) months."
        if let first = curves.first, let last = curves.last, curves.count > 1 {
            text += " Shaded percentile bands from \(Self.percentileLabel(first.percentile)) to \(Self.percentileLabel(last.percentile))."
        }
        if let latest = children.last {
            let noun = children.count == 1 ? "measurement" : "measurements"
            let months = SVGDocument.number(Double(latest.ageDays) / Self.daysPerMonth, maxDecimals: 1)
            text += " \(children.count) \(noun); latest \(SVGDocument.number(latest.value)) \(unit) at day \(latest.ageDays) (\(months) months)."
        } else {
            text += " No data yet."
        }
        return text
    }
}

/// How a legend entry is drawn.
enum LegendSwatch {
    case box(String)
    case line(String)
    case lineWithDot(String)

    /// A legend row starting at (`x`, `y`), `y` being the text baseline.
    static func legend(_ entries: [(label: String, swatch: LegendSwatch)], x: Double, y: Double) -> SVGElement {
        var children: [SVGElement] = []
        var cursor = x
        for entry in entries {
            let mid = y - 4
            switch entry.swatch {
            case .box(let fill):
                children.append(.rect(x: cursor, y: mid - 6, width: 16, height: 12, [("fill", fill), ("stroke", "#9ca3af"), ("stroke-width", "0.5")]))
            case .line(let stroke):
                children.append(.line(x1: cursor, y1: mid, x2: cursor + 16, y2: mid, [("stroke", stroke), ("stroke-width", "2")]))
            case .lineWithDot(let stroke):
                children.append(.line(x1: cursor, y1: mid, x2: cursor + 16, y2: mid, [("stroke", stroke), ("stroke-width", "2")]))
                // A round rect, not a circle, so circles stay the data points.
                children.append(.rect(x: cursor + 4, y: mid - 4, width: 8, height: 8, [("rx", "4"), ("fill", stroke), ("stroke", "#ffffff"), ("stroke-width", "1")]))
            }
            children.append(.text(entry.label, x: cursor + 22, y: y, [("fill", "#374151")]))
            cursor += 22 + SVGDocument.estimatedTextWidth(entry.label) + 18
        }
        return .group([("class", "legend")], children: children)
    }
}

/// The "No data yet" label shown on charts without data.
enum ChartPlaceholder {
    static let text = "No data yet"

    static func noData(x: Double, y: Double) -> [SVGElement] {
        let width = SVGDocument.estimatedTextWidth(text, fontSize: 14) + 28
        return [
            .rect(x: x - width / 2, y: y - 18, width: width, height: 30, [("rx", "6"), ("fill", "#ffffff"), ("fill-opacity", "0.85"), ("stroke", "#d1d5db")]),
            .text(text, x: x, y: y + 2, [("class", "no-data"), ("text-anchor", "middle"), ("font-size", "14"), ("fill", "#6b7280")]),
        ]
    }
}
