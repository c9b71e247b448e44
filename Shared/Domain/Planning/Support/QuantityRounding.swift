import Foundation

/// Rounding for amounts shown to people. Shopping amounts round *up* so the list always
/// covers what the recipes need; rounding is done on a whole-number grid and divided back
/// so values print as "1.43", never "1.4300000000000002".
enum QuantityRounding {
    /// Sums of scaled quantities carry float noise (0.1 + 0.2); ignore noise below this so
    /// 3.0000000001 pieces does not become 4.
    static let noiseTolerance = 1e-6

    static func roundUp(_ value: Double, stepsPerUnit: Double) -> Double {
        (value * stepsPerUnit - noiseTolerance).rounded(.up) / stepsPerUnit
    }

    static func roundNearest(_ value: Double, stepsPerUnit: Double) -> Double {
        (value * stepsPerUnit).rounded() / stepsPerUnit
    }

    /// "800", "1.5", "0.25": no trailing zeros, at most two decimals.
    static func display(_ value: Double) -> String {
        let rounded = roundNearest(value, stepsPerUnit: 100)
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        var text = String(format: "%.2f", rounded)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
