import Foundation

/// A summary's weight-for-age chart as it was when the summary was asked for: the sex the WHO
/// bands are read for and each weight with the child's age that day. It travels in the summary's
/// request and comes back in its result, so the PDF draws what the summary saw, not today's logs.
public struct SummaryGrowthChart: Sendable, Equatable, Codable {
    public struct Point: Sendable, Equatable, Codable {
        public var ageDays: Int
        public var weightKg: Double

        public init(ageDays: Int, weightKg: Double) {
            self.ageDays = ageDays
            self.weightKg = weightKg
        }

        enum CodingKeys: String, CodingKey {
            case ageDays = "age_days"
            case weightKg = "weight_kg"
        }
    }

    public var sex: String
    public var points: [Point]

    public init(sex: GrowthSex, points: [Point]) {
        self.sex = sex.rawValue
        self.points = points.sorted { ($0.ageDays, $0.weightKg) < ($1.ageDays, $1.weightKg) }
    }

    /// The chart for the PDF: the WHO bands from birth to three months past the last weight
    /// (within the standard's range), and the weights. Nil without points or with an unknown sex.
    public func pdfChart(standards: GrowthStandards) -> PDFGrowthChart? {
        guard let sex = GrowthSex(rawValue: sex), !points.isEmpty else { return nil }
        let span = min(GrowthStandards.ageRangeDays.upperBound, (points.map(\.ageDays).max() ?? 0) + 92)
        let bands = standards.bands(.weightForAge, sex: sex, span: span, step: max(1, span / 100))
        return PDFGrowthChart(
            title: "Weight for age (WHO)", unit: "kg", bands: bands, measurements: points.map { GrowthChartPoint(ageDays: $0.ageDays, value: $0.weightKg) })
    }
}
