import Foundation
import HearthDomain
import HearthEvents

/// A contextual action on one chat message, run as an assistant turn: summarise the thread it is
/// in, surface related messages of the user's chats, or suggest a reminder it calls for (proposed
/// like any tool call, and confirmed or edited by the family). The thread comes in the request
/// (`MessageFocus`), as the gateway read it for a member of the chat.
struct MessageActionFlow: Sendable {
    static let summarySystem = """
        You summarise a family's chat thread in two or three sentences: what was decided, dates and times, who does what. \
        Use only the messages given. Never give medical advice.
        """
    static let relatedSystem = """
        A family member wants the earlier messages related to one message. Say in one or two sentences what the numbered \
        sources add, citing them like [1]. Use only the sources.
        """

    let flow: AssistantFlow

    func run(
        _ request: AssistantMessageRequestedV3, focus: MessageFocus, tools: FlowTools, emitter: RunEmitter, usage: inout ModelUsage
    ) async throws -> JSONValue {
        guard let action = MessageAction(rawValue: focus.action) else { throw MessageActionUnknown(action: focus.action) }
        let conversation = JSONValue.string(request.conversationId.uuidString.lowercased())
        let focused = focus.thread.first { $0.messageId == focus.messageId }
        try await emitter.emit(.context, .object([
            "household_id": .string(request.householdId.uuidString.lowercased()),
            "conversation_id": conversation,
            "mode": .string(AssistantFlow.mode),
            "action": .string(action.rawValue),
            "chat_id": .string(focus.chatId.uuidString.lowercased()),
            "message_id": .string(focus.messageId.uuidString.lowercased()),
            "time_zone": .string(request.timeZone),
        ]))
        var final: [String: JSONValue] = ["conversation_id": conversation, "action": .string(action.rawValue)]
        let answer: String
        switch action {
        case .summarize:
            let sources = Self.sources(of: focus)
            try await emitter.emit(.toolCall, .object(["tool": .string("read_thread"), "chat_id": .string(focus.chatId.uuidString.lowercased())]))
            try await emitter.emit(.toolResult, .object(["tool": .string("read_thread"), "messages": .number(Double(focus.thread.count))]))
            answer = try await tools.models.complete(
                .synthesis, system: Self.summarySystem, prompt: Self.threadPrompt(focus.thread),
                maxOutputTokens: AssistantFlow.maxTokens, temperature: AssistantFlow.temperature,
                offlineAnswer: ThreadDigest.summary(of: focus.thread.map { ThreadLine(author: $0.authorName, text: $0.text) }), usage: &usage,
                onToken: { token in emitter.streamText(token) })
            final["sources"] = try JSONValue(encoding: sources)

        case .related:
            let query = focused?.text ?? ""
            try await emitter.emit(.toolCall, .object(["tool": .string("search_messages"), "query": .string(query)]))
            let found = AssistantRetrieval.merged(
                await flow.retrieval.sources(for: query, chats: request.chatIds)
                    .filter { $0.kind == "message" && $0.id != focus.messageId.uuidString.lowercased() }, [])
            try await emitter.emit(.toolResult, .object(["tool": .string("search_messages"), "sources": try JSONValue(encoding: found)]))
            answer = try await tools.models.complete(
                .synthesis, system: Self.relatedSystem,
                prompt: AssistantFlow.prompt(question: "Which messages relate to: “\(query)”", profile: [], sources: found, proposals: []),
                maxOutputTokens: AssistantFlow.maxTokens, temperature: AssistantFlow.temperature,
                offlineAnswer: Self.relatedAnswer(found), usage: &usage, onToken: { token in emitter.streamText(token) })
            final["sources"] = try JSONValue(encoding: found)
            final["related"] = .array(found.map { .string($0.id) })

        case .remind:
            let text = focused?.text ?? ""
            let zone = LocalTime.zone(named: request.timeZone) ?? .gmt
            var read = AssistantIntents()
            if tools.models.router.hasMeteredProvider(for: .planning) {
                // The model reads the message with the reminder tool on offer; only a reminder counts.
                read = try await flow.intents.read("Remind me about this message: \(text)", request: request, zone: zone, models: tools.models, usage: &usage)
                let kept = read.proposals.indices.filter { read.proposals[$0].tool == "set_reminder" }
                read.proposals = kept.map { read.proposals[$0] }
                read.choices = kept.map { $0 < read.choices.count ? read.choices[$0] : nil }
            }
            var timed = true
            if read.proposals.isEmpty {
                let parser = AssistantIntentParser(now: request.requestedAt, timeZone: zone, members: [])
                let suggestion = parser.suggestedReminder(from: text)
                timed = suggestion.timed
                if let proposal = ProposedAction(.setReminder(suggestion.reminder), members: request.members, timeZone: zone) {
                    read.proposals = [proposal]
                    read.choices = [nil]
                }
            }
            let actions = try await flow.propose(read.proposals, choices: read.choices, for: request, emitter: emitter)
            final["actions"] = .array(actions)
            final["intents_read_by"] = .string(read.readBy)
            if !read.refused.isEmpty { final["refused_tool_calls"] = .array(read.refused) }
            answer = Self.reminderAnswer(read.proposals, timed: timed)
            emitter.streamText(answer)
        }
        final["answer"] = .string(try tools.safety.postcheck(answer, domain: AssistantFlow.mode, childAges: []))
        return .object(final)
    }

    /// The thread's messages as citable sources, in order.
    static func sources(of focus: MessageFocus) -> [AssistantSource] {
        AssistantRetrieval.merged(focus.thread.map { message in
            AssistantSource(
                ref: "", kind: "message", id: message.messageId.uuidString.lowercased(), title: message.authorName, snippet: message.text,
                chatId: focus.chatId.uuidString.lowercased(), score: 1)
        }, [])
    }

    static func threadPrompt(_ thread: [FocusedMessage]) -> String {
        "Thread, oldest first:\n" + thread.map { "\($0.authorName): \($0.text)\n" }.joined() + "Summarise it."
    }

    static func relatedAnswer(_ found: [AssistantSource]) -> String {
        guard !found.isEmpty else { return "No other message in your chats is about this." }
        let intro = found.count == 1 ? "One message looks related:" : "\(found.count) messages look related:"
        return ([intro] + found.map { "\($0.ref) \($0.title): “\($0.snippet)”" }).joined(separator: "\n")
    }

    static func reminderAnswer(_ proposals: [ProposedAction], timed: Bool) -> String {
        guard let proposal = proposals.first else { return "I couldn't find anything in this message to be reminded of." }
        let when = timed ? "" : " The message names no time, so I picked the next morning: change it before you confirm."
        return "I can set this reminder once you confirm it: \(proposal.summary).\(when)"
    }
}

/// A focus naming an action this orchestrator does not know (a newer gateway's): the run fails
/// with a clear error rather than guessing.
struct MessageActionUnknown: Error, CustomStringConvertible {
    let action: String
    var description: String { "unknown contextual action \"\(action)\"" }
}
