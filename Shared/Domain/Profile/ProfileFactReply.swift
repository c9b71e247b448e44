import Foundation
import HearthEvents

/// Why a model's reply could not be used at all (the caller then falls back to the rules).
public enum ProfileFactReplyError: Error, Equatable, CustomStringConvertible {
    case notJSON
    case notMatchingSchema(String)

    public var description: String {
        switch self {
        case .notJSON: "the reply is not JSON"
        case .notMatchingSchema(let reason): "the reply does not match the schema: \(reason)"
        }
    }
}

/// A model's extraction reply, checked against `ProfileFactSchema` and the message itself.
///
/// A reply that is not JSON, or whose outer shape is wrong, is unusable as a whole. Within a
/// usable reply each fact is checked on its own and dropped (with the reason) when it breaks the
/// schema or is not grounded: a kind outside the list, a confidence outside 0…1, a subject who is
/// not in the household, or a quoted span that is not in the message. A model's guess must never
/// reach a family's profile without the words it was read from.
public struct ProfileFactReply: Sendable, Equatable {
    public struct Dropped: Sendable, Equatable {
        public var index: Int
        public var reason: String
    }

    public var facts: [ExtractedProfileFact]
    public var dropped: [Dropped]

    static let factKeys: Set<String> = ["kind", "subject", "value", "confidence", "removal", "quoted_span"]
    static let maxValueLength = 120

    /// - Parameter vocabulary: turns allergy and intolerance values into the canonical allergen
    ///   keys meal planning uses ("sesame seeds" → `sesame`); unknown ones are kept as written.
    public static func parse(
        _ text: String, for message: ProfileMessage, vocabulary: AllergenVocabulary? = nil
    ) throws(ProfileFactReplyError) -> ProfileFactReply {
        let document: JSONValue
        do { document = try JSONDecoder().decode(JSONValue.self, from: Data(unfenced(text).utf8)) } catch { throw .notJSON }
        guard case .object(let fields) = document else { throw .notMatchingSchema("the reply must be an object") }
        guard Set(fields.keys) == ["facts"] else { throw .notMatchingSchema("the reply must have exactly the key facts") }
        guard case .array(let items)? = fields["facts"] else { throw .notMatchingSchema("facts must be an array") }

        var reply = ProfileFactReply(facts: [], dropped: [])
        for (index, item) in items.enumerated() {
            switch fact(item, in: message) {
            case .failure(let reason):
                reply.dropped.append(Dropped(index: index, reason: reason.text))
            case .success(let fact):
                for canonical in canonicalised(fact, vocabulary: vocabulary) where !reply.facts.contains(where: { sameFact($0, canonical) }) {
                    reply.facts.append(canonical)
                }
            }
        }
        return reply
    }

    struct Reason: Error {
        var text: String
        init(_ text: String) { self.text = text }
    }

    private static func fact(_ item: JSONValue, in message: ProfileMessage) -> Result<ExtractedProfileFact, Reason> {
        guard case .object(let fields) = item else { return .failure(Reason("not an object")) }
        guard Set(fields.keys) == factKeys else {
            return .failure(Reason("keys must be exactly \(factKeys.sorted().joined(separator: ", "))"))
        }
        guard case .string(let kindText)? = fields["kind"], let kind = ProfileFactKind(rawValue: kindText) else {
            return .failure(Reason("kind is not one of \(ProfileFactKind.allCases.map(\.rawValue).joined(separator: ", "))"))
        }
        guard case .string(let subjectText)? = fields["subject"] else { return .failure(Reason("subject must be a string")) }
        let member = message.members.first(where: { $0 == subjectText }) ?? message.members.first(where: { $0.lowercased() == subjectText.lowercased() })
        guard case .string(let valueText)? = fields["value"] else { return .failure(Reason("value must be a string")) }
        let value = valueText.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !value.isEmpty, value.unicodeScalars.count <= maxValueLength else { return .failure(Reason("value must be 1 to \(maxValueLength) characters")) }
        guard case .number(let confidence)? = fields["confidence"], (0...1).contains(confidence) else {
            return .failure(Reason("confidence must be a number from 0 to 1"))
        }
        guard case .bool(let removal)? = fields["removal"] else { return .failure(Reason("removal must be true or false")) }
        guard case .string(let spanText)? = fields["quoted_span"] else { return .failure(Reason("quoted_span must be a string")) }
        let span = spanText.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !span.isEmpty, message.text.contains(span) else { return .failure(Reason("quoted_span is not in the message")) }
        // Someone not in the household yet: kept under the name as written in the span, for the
        // kinds that keep people safe only (as the rules do), and linked by the household later.
        let subject: String
        if let member {
            subject = member
        } else if isWrittenName(subjectText, in: span), ProfileFactExtractor.unknownSubjectKinds.contains(kind) {
            subject = subjectText
        } else {
            return .failure(Reason("subject is not a member of the household (nor, for a safety fact, a name written in the span)"))
        }
        return .success(
            ExtractedProfileFact(
                kind: kind, subject: subject, value: value, polarity: removal ? .remove : .add, confidence: confidence, quotedSpan: span))
    }

    /// A person's name as the span writes it: one to three capitalised words of letters.
    static func isWrittenName(_ name: String, in span: String) -> Bool {
        let words = name.split(separator: " ")
        guard (1...3).contains(words.count), name.count <= 40, span.contains(name) else { return false }
        return words.allSatisfy { word in word.count >= 2 && word.allSatisfy(\.isLetter) && word.first!.isUppercase }
    }

    private static func canonicalised(_ fact: ExtractedProfileFact, vocabulary: AllergenVocabulary?) -> [ExtractedProfileFact] {
        guard fact.kind.constrainsMeals, let allergens = vocabulary?.allergensDeclared(by: fact.value), !allergens.isEmpty else { return [fact] }
        return allergens.map { allergen in
            var canonical = fact
            canonical.value = allergen.rawValue
            return canonical
        }
    }

    private static func sameFact(_ a: ExtractedProfileFact, _ b: ExtractedProfileFact) -> Bool {
        a.kind == b.kind && a.subject == b.subject && a.value == b.value && a.polarity == b.polarity
    }

    /// The JSON inside a Markdown code fence, which some models add despite the instructions.
    static func unfenced(_ text: String) -> String {
        var body = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard body.hasPrefix("```"), body.hasSuffix("```"), body.count >= 6 else { return body }
        body = String(body.dropFirst(3).dropLast(3))
        // The opening fence may name a language ("```json").
        if let newline = body.firstIndex(of: "\n"), !body[..<newline].contains("{") { body = String(body[body.index(after: newline)...]) }
        return body.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
