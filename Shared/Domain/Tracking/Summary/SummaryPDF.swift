import Foundation

/// The pediatrician summary as a one-to-two-page PDF: title, child and range, the metrics as
/// tables (a section without data is left out, as in the metrics), the growth chart, the
/// narrative, the parent's notes and the disclaimer.
public struct SummaryPDF: Sendable {
    public var childName: String
    public var from: String
    public var to: String
    public var metrics: SummaryMetrics
    public var narrative: SummaryNarrative
    public var parentNotes: String?
    /// The weight chart with the WHO bands, when the child's sex and birth date are known.
    public var growthChart: PDFGrowthChart?

    public init(
        childName: String, from: String, to: String, metrics: SummaryMetrics, narrative: SummaryNarrative, parentNotes: String?,
        growthChart: PDFGrowthChart?
    ) {
        self.childName = childName
        self.from = from
        self.to = to
        self.metrics = metrics
        self.narrative = narrative
        self.parentNotes = parentNotes
        self.growthChart = growthChart
    }

    public func data() -> Data {
        let n = SummaryNumber.text
        let opt = { (value: Double?) in value.map(n) ?? "–" }
        var layout = PDFPageLayout(document: PDFDocumentBuilder(title: "Pediatrician summary: \(childName)"))
        layout.heading("Pediatrician summary: \(childName)", size: 18)
        layout.paragraph("\(from) to \(to) (\(metrics.days) days), from the family's logs in Hearth.", size: 10, color: .gray)
        layout.space(4)

        var rows: [[String]] = []
        if let sleep = metrics.sleep {
            rows += [
                ["Sleep", "Total sleep per day", "\(n(sleep.totalSleepHoursPerDay)) h"],
                ["", "Naps per day (average nap)", "\(n(sleep.napsPerDay)) (\(opt(sleep.averageNapMinutes)) min)"],
                ["", "Longest stretch", "\(n(sleep.longestStretchMinutes)) min"],
                ["", "Naps in all", "\(sleep.totalNaps)"],
            ]
        }
        if let feeding = metrics.feeding {
            rows += [
                ["Feeding", "Feeds per day (in all)", "\(n(feeding.feedsPerDay)) (\(feeding.totalFeeds))"],
                ["", "Average interval", "\(opt(feeding.averageIntervalMinutes)) min"],
                ["", "Average bottle", "\(opt(feeding.averageBottleMl)) ml"],
                ["", "Average nursing", "\(opt(feeding.averageNursingMinutes)) min"],
            ]
        }
        if let diapers = metrics.diapers {
            rows += [["Diapers", "Changes per day (wet, dirty in all)", "\(n(diapers.changesPerDay)) (\(diapers.wet), \(diapers.dirty))"]]
        }
        if let foods = metrics.foods {
            rows += [["Foods", "New foods", foods.newFoods.isEmpty ? "–" : foods.newFoods.joined(separator: ", ")]]
            if !foods.allergenExposures.isEmpty {
                rows += [["", "Allergen exposures", foods.allergenExposures.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")]]
            }
            for reaction in foods.reactions { rows += [["", "Reaction", "\(reaction.food): \(reaction.reaction) (\(reaction.day))"]] }
        }
        if let medication = metrics.medication {
            rows += [["Medication", "Doses per day (in all)", "\(n(medication.dosesPerDay)) (\(medication.totalDoses))"],
                     ["", "Medicines", medication.names.joined(separator: ", ")]]
        }
        if let growth = metrics.growth {
            for (label, unit, measure) in [("Weight", "kg", growth.weightKg), ("Length", "cm", growth.lengthCm)] {
                guard let measure else { continue }
                let percentile = measure.endPercentile.map { ", P\(n($0))" } ?? ""
                rows += [["Growth", label, "\(n(measure.start)) to \(n(measure.end)) \(unit) (\(n(measure.change)))\(percentile)"]]
            }
        }
        layout.heading("Metrics", size: 13)
        if rows.isEmpty {
            layout.paragraph("Nothing was logged in this range.")
        } else {
            layout.table(header: ["", "Measure", "Value"], rows: rows, columnFractions: [0.18, 0.42, 0.40])
        }

        if let chart = growthChart {
            layout.heading("Growth", size: 13, keepWithNext: 230)
            let top = layout.reserve(220)
            chart.draw(into: &layout.document, x: layout.left, y: top, width: layout.contentWidth, height: 210)
            layout.space(6)
        }

        layout.heading("Summary", size: 13)
        for paragraph in narrative.paragraphs { layout.paragraph(paragraph) }
        layout.heading("Highlights", size: 12)
        for highlight in narrative.highlights { layout.bullet(highlight) }
        if !narrative.concerns.isEmpty {
            layout.heading("To ask your pediatrician", size: 12)
            for concern in narrative.concerns { layout.bullet(concern) }
        }
        if let parentNotes, !parentNotes.isEmpty {
            layout.heading("Parent notes", size: 12)
            layout.paragraph(parentNotes)
        }
        layout.space(6)
        layout.paragraph(narrative.disclaimer, size: 8.5, color: .gray)
        layout.addFooters { page, count in "\(childName): pediatrician summary, page \(page) of \(count)" }
        return layout.data()
    }
}
