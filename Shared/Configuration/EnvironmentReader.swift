import Foundation

public struct ConfigurationError: Error, CustomStringConvertible {
    public let variable: String
    public let reason: String

    public init(variable: String, reason: String) {
        self.variable = variable
        self.reason = reason
    }

    public var description: String { "\(variable): \(reason)" }
}

/// Typed access to environment variables, with the variable's name in every error: the one way
/// Hearth reads a setting. Executables read the process environment once (`ServiceSettings`) and
/// hand this reader to whatever needs settings; tests hand in a dictionary literal.
public struct EnvironmentReader: Sendable, ExpressibleByDictionaryLiteral {
    public let values: [String: String]

    public init(_ values: [String: String] = ProcessInfo.processInfo.environment) {
        self.values = values
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(Dictionary(elements) { $1 })
    }

    public func string(_ name: String, default fallback: String) -> String {
        guard let value = values[name], !value.isEmpty else { return fallback }
        return value
    }

    public func optionalString(_ name: String) -> String? {
        guard let value = values[name], !value.isEmpty else { return nil }
        return value
    }

    /// The value without surrounding whitespace; nil when unset or blank. For values pasted from
    /// elsewhere (keys, URLs, provider names), where a stray space or newline is no error.
    public func trimmed(_ name: String) -> String? {
        guard let value = values[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
        return value
    }

    public func int(_ name: String, default fallback: Int, range: ClosedRange<Int> = Int.min...Int.max) throws -> Int {
        guard let text = optionalString(name) else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationError(variable: name, reason: "expected a whole number in \(range.lowerBound)...\(range.upperBound), got \(text)")
        }
        return value
    }

    /// A decimal number such as `0.25` (for settings finer than whole units, e.g. `linger.ms`).
    public func decimal(_ name: String, default fallback: Double, range: ClosedRange<Double>) throws -> Double {
        guard let text = optionalString(name) else { return fallback }
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw ConfigurationError(variable: name, reason: "expected a number in \(Self.format(range.lowerBound))...\(Self.format(range.upperBound)), got \(text)")
        }
        return value
    }

    /// `2` rather than `2.0`; fractions as Swift prints them (`0.25`).
    static func format(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// `true`/`false` (also `1`/`0`, `yes`/`no`, any case).
    public func bool(_ name: String, default fallback: Bool) throws -> Bool {
        guard let text = optionalString(name)?.lowercased() else { return fallback }
        switch text {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw ConfigurationError(variable: name, reason: "expected true or false, got \(text)")
        }
    }

    public func list(_ name: String) -> [String] {
        (optionalString(name) ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
