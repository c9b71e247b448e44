import Foundation
import HearthContent

/// A WHO Child Growth Standards indicator (0–5 years), as named in `who_growth_lms.json`.
public enum GrowthIndicator: String, CaseIterable, Sendable {
    /// Weight in kg.
    case weightForAge = "weight_for_age"
    /// Recumbent length in cm for days 0–730, standing height in cm for days 731–1856 (WHO's split;
    /// a standing height measured before 731 days, or a length after, is 0.7 cm off and should be
    /// converted by the caller first).
    case lengthForAge = "length_height_for_age"
    /// Head circumference in cm.
    case headCircumferenceForAge = "head_circumference_for_age"

    /// WHO's "restricted application of the LMS method": beyond ±3 SD the z-score is measured in
    /// units of the distance between the 2 SD and 3 SD curves on that side, so the skewed tail is not
    /// stretched. WHO applies it to weight-based indicators; length/height and head circumference
    /// are normally distributed (L = 1) and left unadjusted.
    var usesRestrictedTail: Bool { self == .weightForAge }
}

public enum GrowthSex: String, CaseIterable, Sendable {
    case male, female
}

/// Where one measurement sits on the WHO standard.
public struct GrowthAssessment: Sendable, Equatable {
    /// Unrounded (WHO reports it to two decimals; format at display time).
    public let zScore: Double
    /// Percent of the reference population below the measurement, 0–100, rounded to one decimal.
    public let percentile: Double
    public let ageDays: Int
    public let indicator: GrowthIndicator

    public init(zScore: Double, percentile: Double, ageDays: Int, indicator: GrowthIndicator) {
        self.zScore = zScore
        self.percentile = percentile
        self.ageDays = ageDays
        self.indicator = indicator
    }
}

public enum GrowthStandardsError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The data is not JSON of the shape `{"source": …, "indicators": {name: {sex: [[day, L, M, S], …]}}}`.
    case unreadable(String)
    case unknownIndicator(String)
    case unknownSex(String, indicator: String)
    case missingTable(GrowthIndicator, GrowthSex)
    /// A table must hold one row per day, days 0...1856 in order.
    case wrongAgeRange(GrowthIndicator, GrowthSex, rows: Int)
    case badRow(GrowthIndicator, GrowthSex, row: Int, reason: String)

    public var description: String {
        let file = HearthContent.File.whoGrowthLMS.rawValue
        switch self {
        case .unreadable(let reason):
            return "\(file): cannot read: \(reason)"
        case .unknownIndicator(let name):
            let known = GrowthIndicator.allCases.map(\.rawValue).joined(separator: ", ")
            return "\(file): unknown indicator \"\(name)\" (expected one of \(known))"
        case .unknownSex(let sex, let indicator):
            return "\(file): \(indicator): unknown sex \"\(sex)\" (expected male or female)"
        case .missingTable(let indicator, let sex):
            return "\(file): no \(sex.rawValue) table for \(indicator.rawValue)"
        case .wrongAgeRange(let indicator, let sex, let rows):
            return "\(file): \(indicator.rawValue)/\(sex.rawValue): \(rows) rows, expected one per day "
                + "\(GrowthStandards.ageRangeDays.lowerBound)...\(GrowthStandards.ageRangeDays.upperBound)"
        case .badRow(let indicator, let sex, let row, let reason):
            return "\(file): \(indicator.rawValue)/\(sex.rawValue) row \(row): \(reason)"
        }
    }
}

/// The WHO Child Growth Standards (2006/2007) for ages 0–1856 days, from the daily LMS tables in
/// `who_growth_lms.json`. Pure and immutable: load once, share freely.
///
/// Method (WHO, "Methods and development", 2006, ch. 7): for a measurement y with the age's
/// parameters L (Box-Cox power), M (median), S (coefficient of variation),
/// z = ((y/M)^L − 1) / (L·S), or ln(y/M)/S when L = 0; for weight-for-age, beyond ±3 SD the
/// restricted rule in `GrowthIndicator.usesRestrictedTail` applies. Ages are whole days, which
/// is how WHO tabulates, so no interpolation.
public struct GrowthStandards: Sendable {
    public static let ageRangeDays: ClosedRange<Int> = 0...1856
    /// The percentile lines WHO draws on its charts.
    public static let bandPercentiles: [Double] = [3, 15, 50, 85, 97]

