import Foundation

/// Why a model's quiz reply was refused. A refused reply falls back to the bank, so the cases
/// say enough to log and to tune the prompt, nothing more.
public enum ModelQuizError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No JSON object with a "questions" member could be found in the reply.
    case noQuiz(reason: String)
    /// The object was found, but "questions" is not a list of 1…`ModelQuizParser.maxQuestions` objects.
    case invalidQuiz(reason: String)
    /// `question` is the question's 0-based position in the reply.
    case invalidQuestion(question: Int, field: String, reason: String)

    public var description: String {
        switch self {
        case .noQuiz(let reason):
            return "model quiz: \(reason)"
        case .invalidQuiz(let reason):
            return "model quiz: \(reason)"
        case .invalidQuestion(let question, let field, let reason):
            return "model quiz: questions[\(question)], field \"\(field)\": \(reason)"
        }
    }
}

/// Turns a model's reply into quiz questions held to the quiz bank's rules, so a person cannot
/// tell a model's question from a bank one by its shape.
public enum ModelQuizParser {
    /// More than this is not a "quick" quiz, and a longer reply is likelier to hold a wrong fact.
    public static let maxQuestions = 10
    /// Replies longer than this are not a quiz of `maxQuestions`; refusing them keeps the scan
    /// for the JSON object cheap.
    public static let maxReplyLength = 64_000
    /// How many `{` the scan tries before giving up, for the same reason.
    static let maxCandidates = 32

    /// The reply's shape, to put in the prompt (and in a request's response format where the
    /// model supports one). It asks for exactly four choices, which `parse` does not insist on:
    /// two or three distinct ones still make a fair question.
    public static let jsonSchema = """
        {
          "type": "object",
          "additionalProperties": false,
          "required": ["questions"],
          "properties": {
            "questions": {
              "type": "array",
              "minItems": 1,
              "maxItems": \(maxQuestions),
              "items": {
                "type": "object",
                "additionalProperties": false,
                "required": ["prompt", "choices", "answer", "lesson", "tip_id"],
                "properties": {
                  "prompt": {"type": "string", "minLength": 1, "maxLength": \(QuizBank.promptLimit)},
                  "choices": {
                    "type": "array",
                    "minItems": 4,
                    "maxItems": 4,
                    "uniqueItems": true,
                    "items": {"type": "string", "minLength": 1, "maxLength": \(QuizBank.choiceLimit)}
                  },
                  "answer": {"type": "integer", "minimum": 0, "maximum": 3},
                  "lesson": {"type": "string", "minLength": 1, "maxLength": \(QuizBank.lessonLimit)},
                  "tip_id": {"type": "string"}
                }
              }
            }
          }
        }
        """

    /// The instruction for a model. Nothing about the person goes in except the trigger words,
    /// which are the shared vocabulary rather than anything they typed.
    public static func prompt(domain: WellbeingInterest, count: Int, triggers: [WellbeingTrigger], tips: TipCatalogue) -> String {
        let count = min(max(count, 1), maxQuestions)
        var unique: [WellbeingTrigger] = []
        for trigger in triggers where !unique.contains(trigger) { unique.append(trigger) }
        let counts = Dictionary(unique.map { ($0, 1) }, uniquingKeysWith: +)
        // A short list of the best fits keeps the prompt small and the model's choice sensible.
        let candidates = TipRanking.rank(tips.tips, triggerCounts: counts, interests: [domain], seen: []).prefix(12)

        var lines = [
            "Write \(count) multiple-choice trivia question\(count == 1 ? "" : "s") about \(domain.displayName) for a private "
                + "wellbeing space where an adult practises handling urges.",
            "",
            "Rules:",
            "- Use only well-known, verifiable facts you are certain of. An easy question is better than a wrong answer key.",
            "- Give each question exactly 4 distinct, short choices with exactly one correct. \"answer\" is the 0-based index "
                + "of the correct choice; vary its position between questions.",
            "- \"lesson\" is one warm sentence tying the trivia to pausing before acting, riding out urges, habits, planning "
                + "or self-compassion.",
            "- \"tip_id\" is the id of the tip below that best fits the lesson.",
            "- No medical claims, diagnoses or dosages. Never shame or lecture.",
        ]
        if !unique.isEmpty {
            lines += ["", "Recent triggers to keep in mind: \(unique.map(\.rawValue).joined(separator: ", "))."]
        }
        lines += ["", "Tips:"]
        lines += candidates.map { "- \($0.id): \($0.title)" }
        lines += ["", "Reply with only a JSON object matching this schema, with no text before or after it:", jsonSchema]
        return lines.joined(separator: "\n")
    }

