import Foundation
import HearthEvents

/// One mode's steps between the safety precheck and the terminal event: planning call, tool
/// call, domain planning, synthesis. Emits `token`, `tool_call` and `tool_result` as it goes and
/// returns the `final` payload; a postcheck refusal is thrown as `RunRefused`.
protocol AssistFlow: Sendable {
    func run(_ input: RunInput, tools: FlowTools, emitter: RunEmitter, usage: inout ModelUsage) async throws -> JSONValue
}

/// A safety rule stopped the run; its text is what the user is told.
struct RunRefused: Error {
    let key: String
    let text: String
}

/// What the flows share: the run's model access and the safety gate. Everything domain-side
/// (catalogues, planners) is built once per process and lives in the flows themselves.
struct FlowTools: Sendable {
    let models: RunModels
    let safety: SafetyGate
}

extension FlowTools {
    /// The synthesis call: streams its text as `token` events, then runs the postcheck on the
    /// whole text. Returns the text the user may see.
    func synthesize(
        _ input: RunInput, prompt: String, offlineAnswer: String, emitter: RunEmitter, usage: inout ModelUsage
    ) async throws -> String {
        try await emitter.emit(.token, .string("Writing your plan..."))
        let text = try await models.complete(
            .synthesis, system: Prompts.synthesisSystem, prompt: prompt, maxOutputTokens: Prompts.synthesisMaxTokens,
            temperature: Prompts.synthesisTemperature, offlineAnswer: offlineAnswer, usage: &usage,
            onToken: { token in emitter.streamText(token) })
        return try safety.postcheck(text, mode: input.mode, childAges: input.prefs.kidsAges)
    }

    /// The planning call: a short search query or focus for the mode's tool. An empty answer
    /// falls back to the deterministic one.
    func plan(_ input: RunInput, prompt: String, offlineAnswer: String, usage: inout ModelUsage) async throws -> String {
        let text = try await models.complete(
            .planning, system: Prompts.planningSystem(input.mode), prompt: prompt, maxOutputTokens: Prompts.planningMaxTokens,
            temperature: Prompts.planningTemperature, offlineAnswer: offlineAnswer, usage: &usage)
        let query = text.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
        return query.isEmpty ? offlineAnswer : query
    }
}
