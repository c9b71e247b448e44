import Foundation
import HearthDomain
import HearthEvents
import Logging
import Metrics

/// Reads a daycare sheet with a model through the router's `extraction` chain, asking for
/// `DaycareReportSchema` (as a response format where the provider supports one, and in the
/// instructions), and keeps only the logs `DaycareReportReply` finds well-formed and written on
/// the sheet.
///
/// The rules stay behind it: when no provider answers, the offline model answers (it cannot read
/// sheets), the reply is not the JSON asked for, or the model finds nothing where the rules find
/// something, the sheet is read by `fallback`, so an import never fails because a model did.
public struct ModelDaycareReportReader: DaycareReportReader {
    let router: ModelRouter
    let fallback: any DaycareReportReader
    let logger: Logger

    public static let maxOutputTokens = 2_000

    public init(router: ModelRouter, fallback: any DaycareReportReader, logger: Logger) {
        self.router = router
        self.fallback = fallback
        self.logger = logger
    }

    /// 50 cents and 200,000 tokens per household and UTC day: a few dozen sheets with a small
    /// model, and a bound on what a flood of uploads can cost.
    public static func budget(householdId: UUID, now: Date = Date()) -> BudgetScope {
        let day = String(Timestamp.format(now).prefix(10))
        return BudgetScope(key: "daycare-import/\(householdId.uuidString.lowercased())/\(day)", limitCents: 50, limitTokens: 200_000)
    }

    public func request(_ text: String, format: DaycareReportFormat) -> ModelRequest {
        ModelRequest(
            phase: .extraction, system: DaycareReportSchema.systemPrompt, prompt: DaycareReportSchema.prompt(text, format: format),
            maxOutputTokens: Self.maxOutputTokens, temperature: 0, runId: "daycare-import/\(UUID().uuidString.lowercased())",
            offlineAnswer: "", responseSchema: ModelResponseSchema(name: DaycareReportSchema.name, schema: DaycareReportSchema.schema))
    }

    public func read(_ text: String, format: DaycareReportFormat, householdId: UUID) async throws -> DaycareReading {
        let response: ModelResponse
        do {
            response = try await router.complete(request(text, format: format), budget: Self.budget(householdId: householdId), onToken: { _ in })
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return try await fallBack(text, format: format, householdId: householdId, reason: "no_model", detail: "\(error)")
        }
        guard response.provider != "local" else {
            return try await fallBack(text, format: format, householdId: householdId, reason: "offline_model", detail: "the chain answered with the offline model")
        }
        let reply: DaycareReportReply
        do {
            reply = try DaycareReportReply.parse(response.text, source: text)
        } catch {
            return try await fallBack(text, format: format, householdId: householdId, reason: "invalid_reply", detail: error.description)
        }
        if !reply.dropped.isEmpty {
            Counter(label: "hearth_daycare_import_model_logs_dropped_total").increment(by: reply.dropped.count)
            logger.info("model import logs dropped", metadata: ["reasons": "\(reply.dropped.map(\.reason).joined(separator: "; "))"])
        }
        let parser = "\(response.provider):\(response.model)"
        if reply.logs.isEmpty {
            let rules = try await fallback.read(text, format: format, householdId: householdId)
            if !rules.parse.suggestions.isEmpty {
                Counter(label: "hearth_daycare_import_fallbacks_total", dimensions: [("reason", "empty_reply")]).increment()
                logger.warning("model import found nothing where the rules did; the rules' reading is kept")
                return rules
            }
        }
        // Lines the model dropped are reported like the rules' unread lines, so the parent sees
        // what was skipped.
        return DaycareReading(parse: DaycareParse(suggestions: reply.logs, unreadLines: []), parser: parser)
    }

    private func fallBack(_ text: String, format: DaycareReportFormat, householdId: UUID, reason: String, detail: String) async throws -> DaycareReading {
        Counter(label: "hearth_daycare_import_fallbacks_total", dimensions: [("reason", reason)]).increment()
        logger.warning("model import fell back to the rules", metadata: ["reason": "\(reason)", "detail": "\(detail.prefix(300))"])
        return try await fallback.read(text, format: format, householdId: householdId)
    }
}
