import Foundation

/// The growth chart of the pediatrician summary, drawn straight into a PDF page.
///
/// It is the SVG `GrowthChart` redrawn with the PDF builder, and deliberately reuses that chart's
/// rules (which curves and measurements are valid, the x range in months, curves cut at its end,
/// the percentile labels, the band colours) so the app and the printout show the same chart:
/// WHO percentile curves paired from the outside in as shaded bands (P3–P97, P15–P85), the middle
/// curve (P50) as a darker line, each curve labelled at its right end, and the child's
/// measurements as dots joined by a line. The y axis title is written above the axis rather than
/// rotated, to keep the writer free of text rotation.
public struct PDFGrowthChart: Sendable {
    public let title: String
    public let unit: String
    public let bands: [GrowthBandCurve]
    public let measurements: [GrowthChartPoint]

    public init(title: String, unit: String, bands: [GrowthBandCurve], measurements: [GrowthChartPoint]) {
        self.title = title
        self.unit = unit
        self.bands = bands
        self.measurements = measurements
    }

    static let textColor = PDFColor(hex: 0x111827)
    static let mutedColor = PDFColor(hex: 0x4B5563)
    static let gridColor = PDFColor(hex: 0xE5E7EB)
    static let axisColor = PDFColor(hex: 0x6B7280)
    static func color(_ css: String) -> PDFColor { PDFColor(hex: css) ?? .black }