    /// The questions in `text`, with ids "\(idPrefix)-1"… in reply order. The JSON object may be
    /// wrapped in a code fence or surrounded by prose; fields beyond the schema are ignored. An
    /// unknown or missing tip id is replaced by `tips`' best tip for `domain`, since the tip is
    /// ours to choose and a good question should not be lost over it.
    public static func parse(_ text: String, domain: WellbeingInterest, tips: TipCatalogue, idPrefix: String) throws(ModelQuizError) -> [QuizQuestion] {
        guard text.utf8.count <= maxReplyLength else {
            throw .noQuiz(reason: "the reply is \(text.utf8.count) bytes, more than \(maxReplyLength)")
        }
        guard let object = quizObject(in: text) else {
            throw .noQuiz(reason: "the reply holds no JSON object with a \"questions\" list")
        }
        let reply: Reply
        do {
            reply = try JSONDecoder().decode(Reply.self, from: object)
        } catch let problem as QuestionProblem {
            throw .invalidQuestion(question: problem.index, field: problem.field, reason: problem.reason)
        } catch {
            throw .invalidQuiz(reason: "\"questions\" must be a list of question objects")
        }
        guard (1...maxQuestions).contains(reply.questions.count) else {
            throw .invalidQuiz(reason: "\"questions\" holds \(reply.questions.count) questions, not 1 to \(maxQuestions)")
        }

        var questions: [QuizQuestion] = []
        var promptOwners: [String: Int] = [:]
        for (index, raw) in reply.questions.enumerated() {
            let tipID: String
            if let id = raw.tipID.map(trimmed), tips.tip(id: id) != nil {
                tipID = id
            } else if let best = tips.bestTip(for: domain) {
                tipID = best.id
            } else {
                throw .invalidQuestion(question: index, field: "tip_id", reason: "is not a known tip, and there are no tips to replace it with")
            }
            let question = QuizQuestion(
                id: "\(idPrefix)-\(index + 1)", domain: domain, prompt: trimmed(raw.prompt), choices: raw.choices.map(trimmed),
                answer: raw.answer, lesson: trimmed(raw.lesson), tipID: tipID)
            if let problem = QuizRules.problem(with: question) {
                throw .invalidQuestion(question: index, field: problem.field.rawValue, reason: problem.reason)
            }
            let promptKey = QuizRules.key(question.prompt)
            if let other = promptOwners[promptKey] {
                throw .invalidQuestion(question: index, field: "prompt", reason: "repeats the prompt of questions[\(other)]")
            }
            promptOwners[promptKey] = index
            questions.append(question)
        }
        return questions
    }

    // MARK: - Finding the object

    /// The first balanced `{…}` in `text` that is a JSON object with a "questions" member. Each
    /// `{` is tried in turn because prose before the object may hold braces of its own, and
    /// strings are skipped so a brace inside a question does not end the object early.
    private static func quizObject(in text: String) -> Data? {
        let bytes = Array(text.utf8)
        var tried = 0
        var start = 0
        while start < bytes.count, tried < maxCandidates {
            guard let open = bytes[start...].firstIndex(of: UInt8(ascii: "{")) else { return nil }
            tried += 1
            if let close = matchingBrace(in: bytes, from: open) {
                let data = Data(bytes[open...close])
                if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], object["questions"] != nil {
                    return data
                }
            }
            start = open + 1
        }
        return nil
    }

    private static func matchingBrace(in bytes: [UInt8], from open: Int) -> Int? {
        var depth = 0
        var inString = false
        var escaped = false
        for index in open..<bytes.count {
            let byte = bytes[index]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"): depth += 1
            case UInt8(ascii: "}"):
                depth -= 1
                if depth == 0 { return index }
            default: break
            }
        }
        return nil
    }

    private static func trimmed(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: - Decoding

    private struct Reply: Decodable {
        let questions: [RawQuestion]
    }

    private struct QuestionProblem: Error {
        let index: Int
        let field: String
        let reason: String
    }

    /// One question as the model wrote it, before trimming and checking. Decoded field by field
    /// so the refusal names the question and field the prompt should be tuned for.
    private struct RawQuestion: Decodable {
        let prompt: String
        let choices: [String]
        let answer: Int
        let lesson: String
        let tipID: String?

        init(from decoder: any Decoder) throws {
            let index = decoder.codingPath.last?.intValue ?? 0
            let container: KeyedDecodingContainer<WellbeingJSONKey>
            do {
                container = try decoder.container(keyedBy: WellbeingJSONKey.self)
            } catch {
                throw QuestionProblem(index: index, field: "-", reason: "must be a JSON object")
            }
            func field<Value: Decodable>(_ key: String, as expected: String) throws -> Value {
                do {
                    return try container.decode(Value.self, forKey: WellbeingJSONKey(key))
                } catch DecodingError.keyNotFound {
                    throw QuestionProblem(index: index, field: key, reason: "is missing")
                } catch {
                    throw QuestionProblem(index: index, field: key, reason: "must be \(expected)")
                }
            }
            prompt = try field("prompt", as: "a string")
            choices = try field("choices", as: "a list of strings")
            answer = try field("answer", as: "a whole number")
            lesson = try field("lesson", as: "a string")
            // Only a string counts; anything else is as good as missing and gets replaced.
            tipID = try? container.decode(String.self, forKey: WellbeingJSONKey("tip_id"))
        }
    }
}
