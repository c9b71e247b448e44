import Foundation
import HearthDomain
import HearthEvents
import Logging
import Metrics

/// Writes a weekly reflection's recap. The template (`ReflectionTemplate`) always can; with
/// `HEARTH_WELLBEING_WRITER=model` the synthesis chain is asked first, from the week's figures
/// alone (never the user's notes), and its text is kept only when every number in it is one of
/// the figures and the safety policy's output check passes — otherwise the template stands.
public struct WellbeingRecapWriter: Sendable {
    let router: ModelRouter?
    let safety: SafetyPolicy
    let logger: Logger

    public static let maxOutputTokens = 350
    public static let system = "You write a short, warm, factual weekly recap for someone working on their urges and habits. "
        + "Use only the numbers given. Never diagnose, never give medical advice, never shame."

    public init(router: ModelRouter?, safety: SafetyPolicy, logger: Logger) {
        self.router = router
        self.safety = safety
        self.logger = logger
    }

    /// The recap and who wrote it (`template`, or the model as `provider:model`).
    public func recap(_ figures: WeeklyFigures, user: UUID) async -> (text: String, writtenBy: String) {
        let template = ReflectionTemplate.recap(figures)
        guard let router else { return (template, "template") }
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let prompt = """
                The week's figures (JSON): \(String(decoding: try encoder.encode(figures), as: UTF8.self))
                Write two short paragraphs: what the week looked like, and one gentle next step. Use only these numbers.
                """
            let response = try await router.complete(
                ModelRequest(
                    phase: .synthesis, system: Self.system, prompt: prompt, maxOutputTokens: Self.maxOutputTokens, temperature: 0.3,
                    runId: "wellbeing-recap/\(figures.weekStart)", offlineAnswer: template),
                budget: WellbeingQuizWriter.budget(user: user), onToken: { _ in })
            let text = response.text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard response.provider != "local", !text.isEmpty, text.count <= 2_000 else { return (template, "template") }
            guard ReflectionTemplate.numbersAreGrounded(text, in: figures) else {
                Counter(label: "hearth_wellbeing_recap_refused_total", dimensions: [("reason", "ungrounded_number")]).increment()
                return (template, "template")
            }
            guard safety.postcheck(text: text, domain: "wellbeing", childAges: []) == .allowed else {
                Counter(label: "hearth_wellbeing_recap_refused_total", dimensions: [("reason", "safety")]).increment()
                return (template, "template")
            }
            return (text, "\(response.provider):\(response.model)")
        } catch {
            logger.warning("model recap failed, the template stands", metadata: ["error": "\(String(describing: error).prefix(300))"])
            return (template, "template")
        }
    }
}
