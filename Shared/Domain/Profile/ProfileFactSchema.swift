import Foundation
import HearthEvents

/// The JSON schema a model's extraction reply must follow, and the instructions sent with it.
///
/// The reply is `{"facts": [{kind, subject, value, confidence, removal, quoted_span}]}`. The
/// schema is in OpenAI's strict form (every property required, no others allowed), so a provider
/// that enforces schemas can send it as is; for the others it is written into the instructions,
/// and `ProfileFactReply` checks every reply against it either way.
public enum ProfileFactSchema {
    public static let name = "profile_facts"

    /// `subject` names a listed member, or (for a safety fact) someone named who is not listed yet,
    /// so it is no enum; `ProfileFactReply` checks which it is.
    public static func schema(members: [String]) -> JSONValue {
        let subject: [String: JSONValue] = [
            "type": .string("string"),
            "description": .string(
                "the household member the fact is about, spelled exactly as listed (\(members.joined(separator: ", "))); for an allergy, "
                    + "intolerance, diet or injury of someone named who is not listed, their name exactly as the message writes it"),
        ]
        let fact: JSONValue = .object([
            "type": .string("object"),
            "additionalProperties": .bool(false),
            "required": .array(["kind", "subject", "value", "confidence", "removal", "quoted_span"].map(JSONValue.string)),
            "properties": .object([
                "kind": .object([
                    "type": .string("string"),
                    "enum": .array(ProfileFactKind.allCases.map { .string($0.rawValue) }),
                ]),
                "subject": .object(subject),
                "value": .object([
                    "type": .string("string"),
                    "description": .string("short lower-case phrase: the allergen, diet, injury, goal, food or time"),
                ]),
                "confidence": .object([
                    "type": .string("number"), "minimum": .number(0), "maximum": .number(1),
                    "description": .string("how directly the message states it, 0 to 1"),
                ]),
                "removal": .object([
                    "type": .string("boolean"),
                    "description": .string("true when the message says the fact is not, or no longer, true"),
                ]),
                "quoted_span": .object([
                    "type": .string("string"),
                    "description": .string("the words of the message the fact is read from, copied exactly"),
                ]),
            ]),
        ])
        return .object([
            "type": .string("object"),
            "additionalProperties": .bool(false),
            "required": .array([.string("facts")]),
            "properties": .object(["facts": .object(["type": .string("array"), "items": fact])]),
        ])
    }

    public static func systemPrompt(members: [String]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let schemaText = (try? encoder.encode(schema(members: members))).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return """
            You read one message from a family's chat and list durable facts about members of the household: \
            allergies, intolerances, diets, injuries, goals, food preferences, dislikes and schedules. \
            Only state what the message asserts about a household member; questions, wishes, hypotheticals and \
            facts about people outside the family (friends, colleagues, teachers) give nothing. An allergy, intolerance, diet \
            or injury of someone named who is not a listed member is kept with their name as written: the family will say \
            who they are. "I" and "me" mean the speaker. A fact the message says is not, \
            or no longer, true has "removal": true. Copy "quoted_span" exactly from the message. \
            Answer with JSON only, matching this schema: \(schemaText)
            """
    }

    public static func prompt(for message: ProfileMessage) -> String {
        """
        Household members: \(message.members.joined(separator: ", "))
        Speaker: \(message.speaker)
        Message: \(message.text)
        """
    }
}
