import Foundation
import HearthDomain
import HearthEvents

/// A message to the household assistant, from the safety precheck to the `final` answer:
/// retrieval over the user's chats and the knowledge base, the tool intents in the text turned
/// into proposed actions (`assistant.action_proposed`, never executed here), and an answer that
/// cites its sources. Offline the answer is composed from the retrieved passages; a configured
/// provider writes it from the same context.
struct AssistantFlow: Sendable {
    static let mode = "assistant"
    static let system = """
        You are a family's household assistant. Answer briefly from the numbered sources only and cite them like [1]. \
        Proposed actions are not done yet: say the family must confirm them. Never give medical advice.
        """
    static let maxTokens = 300
    static let temperature = 0.2

    let retrieval: AssistantRetrieval
    /// A proposed action lapses this long after it was proposed (24 hours unless configured).
    let actionLifetime: TimeInterval

    func run(
        _ request: AssistantMessageRequested, text: String, tools: FlowTools, emitter: RunEmitter, usage: inout ModelUsage
    ) async throws -> JSONValue {
        let question = try tools.safety.precheck(goal: text, domain: Self.mode, childAges: [])
        let conversation = JSONValue.string(request.conversationId.uuidString.lowercased())
        try await emitter.emit(.context, .object([
            "household_id": .string(request.householdId.uuidString.lowercased()),
            "conversation_id": conversation,
            "mode": .string(Self.mode),
            "time_zone": .string(request.timeZone),
            "profile": .strings(request.profile),
        ]))

        try await emitter.emit(.toolCall, .object(["tool": .string("retrieve"), "query": .string(question)]))
        let sources = await retrieval.sources(for: question, chats: request.chatIds)
        try await emitter.emit(.toolResult, .object(["tool": .string("retrieve"), "sources": try JSONValue(encoding: sources)]))

        let zone = LocalTime.zone(named: request.timeZone) ?? .gmt
        let parser = AssistantIntentParser(
            now: request.requestedAt, timeZone: zone,
            members: request.members.map { NamedMember(memberId: $0.memberId, name: $0.name) })
        let proposals = parser.intents(in: question).compactMap { ProposedAction($0, members: request.members, timeZone: zone) }
        var actions: [JSONValue] = []
        let proposedAt = Timestamp.rounded(Date())
        for (index, proposal) in proposals.enumerated() {
            let action = AssistantActionProposed(
                actionId: NameBasedUUID.make(namespace: request.runId, name: "action/\(index)"), runId: request.runId,
                conversationId: request.conversationId, householdId: request.householdId, userId: request.userId,
                tool: proposal.tool, arguments: proposal.arguments, summary: proposal.summary,
                proposedAt: proposedAt, expiresAt: proposedAt.addingTimeInterval(actionLifetime))
            try await emitter.publish(action)
            let view = JSONValue.object([
                "action_id": .string(action.actionId.uuidString.lowercased()), "tool": .string(action.tool),
                "arguments": action.arguments, "summary": .string(action.summary), "status": .string("pending"),
                "expires_at": .string(Timestamp.format(action.expiresAt)),
            ])
            actions.append(view)
            try await emitter.emit(.toolCall, view)
        }

        let offline = Self.offlineAnswer(sources: sources, proposals: proposals)
        let answer = try await tools.models.complete(
            .synthesis, system: Self.system, prompt: Self.prompt(question: question, profile: request.profile, sources: sources, proposals: proposals),
            maxOutputTokens: Self.maxTokens, temperature: Self.temperature, offlineAnswer: offline, usage: &usage,
            onToken: { token in emitter.streamText(token) })
        let checked = try tools.safety.postcheck(answer, domain: Self.mode, childAges: [])
        return .object([
            "conversation_id": conversation,
            "answer": .string(checked),
            "sources": try JSONValue(encoding: sources),
            "actions": .array(actions),
        ])
    }

    /// The local provider's answer: what was proposed (and that it waits for a confirmation), then
    /// the passages found, each with its citation.
    static func offlineAnswer(sources: [AssistantSource], proposals: [ProposedAction]) -> String {
        var lines: [String] = []
        for proposal in proposals {
            lines.append("I can do this for you once you confirm it: \(proposal.summary).")
        }
        if !sources.isEmpty {
            lines.append(proposals.isEmpty ? "Here is what I found:" : "Related:")
            for source in sources {
                switch source.kind {
                case "message": lines.append("\(source.ref) \(source.title): “\(source.snippet)”")
                default: lines.append("\(source.ref) \(source.title): \(source.snippet)")
                }
            }
        } else if proposals.isEmpty {
            lines.append("I couldn't find anything about that in your chats or in Hearth's guides.")
        }
        return lines.joined(separator: "\n")
    }

    static func prompt(question: String, profile: [String], sources: [AssistantSource], proposals: [ProposedAction]) -> String {
        var prompt = "Household profile:\n"
        prompt += profile.isEmpty ? "(nothing recorded)\n" : profile.map { "- \($0)\n" }.joined()
        prompt += "Sources:\n"
        prompt += sources.isEmpty ? "(none)\n" : sources.map { "\($0.ref) \($0.title): \($0.snippet)\n" }.joined()
        if !proposals.isEmpty {
            prompt += "Proposed actions awaiting confirmation:\n" + proposals.map { "- \($0.summary)\n" }.joined()
        }
        prompt += "Question: \(question)"
        return prompt
    }
}
