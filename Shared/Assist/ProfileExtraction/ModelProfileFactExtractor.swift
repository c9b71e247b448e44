import Foundation
import HearthDomain
import HearthEvents
import Logging
import Metrics

/// Reads profile facts with a model through the router's `extraction` chain, asking for
/// `ProfileFactSchema` (as a response format where the provider supports one, and in the
/// instructions), and keeps only the facts `ProfileFactReply` finds grounded in the message.
///
/// The rules stay behind it: when no provider answers, the answer comes from the offline model
/// (which cannot read messages), or the reply is not usable JSON, the message is read by
/// `fallback` instead, so a message is never left unread because a model was down.
public struct ModelProfileFactExtractor: ProfileFactSource {
    let router: ModelRouter
    let fallback: any ProfileFactSource
    let vocabulary: AllergenVocabulary?
    let budget: @Sendable (ProfileMessage) -> BudgetScope
    let logger: Logger

    public static let maxOutputTokens = 800

    /// - Parameter budget: what the calls for a message may spend, and under which key they
    ///   share it (by default a household's UTC day).
    public init(
        router: ModelRouter, fallback: any ProfileFactSource, vocabulary: AllergenVocabulary?,
        budget: @escaping @Sendable (ProfileMessage) -> BudgetScope = ModelProfileFactExtractor.householdDay, logger: Logger
    ) {
        self.router = router
        self.fallback = fallback
        self.vocabulary = vocabulary
        self.budget = budget
        self.logger = logger
    }

    /// 50 cents and 200,000 tokens per household and UTC day: room for hundreds of messages with a
    /// small model, and a bound on what a flood of messages can cost.
    public static let householdDay: @Sendable (ProfileMessage) -> BudgetScope = { message in
        let day = String(Timestamp.format(Date()).prefix(10))
        return BudgetScope(key: "profile-extraction/\(message.householdId.uuidString.lowercased())/\(day)", limitCents: 50, limitTokens: 200_000)
    }

    public func request(for message: ProfileMessage) -> ModelRequest {
        ModelRequest(
            phase: .extraction, system: ProfileFactSchema.systemPrompt(members: message.members), prompt: ProfileFactSchema.prompt(for: message),
            maxOutputTokens: Self.maxOutputTokens, temperature: 0, runId: "profile-extraction/\(message.messageId.uuidString.lowercased())",
            offlineAnswer: "",
            responseSchema: ModelResponseSchema(name: ProfileFactSchema.name, schema: ProfileFactSchema.schema(members: message.members)))
    }

    public func read(_ message: ProfileMessage) async throws -> ProfileFactReading {
        let response: ModelResponse
        do {
            response = try await router.complete(request(for: message), budget: budget(message), onToken: { _ in })
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return try await fallBack(message, reason: "no_model", detail: "\(error)")
        }
        guard response.provider != "local" else {
            return try await fallBack(message, reason: "offline_model", detail: "the chain answered with the offline model")
        }
        let reply: ProfileFactReply
        do {
            reply = try ProfileFactReply.parse(response.text, for: message, vocabulary: vocabulary)
        } catch {
            return try await fallBack(message, reason: "invalid_reply", detail: error.description)
        }
        if !reply.dropped.isEmpty {
            Counter(label: "hearth_profile_model_facts_dropped_total").increment(by: reply.dropped.count)
            logger.info("model facts dropped", metadata: [
                "message_id": "\(message.messageId)", "reasons": "\(reply.dropped.map(\.reason).joined(separator: "; "))",
            ])
        }
        return ProfileFactReading(facts: reply.facts, extractor: "\(response.provider):\(response.model)")
    }

    private func fallBack(_ message: ProfileMessage, reason: String, detail: String) async throws -> ProfileFactReading {
        Counter(label: "hearth_profile_extraction_fallbacks_total", dimensions: [("reason", reason)]).increment()
        logger.warning("model extraction fell back to the rules", metadata: [
            "message_id": "\(message.messageId)", "reason": "\(reason)", "detail": "\(detail.prefix(300))",
        ])
        return try await fallback.read(message)
    }
}
