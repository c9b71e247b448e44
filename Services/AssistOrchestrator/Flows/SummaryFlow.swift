import Foundation
import HearthDomain
import HearthEvents

/// A child's pediatrician summary: the gateway's metrics in, the words out. The model (the
/// synthesis phase) writes the paragraphs; its text is kept only when every number in it is one of
/// the metrics and it passes the safety postcheck, otherwise the deterministic template stands.
/// The model's text is not streamed as it comes: a parent must not read what the checks then
/// throw away.
/// Highlights, concerns and the disclaimer are always the template's: what a pediatrician is
/// asked about is not left to a model.
struct SummaryFlow: Sendable {
    static let mode = "summary"
    static let system = "You write short, factual summaries of a baby's logs for the family's pediatrician. "
        + "Use only the numbers given. Never diagnose, never advise on medicine or doses."
    static let maxOutputTokens = 400

    func run(_ request: SummaryRequestedV2, notes: String?, tools: FlowTools, emitter: RunEmitter, usage: inout ModelUsage) async throws -> JSONValue {
        guard let metricsJSON = request.metrics else { throw InvalidRunRequest(reason: "the summary's metrics are missing") }
        let metrics: SummaryMetrics
        let metricsData: Data
        do {
            metricsData = try JSONEncoder().encode(metricsJSON)
            metrics = try JSONDecoder().decode(SummaryMetrics.self, from: metricsData)
        } catch {
            throw InvalidRunRequest(reason: "the summary's metrics are unreadable")
        }
        let template = SummaryNarrative.template(metrics, childName: request.childName)
        try await emitter.emit(.token, .string("Writing the summary..."))
        let prompt = """
            Child: \(request.childName). Range: \(request.from) to \(request.to).
            Metrics (JSON): \(String(decoding: metricsData, as: UTF8.self))
            Write two or three short paragraphs, separated by a blank line, using only these numbers.
            """
        let written = try await tools.models.complete(
            .synthesis, system: Self.system, prompt: prompt, maxOutputTokens: Self.maxOutputTokens, temperature: 0.2,
            offlineAnswer: template.paragraphs.joined(separator: "\n\n"), usage: &usage)
        var narrative = template
        let paragraphs = written.components(separatedBy: "\n\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        let names = [request.childName, request.from, request.to] + metrics.names
        if paragraphs != template.paragraphs, (2...3).contains(paragraphs.count),
           try SummaryNumber.onlyMetrics(in: written, metrics: metrics, ignoring: names),
           (try? tools.safety.postcheck(written, domain: Self.mode, childAges: [])) != nil
        {
            narrative.paragraphs = paragraphs
        }
        try await emitter.emit(.token, .string(narrative.paragraphs.joined(separator: "\n\n")))
        return .object([
            "child_id": .string(request.childId.uuidString.lowercased()), "child_name": .string(request.childName),
            "from": .string(request.from), "to": .string(request.to), "metrics": metricsJSON,
            "narrative": try JSONValue(encoding: narrative), "parent_notes": notes.map(JSONValue.string) ?? .null,
            "growth_chart": request.growthChart ?? .null,
        ])
    }
}