    /// Citation and provenance of the tables (the file's `source`).
    public let source: String
    private let tables: [GrowthIndicator: [GrowthSex: [LMS]]]

    private struct LMS: Sendable {
        let l: Double, m: Double, s: Double

        /// The measurement at SD score `z` on the LMS curve (WHO's "SD curve" formula).
        func curve(_ z: Double) -> Double? {
            let value: Double
            if l == 0 {
                value = m * exp(s * z)
            } else {
                let base = 1 + l * s * z
                guard base > 0 else { return nil }
                value = m * pow(base, 1 / l)
            }
            return value.isFinite && value > 0 ? value : nil
        }

        func zScore(_ y: Double, restricted: Bool) -> Double {
            let z = l == 0 ? log(y / m) / s : (pow(y / m, l) - 1) / (l * s)
            guard restricted, abs(z) > 3, let sd3 = curve(z > 0 ? 3 : -3), let sd2 = curve(z > 0 ? 2 : -2) else { return z }
            // z > 3: 3 + (y − SD3pos) / (SD3pos − SD2pos); z < −3: −3 + (y − SD3neg) / (SD2neg − SD3neg).
            return z > 0 ? 3 + (y - sd3) / (sd3 - sd2) : -3 + (y - sd3) / (sd2 - sd3)
        }

        func value(atZScore z: Double, restricted: Bool) -> Double? {
            guard restricted, abs(z) > 3 else { return curve(z) }
            guard let sd3 = curve(z > 0 ? 3 : -3), let sd2 = curve(z > 0 ? 2 : -2) else { return nil }
            // The inverse of the restricted rule: linear beyond ±3 SD with the 2–3 SD spacing.
            let value = z > 0 ? sd3 + (z - 3) * (sd3 - sd2) : sd3 + (z + 3) * (sd2 - sd3)
            return value > 0 ? value : nil
        }
    }

    /// The bundled `who_growth_lms.json`.
    public static func load() throws(GrowthStandardsError) -> GrowthStandards {
        let data: Data
        do {
            data = try HearthContent.data(of: .whoGrowthLMS)
        } catch {
            throw .unreadable("\(error)")
        }
        return try GrowthStandards(decoding: data)
    }

