/// Why the router could not answer. Each case carries the attempts made, so the flow can record
/// usage and cost even for a failed run.
public enum ModelRouterError: Error, CustomStringConvertible, Sendable {
    /// The phase has no providers configured.
    case noProviders(ModelPhase)
    /// Every provider in the chain failed or was skipped.
    case exhausted(ModelPhase, attempts: [ModelAttempt])
    /// A provider failed after it had already streamed text to the caller. Falling back would
    /// splice a second answer onto the first, so the router stops instead.
    case interrupted(ModelPhase, attempts: [ModelAttempt], partialText: String)

    public var attempts: [ModelAttempt] {
        switch self {
        case .noProviders: []
        case .exhausted(_, let attempts), .interrupted(_, let attempts, _): attempts
        }
    }

    public var description: String {
        switch self {
        case .noProviders(let phase):
            "no model providers configured for phase \(phase.rawValue)"
        case .exhausted(let phase, let attempts):
            "every provider for phase \(phase.rawValue) failed: "
                + attempts.map { "\($0.provider):\($0.model) \($0.outcome)" }.joined(separator: "; ")
        case .interrupted(let phase, let attempts, _):
            "the stream for phase \(phase.rawValue) broke off after text was sent: \(attempts.last?.outcome ?? "?")"
        }
    }
}
