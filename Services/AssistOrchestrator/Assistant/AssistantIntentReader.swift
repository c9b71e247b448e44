import Foundation
import HearthAssist
import HearthDomain
import HearthEvents
import Logging

/// What a message asks the assistant to do: the actions to propose, the lookups to run, and the
/// tool calls refused or left ambiguous (reported, never executed).
struct AssistantIntents: Sendable {
    var proposals: [ProposedAction] = []
    /// For each proposal (same order), the choice between people it waits for, if any.
    var choices: [ActionChoice?] = []
    var lookups: [AssistantLookup] = []
    /// `{"tool", "call_id", "error": {"error", "argument", "reason"}}` for each refused call.
    var refused: [JSONValue] = []
    /// `{"tool", "argument", "written", "choices": [{"member_id", "name"}]}` for each call naming
    /// a person who matches several members.
    var ambiguous: [JSONValue] = []
    /// `rules` (the offline parser) or the `provider:model` whose tool calls these are.
    var readBy: String = "rules"
}

/// Reads a message's intents. With a real provider in the planning chain, the model is offered
/// the assistant's tools (`AssistantToolCatalogue`) and its tool calls are the intents, each
/// validated against its schema and the household (members by name, dates in the user's zone)
/// before anything is proposed; offline, or when the chain fell back to the local provider, the
/// regex parser reads them.
struct AssistantIntentReader: Sendable {
    static let system = """
        You are a family's household assistant. Call a tool for each thing the user asks you to do (reminders, calendar \
        entries, chores, messages to family members) or to look up (their chats, a member's profile). Use people's names as \
        written. Dates and times are local to the user. Do not call a tool for a plain question. Nothing you propose happens \
        until the family confirms it.
        """
    static let maxTokens = 400
    static let tools = AssistantToolCatalogue.definitions.map { ModelTool(name: $0.name, description: $0.description, parameters: $0.parameters) }

    let logger: Logger

    func read(
        _ question: String, request: AssistantMessageRequestedV3, zone: TimeZone, models: RunModels, usage: inout ModelUsage
    ) async throws -> AssistantIntents {
        let members = request.members.map { NamedMember(memberId: $0.memberId, name: $0.name) }
        guard models.router.hasMeteredProvider(for: .planning) else { return rules(question, request: request, members: members, zone: zone) }
        let response: ModelResponse
        do {
            response = try await models.respond(
                .planning, system: Self.system, prompt: Self.prompt(question: question, request: request, zone: zone),
                maxOutputTokens: Self.maxTokens, temperature: 0, tools: Self.tools, offlineAnswer: "", usage: &usage)
        } catch is ModelRouterError {
            // No provider answered: the rules still read what they can.
            return rules(question, request: request, members: members, zone: zone)
        }
        guard response.provider != "local" else { return rules(question, request: request, members: members, zone: zone) }
        var intents = AssistantIntents(readBy: "\(response.provider):\(response.model)")
        let validator = AssistantToolCallValidator(now: request.requestedAt, timeZone: zone, members: members)
        for call in response.toolCalls {
            do {
                switch try validator.validate(tool: call.name, arguments: call.arguments) {
                case .proposal(let intent):
                    if let proposal = ProposedAction(intent, members: request.members, timeZone: zone) {
                        intents.proposals.append(proposal)
                        intents.choices.append(nil)
                    } else {
                        intents.refused.append(Self.refusal(call, AssistantToolCallRefusal(
                            .unknownMember, argument: "recipient", reason: "recipient does not sign in to Hearth, so no message can reach them")))
                    }
                case .ambiguous(let argument, let written, let choices):
                    // Proposed with the first of them for now, waiting for a member to choose
                    // (`PATCH /v1/assistant/actions/{id}`); confirming it before is refused.
                    let others = Set(choices.dropFirst().map(\.memberId))
                    let narrowed = AssistantToolCallValidator(now: request.requestedAt, timeZone: zone, members: members.filter { !others.contains($0.memberId) })
                    if case .proposal(let intent)? = try? narrowed.validate(tool: call.name, arguments: call.arguments),
                       let proposal = ProposedAction(intent, members: request.members, timeZone: zone) {
                        intents.proposals.append(proposal)
                        intents.choices.append(
                            ActionChoice(argument: argument, written: written, options: choices.map { .init(memberId: $0.memberId, name: $0.name) }))
                    }
                    intents.ambiguous.append(.object([
                        "tool": .string(call.name), "argument": .string(argument), "written": .string(written),
                        "choices": .array(choices.map { .object(["member_id": .string($0.memberId.uuidString.lowercased()), "name": .string($0.name)]) }),
                    ]))
                case .lookup(let lookup):
                    intents.lookups.append(lookup)
                }
            } catch {
                // Reported to the user and in the run's events, never executed.
                logger.info("model tool call refused", metadata: [
                    "run_id": "\(request.runId)", "tool": "\(call.name)", "code": "\(error.code.rawValue)",
                ])
                intents.refused.append(Self.refusal(call, error))
            }
        }
        return intents
    }

    private func rules(_ question: String, request: AssistantMessageRequestedV3, members: [NamedMember], zone: TimeZone) -> AssistantIntents {
        let parser = AssistantIntentParser(now: request.requestedAt, timeZone: zone, members: members)
        let proposals = parser.intents(in: question).compactMap { ProposedAction($0, members: request.members, timeZone: zone) }
        return AssistantIntents(proposals: proposals, choices: proposals.map { _ in nil })
    }

    static func refusal(_ call: ModelToolCall, _ refusal: AssistantToolCallRefusal) -> JSONValue {
        .object(["tool": .string(call.name), "call_id": .string(call.id), "error": refusal.toolResult])
    }

    /// The message with what the model needs to fill the arguments: who is in the household, the
    /// user's local time and zone, and what the household's profile says.
    static func prompt(question: String, request: AssistantMessageRequestedV3, zone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "EEEE yyyy-MM-dd'T'HH:mm"
        var prompt = AssistantFlow.conversation(request.history)
        prompt += "Now: \(formatter.string(from: request.requestedAt)) (\(zone.identifier))\n"
        prompt += "Household members: " + (request.members.isEmpty ? "(none)" : request.members.map { "\($0.name) (\($0.role))" }.joined(separator: ", ")) + "\n"
        if !request.profile.isEmpty { prompt += "Profile:\n" + request.profile.map { "- \($0)\n" }.joined() }
        prompt += "Message: \(question)"
        return prompt
    }
}
