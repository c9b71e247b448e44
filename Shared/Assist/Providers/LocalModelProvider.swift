/// The offline model: answers `offlineAnswer`, the deterministic text the caller computed from
/// Hearth's own content. It needs no network and costs nothing, so it ends every chain and keeps
/// runs answering without keys, without network and without budget.
public struct LocalModelProvider: ModelProvider {
    public let name = "local"
    public let model: String
    public var isMetered: Bool { false }

    public static let defaultModel = "offline-v1"

    public init(model: String = LocalModelProvider.defaultModel) {
        self.model = model
    }

    public func complete(_ request: ModelRequest, onToken: @escaping @Sendable (String) async -> Void) async throws -> ProviderResult {
        for chunk in Self.wordChunks(request.offlineAnswer) {
            try Task.checkCancellation()
            await onToken(chunk)
        }
        // The offline provider never calls tools, whatever `request.tools` offers: its answer is
        // the caller's precomputed text, so there is no model to decide on a call.
        return ProviderResult(
            text: request.offlineAnswer,
            inputTokens: TokenEstimator.inputTokens(of: request),
            outputTokens: TokenEstimator.tokens(in: request.offlineAnswer),
            toolCalls: [])
    }

    /// Each word with the whitespace after it (leading whitespace joins the first chunk), so the
    /// chunks concatenate back to the text exactly.
    static func wordChunks(_ text: String) -> [String] {
        var chunks: [String] = []
        var current = ""
        var inWhitespace = false
        for character in text {
            if character.isWhitespace {
                inWhitespace = true
            } else if inWhitespace, current.contains(where: { !$0.isWhitespace }) {
                chunks.append(current)
                current = ""
                inWhitespace = false
            } else {
                inWhitespace = false
            }
            current.append(character)
        }
        if !current.isEmpty { chunks.append(current) }
        return chunks
    }
}
