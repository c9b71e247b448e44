import Foundation
import HearthDomain
import HearthEvents

/// A message to the household assistant, from the safety precheck to the `final` answer:
/// retrieval over the user's chats and the knowledge base, the tool intents in the text (the
/// model's own tool calls when a provider is configured, else the offline parser's) turned into
/// proposed actions (`assistant.action_proposed`, never executed here), and an answer that cites
/// its sources. Offline the answer is composed from the retrieved passages; a configured
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
    let intents: AssistantIntentReader
    /// A proposed action lapses this long after it was proposed (24 hours unless configured).
    let actionLifetime: TimeInterval

    func run(
        _ request: AssistantMessageRequestedV3, text: String, tools: FlowTools, emitter: RunEmitter, usage: inout ModelUsage
    ) async throws -> JSONValue {
        if let focus = request.focus {
            return try await MessageActionFlow(flow: self).run(request, focus: focus, tools: tools, emitter: emitter, usage: &usage)
        }
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
        var sources = await retrieval.sources(for: question, chats: request.chatIds)
        try await emitter.emit(.toolResult, .object(["tool": .string("retrieve"), "sources": try JSONValue(encoding: sources)]))

        let zone = LocalTime.zone(named: request.timeZone) ?? .gmt
        let read = try await intents.read(question, request: request, zone: zone, models: tools.models, usage: &usage)
        let proposals = read.proposals
        var profileLines: [String] = []
        for lookup in read.lookups {
            try await emitter.emit(.toolCall, .object(["tool": .string(lookup.tool), "arguments": Self.arguments(of: lookup)]))
            switch lookup {
            case .searchMessages(let query):
                let found = await retrieval.sources(for: query, chats: request.chatIds).filter { $0.kind == "message" }
                sources = AssistantRetrieval.merged(sources, found)
                try await emitter.emit(.toolResult, .object(["tool": .string(lookup.tool), "sources": try JSONValue(encoding: found)]))
            case .profile(let member):
                // The facts about the member named (or everyone when none): only what the household's profile holds.
                let lines = member.map { named in request.profile.filter { $0.lowercased().hasPrefix(named.name.lowercased() + ":") } } ?? request.profile
                profileLines += lines.filter { !profileLines.contains($0) }
                try await emitter.emit(.toolResult, .object(["tool": .string(lookup.tool), "facts": .strings(lines)]))
            }
        }
        for refusal in read.refused {
            try await emitter.emit(.toolResult, .object(["refused": refusal]))
        }
        let actions = try await propose(proposals, choices: read.choices, for: request, emitter: emitter)

        let offline = Self.offlineAnswer(sources: sources, proposals: proposals, ambiguous: read.ambiguous)
        let answer = try await tools.models.complete(
            .synthesis, system: Self.system,
            prompt: Self.prompt(
                question: question, profile: request.profile, sources: sources, proposals: proposals, ambiguous: read.ambiguous,
                history: request.history),
            maxOutputTokens: Self.maxTokens, temperature: Self.temperature, offlineAnswer: offline, usage: &usage,
            onToken: { token in emitter.streamText(token) })
        let checked = try tools.safety.postcheck(answer, domain: Self.mode, childAges: [])
        var final: [String: JSONValue] = [
            "conversation_id": conversation,
            "answer": .string(checked),
            "sources": try JSONValue(encoding: sources),
            "actions": .array(actions),
            "intents_read_by": .string(read.readBy),
        ]
        if !read.refused.isEmpty { final["refused_tool_calls"] = .array(read.refused) }
        if !read.ambiguous.isEmpty { final["ambiguous"] = .array(read.ambiguous) }
        if !profileLines.isEmpty { final["profile_facts"] = .strings(profileLines) }
        return .object(final)
    }

    /// Publishes each proposal as `assistant.action_proposed` (ids derived from the run, so a
    /// rerun names the same actions) and streams it; answers the actions as the final lists them.
    func propose(
        _ proposals: [ProposedAction], choices: [ActionChoice?], for request: AssistantMessageRequestedV3, emitter: RunEmitter
    ) async throws -> [JSONValue] {
        var actions: [JSONValue] = []
        let proposedAt = Timestamp.rounded(Date())
        for (index, proposal) in proposals.enumerated() {
            let choice = index < choices.count ? choices[index] : nil
            let action = AssistantActionProposedV2(
                actionId: NameBasedUUID.make(namespace: request.runId, name: "action/\(index)"), runId: request.runId,
                conversationId: request.conversationId, householdId: request.householdId, userId: request.userId,
                tool: proposal.tool, arguments: proposal.arguments, summary: proposal.summary,
                proposedAt: proposedAt, expiresAt: proposedAt.addingTimeInterval(actionLifetime), choice: choice)
            try await emitter.publish(action)
            var fields: [String: JSONValue] = [
                "action_id": .string(action.actionId.uuidString.lowercased()), "tool": .string(action.tool),
                "arguments": action.arguments, "summary": .string(action.summary), "status": .string("pending"),
                "expires_at": .string(Timestamp.format(action.expiresAt)),
            ]
            if let choice { fields["choice"] = try JSONValue(encoding: choice) }
            let view = JSONValue.object(fields)
            actions.append(view)
            try await emitter.emit(.toolCall, view)
        }
        return actions
    }

    static func arguments(of lookup: AssistantLookup) -> JSONValue {
        switch lookup {
        case .searchMessages(let query): .object(["query": .string(query)])
        case .profile(let member): .object(["member": member.map { .string($0.name) } ?? .null])
        }
    }

    /// The conversation so far, oldest first, for a follow-up ("and on Sunday?") to be read in
    /// context; nothing for a first message.
    static func conversation(_ history: [ConversationTurn]) -> String {
        guard !history.isEmpty else { return "" }
        return "Earlier in this conversation:\n"
            + history.map { "User: \($0.question)\nAssistant: \($0.answer.isEmpty ? "(no answer)" : $0.answer)\n" }.joined()
    }

    /// "Sam" matching two people: the question the answer asks back.
    static func clarification(_ ambiguity: JSONValue) -> String? {
        guard case .object(let fields) = ambiguity, case .string(let written)? = fields["written"], case .array(let choices)? = fields["choices"] else {
            return nil
        }
        let names = choices.compactMap { choice -> String? in
            if case .object(let member) = choice, case .string(let name)? = member["name"] { return name }
            return nil
        }
        return "Which \(written) do you mean: \(names.joined(separator: " or "))?"
    }

    /// The local provider's answer: what was proposed (and that it waits for a confirmation), then
    /// the passages found, each with its citation.
    static func offlineAnswer(sources: [AssistantSource], proposals: [ProposedAction], ambiguous: [JSONValue] = []) -> String {
        var lines: [String] = ambiguous.compactMap(clarification)
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
        } else if proposals.isEmpty, ambiguous.isEmpty {
            lines.append("I couldn't find anything about that in your chats or in Hearth's guides.")
        }
        return lines.joined(separator: "\n")
    }

    static func prompt(
        question: String, profile: [String], sources: [AssistantSource], proposals: [ProposedAction], ambiguous: [JSONValue] = [],
        history: [ConversationTurn] = []
    ) -> String {
        var prompt = conversation(history)
        prompt += "Household profile:\n"
        prompt += profile.isEmpty ? "(nothing recorded)\n" : profile.map { "- \($0)\n" }.joined()
        prompt += "Sources:\n"
        prompt += sources.isEmpty ? "(none)\n" : sources.map { "\($0.ref) \($0.title): \($0.snippet)\n" }.joined()
        if !proposals.isEmpty {
            prompt += "Proposed actions awaiting confirmation:\n" + proposals.map { "- \($0.summary)\n" }.joined()
        }
        let clarifications = ambiguous.compactMap(clarification)
        if !clarifications.isEmpty {
            prompt += "Ask the user before proposing anything about these people:\n" + clarifications.map { "- \($0)\n" }.joined()
        }
        prompt += "Question: \(question)"
        return prompt
    }
}