    /// Draws the chart in the rectangle with its top-left corner at (`x`, `y`). About 200 × 160 pt
    /// is the smallest that stays legible; the summary uses the full content width.
    public func draw(into document: inout PDFDocumentBuilder, x: Double, y: Double, width: Double, height: Double) {
        let source = GrowthChart(title: title, unit: unit, bands: bands, measurements: measurements)
        let children = source.validMeasurements
        let sourceCurves = source.validCurves
        let months = GrowthChart.maxMonths(measurements: children, curves: sourceCurves)
        let maxDays = Double(months) * GrowthChart.daysPerMonth
        let curves = sourceCurves.map { GrowthChart.cut($0, at: maxDays) }.filter { !$0.points.isEmpty }

        // Title, legend, then the plot; room on the left for value labels, on the right for the
        // P-labels and below for month labels and the axis title.
        document.text(title, x: x, y: y + 11, size: 11, bold: true, color: Self.textColor)
        let left = x + 36, right = x + width - 28, top = y + 46, bottom = y + height - 26
        guard right - left > 20, bottom - top > 20 else { return }

        let values = curves.flatMap { $0.points.map(\.y) } + children.map(\.value)
        var yRange: (lower: Double, upper: Double, step: Double) = (0, 10, 2)
        if let low = values.min(), let high = values.max() {
            let pad = high > low ? (high - low) * 0.05 : max(abs(high) * 0.1, 1)
            yRange = ChartTicks.range(low - pad, high + pad, steps: 6)
            if low >= 0, yRange.lower < 0 { yRange.lower = 0 }
        }
        func px(_ days: Double) -> Double { left + days / maxDays * (right - left) }
        func py(_ value: Double) -> Double {
            bottom - (value - yRange.lower) / (yRange.upper - yRange.lower) * (bottom - top)
        }

        // Grid, ticks and tick labels.
        let monthStep = months <= 12 ? 1 : months <= 36 ? 3 : months <= 72 ? 6 : 12
        for month in stride(from: 0, through: months, by: monthStep) {
            let tx = px(Double(month) * GrowthChart.daysPerMonth)
            document.line(x1: tx, y1: top, x2: tx, y2: bottom, color: Self.gridColor, width: 0.5)
            document.line(x1: tx, y1: bottom, x2: tx, y2: bottom + 3, color: Self.axisColor, width: 0.75)
            document.text("\(month)", x: tx, y: bottom + 11, size: 7.5, color: Self.mutedColor, alignment: .center)
        }
        for value in ChartTicks.values(yRange.lower, yRange.upper, step: yRange.step) {
            let ty = py(value)
            document.line(x1: left, y1: ty, x2: right, y2: ty, color: Self.gridColor, width: 0.5)
            document.line(x1: left - 3, y1: ty, x2: left, y2: ty, color: Self.axisColor, width: 0.75)
            document.text(SVGDocument.number(value), x: left - 5, y: ty + 2.6, size: 7.5, color: Self.mutedColor, alignment: .right)
        }

        // Bands from the outside in, then every curve as a line on top.
        var legend: [(label: String, swatch: Swatch)] = []
        for index in 0..<(curves.count / 2) {
            let lower = curves[index], upper = curves[curves.count - 1 - index]
            let outline = upper.points.map { (px($0.x), py($0.y)) } + lower.points.reversed().map { (px($0.x), py($0.y)) }
            let fill = Self.color(GrowthChart.bandFills[min(index, GrowthChart.bandFills.count - 1)])
            document.polygon(outline, fill: fill)
            legend.append(("\(GrowthChart.percentileLabel(lower.percentile))\u{2013}\(GrowthChart.percentileLabel(upper.percentile))", .box(fill)))
        }
        let medianIndex: Int? = curves.count % 2 == 1 ? curves.count / 2 : nil
        for (index, curve) in curves.enumerated() {
            let points = curve.points.map { (px($0.x), py($0.y)) }
            if index == medianIndex {
                document.polyline(points, color: Self.color(GrowthChart.medianStroke), width: 1.5)
            } else {
                document.polyline(points, color: Self.color(GrowthChart.curveStroke), width: 0.5)
            }
        }
        if let medianIndex {
            let label = GrowthChart.percentileLabel(curves[medianIndex].percentile)
            legend.append((curves[medianIndex].percentile == 50 ? "\(label) (median)" : label, .line(Self.color(GrowthChart.medianStroke))))
        }

        // Curve labels at their right ends, pushed apart (and back inside the plot) so they never
        // overlap; the baseline sits 2.5 pt below the curve's end to centre the 7 pt text on it.
        var labels = curves.map { curve in
            (text: GrowthChart.percentileLabel(curve.percentile), y: py(curve.points.last!.y) + 2.5, x: px(curve.points.last!.x) + 3)
        }
        let order = labels.indices.sorted { (labels[$0].y, $0) < (labels[$1].y, $1) }
        let spacing = 8.0
        var previous = -Double.infinity
        for index in order {
            labels[index].y = max(labels[index].y, previous + spacing)
            previous = labels[index].y
        }
        let overflow = (order.last.map { labels[$0].y } ?? 0) - (bottom + 2.5)
        if overflow > 0 {
            for index in order { labels[index].y -= overflow }
        }
        for label in labels {
            document.text(label.text, x: label.x, y: label.y, size: 7, color: Self.color(GrowthChart.labelFill))
        }

        // The child's measurements.
        let childColor = Self.color(GrowthChart.childStroke)
        if !children.isEmpty {
            let points = children.map { (px(Double($0.ageDays)), py($0.value)) }
            document.polyline(points, color: childColor, width: 1.5)
            for point in points {
                document.circle(x: point.0, y: point.1, radius: 2.4, fill: childColor, stroke: .white, lineWidth: 0.75)
            }
        } else {
            let message = ChartPlaceholder.text
            let boxWidth = PDFDocumentBuilder.textWidth(message, size: 10) + 20
            let (cx, cy) = ((left + right) / 2, (top + bottom) / 2)
            document.rect(x: cx - boxWidth / 2, y: cy - 11, width: boxWidth, height: 20, fill: .white, stroke: PDFColor(hex: 0xD1D5DB), lineWidth: 0.75)
            document.text(message, x: cx, y: cy + 2.5, size: 10, color: Self.axisColor, alignment: .center)
        }
        legend.append(("Measurements", .dot(childColor)))

        // Axes and their titles.
        document.line(x1: left, y1: bottom, x2: right, y2: bottom, color: Self.axisColor, width: 0.75)
        document.line(x1: left, y1: top, x2: left, y2: bottom, color: Self.axisColor, width: 0.75)
        document.text("Age (months)", x: (left + right) / 2, y: bottom + 22, size: 8, color: Self.textColor, alignment: .center)
        document.text(unit, x: left - 5, y: top - 8, size: 8, color: Self.textColor, alignment: .right)

        // The legend row between the title and the plot.
        var cursor = x
        let legendBaseline = y + 26
        for entry in legend {
            let mid = legendBaseline - 2.5
            switch entry.swatch {
            case .box(let fill):
                document.rect(x: cursor, y: mid - 4, width: 12, height: 8, fill: fill, stroke: PDFColor(hex: 0x9CA3AF), lineWidth: 0.4)
            case .line(let color):
                document.line(x1: cursor, y1: mid, x2: cursor + 12, y2: mid, color: color, width: 1.5)
            case .dot(let color):
                document.line(x1: cursor, y1: mid, x2: cursor + 12, y2: mid, color: color, width: 1.5)
                document.circle(x: cursor + 6, y: mid, radius: 2.4, fill: color, stroke: .white, lineWidth: 0.75)
            }
            document.text(entry.label, x: cursor + 16, y: legendBaseline, size: 8, color: PDFColor(hex: 0x374151))
            cursor += 16 + PDFDocumentBuilder.textWidth(entry.label, size: 8) + 12
        }
    }

    enum Swatch {
        case box(PDFColor)
        case line(PDFColor)
        case dot(PDFColor)
    }
}