    public init(decoding data: Data) throws(GrowthStandardsError) {
        struct File: Decodable {
            let source: String
            let indicators: [String: [String: [[Double]]]]
        }
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: data)
        } catch {
            throw .unreadable("\(error)")
        }
        var tables: [GrowthIndicator: [GrowthSex: [LMS]]] = [:]
        for name in file.indicators.keys.sorted() {
            guard let indicator = GrowthIndicator(rawValue: name) else { throw .unknownIndicator(name) }
            let bySex = file.indicators[name] ?? [:]
            for sexName in bySex.keys.sorted() {
                guard let sex = GrowthSex(rawValue: sexName) else { throw .unknownSex(sexName, indicator: name) }
                let rows = bySex[sexName] ?? []
                guard rows.count == Self.ageRangeDays.count else {
                    throw .wrongAgeRange(indicator, sex, rows: rows.count)
                }
                var table: [LMS] = []
                table.reserveCapacity(rows.count)
                for (index, row) in rows.enumerated() {
                    func bad(_ reason: String) -> GrowthStandardsError { .badRow(indicator, sex, row: index, reason: reason) }
                    guard row.count == 4 else { throw bad("expected [age_days, L, M, S], got \(row.count) numbers") }
                    guard row[0] == Double(Self.ageRangeDays.lowerBound + index) else {
                        throw bad("age \(row[0]) is not day \(Self.ageRangeDays.lowerBound + index)")
                    }
                    let lms = LMS(l: row[1], m: row[2], s: row[3])
                    guard lms.l.isFinite, lms.m.isFinite, lms.s.isFinite, lms.m > 0, lms.s > 0 else {
                        throw bad("L must be finite and M, S positive")
                    }
                    table.append(lms)
                }
                tables[indicator, default: [:]][sex] = table
            }
        }
        for indicator in GrowthIndicator.allCases {
            for sex in GrowthSex.allCases where tables[indicator]?[sex] == nil {
                throw .missingTable(indicator, sex)
            }
        }
        self.source = file.source
        self.tables = tables
    }

    private func lms(_ indicator: GrowthIndicator, _ sex: GrowthSex, _ ageDays: Int) -> LMS? {
        guard Self.ageRangeDays.contains(ageDays), let table = tables[indicator]?[sex] else { return nil }
        return table[ageDays - Self.ageRangeDays.lowerBound]
    }

    /// The z-score and percentile of `value` (kg for weight, cm otherwise) at `ageDays` completed
    /// days. Nil outside 0...1856 days or for a value that is not a positive number.
    public func assess(_ value: Double, indicator: GrowthIndicator, sex: GrowthSex, ageDays: Int) -> GrowthAssessment? {
        guard value.isFinite, value > 0, let lms = lms(indicator, sex, ageDays) else { return nil }
        let z = lms.zScore(value, restricted: indicator.usesRestrictedTail)
        guard z.isFinite else { return nil }
        let percentile = (StandardNormal.cdf(z) * 1000).rounded() / 10
        return GrowthAssessment(zScore: z, percentile: percentile, ageDays: ageDays, indicator: indicator)
    }

    /// The measurement at SD score `zScore` (WHO's SD lines: −3, −2, 0, 2, 3).
    public func value(atZScore zScore: Double, indicator: GrowthIndicator, sex: GrowthSex, ageDays: Int) -> Double? {
        guard zScore.isFinite, let lms = lms(indicator, sex, ageDays) else { return nil }
        return lms.value(atZScore: zScore, restricted: indicator.usesRestrictedTail)
    }

    /// The chart bands: each of `bandPercentiles` as a curve from birth to `span` days, every `step` days.
    public func bands(_ indicator: GrowthIndicator, sex: GrowthSex, span: Int, step: Int) -> [GrowthBandCurve] {
        Self.bandPercentiles.map { percentile in
            GrowthBandCurve(percentile: percentile, points: stride(from: 0, through: span, by: step).compactMap { age in
                value(atPercentile: percentile, indicator: indicator, sex: sex, ageDays: age).map { GrowthChartPoint(ageDays: age, value: $0) }
            })
        }
    }

    /// The measurement at percentile `p` (strictly between 0 and 100), e.g. for the chart bands in
    /// `bandPercentiles`. The inverse of `assess`.
    public func value(atPercentile p: Double, indicator: GrowthIndicator, sex: GrowthSex, ageDays: Int) -> Double? {
        guard p > 0, p < 100 else { return nil }
        return value(atZScore: StandardNormal.quantile(p / 100), indicator: indicator, sex: sex, ageDays: ageDays)
    }
}

/// The standard normal distribution, to double precision.
public enum StandardNormal {
    /// P(Z ≤ z), via erfc (accurate in both tails, unlike 1 − erf).
    public static func cdf(_ z: Double) -> Double {
        0.5 * erfc(-z / 2.0.squareRoot())
    }

    /// The z with cdf(z) = p, for 0 < p < 1 (−∞ / +∞ at 0 / 1, NaN outside). Acklam's rational
    /// approximation (relative error < 1.2e-9) refined by one Halley step on `cdf`, which brings
    /// it to about machine precision.
    public static func quantile(_ p: Double) -> Double {
        guard p > 0, p < 1 else {
            if p == 0 { return -.infinity }
            if p == 1 { return .infinity }
            return .nan
        }
        let a = [-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00]
        let b = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                 6.680131188771972e+01, -1.328068155288572e+01]
        let c = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                 -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00]
        let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
        let low = 0.02425
        var x: Double
        if p < low {
            let q = (-2 * log(p)).squareRoot()
            x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        } else if p <= 1 - low {
            let q = p - 0.5
            let r = q * q
            x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
                / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
        } else {
            let q = (-2 * log(1 - p)).squareRoot()
            x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        }
        // Halley step: e = cdf(x) − p, u = e / φ(x).
        let e = cdf(x) - p
        let u = e * (2 * Double.pi).squareRoot() * exp(x * x / 2)
        x -= u / (1 + x * u / 2)
        return x
    }
}
