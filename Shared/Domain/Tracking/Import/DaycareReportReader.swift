import Foundation

/// A sheet read into suggested logs, and by what: `rules`, or the model as `provider:model`.
public struct DaycareReading: Sendable, Equatable {
    public var parse: DaycareParse
    public var parser: String

    public init(parse: DaycareParse, parser: String) {
        self.parse = parse
        self.parser = parser
    }
}

/// Reads a daycare sheet's text into suggested logs. The gateway's import route holds one, chosen
/// at start-up: the rules (`DaycareReportParser`) or a model with the rules behind it.
public protocol DaycareReportReader: Sendable {
    /// - Parameter householdId: whose budget a model reading is charged to.
    func read(_ text: String, format: DaycareReportFormat, householdId: UUID) async throws -> DaycareReading
}

extension DaycareReportParser: DaycareReportReader {
    public func read(_ text: String, format: DaycareReportFormat, householdId: UUID) async throws -> DaycareReading {
        DaycareReading(parse: parse(text, format: format), parser: "rules")
    }
}
