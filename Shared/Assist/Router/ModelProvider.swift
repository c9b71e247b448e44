/// A model behind some API. `complete` streams text through `onToken` as it arrives and returns
/// the assembled text with its usage; it throws (after its own bounded retries) when the
/// provider cannot answer, which makes the router fall back to the next one in the chain.
public protocol ModelProvider: Sendable {
    /// The provider's id in chains, prices and metrics: `openai`, `anthropic`, `local`.
    var name: String { get }
    var model: String { get }
    /// Whether calls cost money and so go through the budget ledger. Only the offline provider
    /// says no: it must stay available as the last resort when a run's budget is spent.
    var isMetered: Bool { get }

    func complete(_ request: ModelRequest, onToken: @escaping @Sendable (String) async -> Void) async throws -> ProviderResult
}

extension ModelProvider {
    public var isMetered: Bool { true }
}
