/// One provider tried for one request, whatever came of it. A run keeps all of them so usage,
/// cost and fallbacks can be explained afterwards.
public struct ModelAttempt: Sendable, Codable, Equatable {
    public var provider: String
    public var model: String
    public var inputTokens: Int
    public var outputTokens: Int
    public var costCents: Double
    public var latencyMs: Double
    /// `ok`, `error: <reason>` or `skipped: budget`.
    public var outcome: String

    public init(
        provider: String, model: String, inputTokens: Int, outputTokens: Int, costCents: Double, latencyMs: Double,
        outcome: String
    ) {
        self.provider = provider
        self.model = model
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.costCents = costCents
        self.latencyMs = latencyMs
        self.outcome = outcome
    }

    public static let okOutcome = "ok"
    public static let skippedBudgetOutcome = "skipped: budget"
    /// The user's monthly spend cap would be passed.
    public static let skippedSpendCapOutcome = "skipped: monthly spend cap"
    public static func errorOutcome(_ reason: String) -> String { "error: \(reason)" }

    public var succeeded: Bool { outcome == Self.okOutcome }
}
