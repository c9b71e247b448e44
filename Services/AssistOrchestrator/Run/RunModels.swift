import Foundation
import HearthAssist

/// The model router as one run uses it: every call is charged to the run's budget and recorded
/// in its usage, whether it succeeds or not.
struct RunModels: Sendable {
    let router: ModelRouter
    let budget: BudgetScope
    let runId: UUID
    let userId: UUID

    /// One call; `onToken` receives the text as the provider streams it.
    func complete(
        _ phase: ModelPhase, system: String, prompt: String, maxOutputTokens: Int, temperature: Double,
        offlineAnswer: String, usage: inout ModelUsage, onToken: @escaping @Sendable (String) async -> Void = { _ in }
    ) async throws -> String {
        try await respond(
            phase, system: system, prompt: prompt, maxOutputTokens: maxOutputTokens, temperature: temperature, offlineAnswer: offlineAnswer,
            usage: &usage, onToken: onToken
        ).text
    }

    /// One call offering `tools`: the whole response, with the provider that served it and the
    /// tool calls it made (none from the offline provider).
    func respond(
        _ phase: ModelPhase, system: String, prompt: String, maxOutputTokens: Int, temperature: Double, tools: [ModelTool] = [],
        offlineAnswer: String, usage: inout ModelUsage, onToken: @escaping @Sendable (String) async -> Void = { _ in }
    ) async throws -> ModelResponse {
        let request = ModelRequest(
            phase: phase, system: system, prompt: prompt, maxOutputTokens: maxOutputTokens, temperature: temperature,
            runId: runId.uuidString.lowercased(), userId: userId.uuidString.lowercased(), offlineAnswer: offlineAnswer, tools: tools)
        do {
            let response = try await router.complete(request, budget: budget, onToken: onToken)
            usage.record(phase, response.attempts)
            return response
        } catch let error as ModelRouterError {
            usage.record(phase, error.attempts)
            throw error
        }
    }
}
