import Foundation
import HearthContent

/// One multiple-choice question: trivia from an interest domain, the lesson about urges it leads
/// to, and the tip earned by answering it.
public struct QuizQuestion: Codable, Sendable, Equatable, Identifiable {
    /// "sci_fi-007" in the bank; "<prefix>-1"… for questions a model wrote.
    public let id: String
    public let domain: WellbeingInterest
    public let prompt: String
    public let choices: [String]
    /// 0-based index into `choices`.
    public let answer: Int
    public let lesson: String
    public let tipID: String

    public init(
        id: String, domain: WellbeingInterest, prompt: String, choices: [String], answer: Int, lesson: String, tipID: String
    ) {
        self.id = id
        self.domain = domain
        self.prompt = prompt
        self.choices = choices
        self.answer = answer
        self.lesson = lesson
        self.tipID = tipID
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, domain, prompt, choices, answer, lesson
        case tipID = "tip_id"
    }
}

/// Why a quiz bank was refused. A wrong answer key or a dangling tip id would be shown to a
/// person as fact, so a broken entry refuses the whole file and names the question and field.
public enum QuizBankError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file (or the tips it is checked against) cannot be read, or is not
    /// `{"source": …, "questions": […]}`.
    case unreadable(file: String, reason: String)
    /// `question` is the question's id, or its position ("questions[3]") when it has no usable id.
    case invalidQuestion(question: String, field: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason):
            return "\(file): cannot read: \(reason)"
        case .invalidQuestion(let question, let field, let reason):
            return "\(QuizBank.file): question \"\(question)\", field \"\(field)\": \(reason)"
        }
    }
}

/// The offline quiz bank (`wellbeing/quiz_bank.json`), checked against the tips it points at.
/// Pure and immutable: load once, share freely.
public struct QuizBank: Sendable {
    public static let file = "quiz_bank.json"
    /// Fewer than two choices is not a question; more than four is too many for a phone screen.
    public static let choiceCounts = 2...4
    /// Limits that keep a question readable on one card; model-written questions meet them too.
    public static let promptLimit = 300
    public static let choiceLimit = 100
    public static let lessonLimit = 300

    /// Provenance of the file (its `source`).
    public let source: String
    /// In the file's order.
    public let questions: [QuizQuestion]
    private let positionByID: [String: Int]
    private let positionsByDomain: [WellbeingInterest: [Int]]
    /// Per question, `StableHash.fnv1a` of its id: what `pick` shuffles by, so a question keeps
    /// its place in a seed's order when others are added or removed.
    private let idHashes: [UInt64]

    private static let loaded = Result { () throws(QuizBankError) -> QuizBank in
        let tips: TipCatalogue
        do {
            tips = try TipCatalogue.bundled()
        } catch {
            throw .unreadable(file: TipCatalogue.file, reason: "\(error)")
        }
        let data: Data
        do {
            data = try HearthContent.wellbeing(file)
        } catch {
            throw .unreadable(file: file, reason: "\(error)")
        }
        return try QuizBank(data: data, tips: tips)
    }

    /// The bundled `quiz_bank.json`, checked against the bundled tips and parsed once per process.
    public static func bundled() throws(QuizBankError) -> QuizBank {
        try loaded.get()
    }

    /// Decodes and checks a quiz bank; every `tip_id` must be a tip of `tips`.
    public init(data: Data, tips: TipCatalogue) throws(QuizBankError) {
        let file: FileShape
        do {
            file = try JSONDecoder().decode(FileShape.self, from: data)
        } catch let problem as WellbeingFieldProblem {
            throw .invalidQuestion(question: problem.entry, field: problem.field, reason: problem.reason)
        } catch {
            throw .unreadable(file: Self.file, reason: WellbeingJSON.reason(error))
        }
        var positionByID: [String: Int] = [:]
        var positionsByDomain: [WellbeingInterest: [Int]] = [:]
        var promptOwners: [String: String] = [:]
        for (position, question) in file.questions.map(\.question).enumerated() {
            func refuse(_ field: QuizQuestion.CodingKeys, _ reason: String) -> QuizBankError {
                .invalidQuestion(question: question.id, field: field.rawValue, reason: reason)
            }
            let prefix = question.domain.rawValue + "-"
            guard question.id.hasPrefix(prefix), WellbeingJSON.isSlug(String(question.id.dropFirst(prefix.count))) else {
                throw refuse(.id, "must be the domain, a hyphen and lower-case letters or digits (\"\(prefix)001\")")
            }
            if let other = positionByID[question.id] {
                throw refuse(.id, "repeats the id of questions[\(other)]")
            }
            if let problem = QuizRules.problem(with: question) {
                throw refuse(problem.field, problem.reason)
            }
            guard tips.tip(id: question.tipID) != nil else {
                throw refuse(.tipID, "\"\(question.tipID)\" is not a tip of \(TipCatalogue.file)")
            }
            // The same question twice under two ids would come up twice in one pick.
            let promptKey = QuizRules.key(question.prompt)
            if let other = promptOwners[promptKey] {
                throw refuse(.prompt, "repeats the prompt of \(other)")
            }
            promptOwners[promptKey] = question.id
            positionByID[question.id] = position
            positionsByDomain[question.domain, default: []].append(position)
        }
        source = file.source
        questions = file.questions.map(\.question)
        self.positionByID = positionByID
        self.positionsByDomain = positionsByDomain
        idHashes = questions.map { StableHash.fnv1a($0.id) }
    }

    /// In the file's order.
    public func questions(in domain: WellbeingInterest) -> [QuizQuestion] {
        (positionsByDomain[domain] ?? []).map { questions[$0] }
    }

    public func question(id: String) -> QuizQuestion? {
        positionByID[id].map { questions[$0] }
    }

    /// Up to `count` questions of `domain`, each at most once, in an order fixed by `seed`.
    /// Questions not in `seen` come first; seen ones only fill the quiz once every unseen one is
    /// in it, so someone who has seen the whole domain still gets a quiz, in the seed's order.
    /// The same bank, arguments and seed always give the same questions on every machine.
    public func pick(domain: WellbeingInterest, count: Int, excluding seen: Set<String>, seed: UInt64) -> [QuizQuestion] {
        guard count > 0, let positions = positionsByDomain[domain] else { return [] }
        let ordered = positions
            .map { (position: $0, key: StableHash.mix(seed ^ idHashes[$0])) }
            .sorted { ($0.key, questions[$0.position].id) < ($1.key, questions[$1.position].id) }
            .map(\.position)
        let unseen = ordered.filter { !seen.contains(questions[$0].id) }
        let repeats = ordered.filter { seen.contains(questions[$0].id) }
        return (unseen + repeats).prefix(count).map { questions[$0] }
    }

    // MARK: - Decoding

    private struct FileShape: Decodable {
        let source: String
        let questions: [Entry]
    }

    /// Decodes one question field by field, so a wrong type, a misspelt key or an unknown domain
    /// is reported with the question's id and the field's name.
    private struct Entry: Decodable {
        let question: QuizQuestion

        init(from decoder: any Decoder) throws {
            let reader = try WellbeingEntryReader(decoder, list: "questions")
            let id: String = try reader.field("id", of: reader.position, as: "a string")
            try reader.refuseUnknownKeys(known: QuizQuestion.CodingKeys.allCases.map(\.rawValue), of: id)
            let domain: String = try reader.field("domain", of: id, as: "a string")
            let interests: [WellbeingInterest] = try WellbeingJSON.values([domain], field: "domain", of: id)
            question = QuizQuestion(
                id: id,
                domain: interests[0],
                prompt: try reader.field("prompt", of: id, as: "a string"),
                choices: try reader.field("choices", of: id, as: "a list of strings"),
                answer: try reader.field("answer", of: id, as: "a whole number"),
                lesson: try reader.field("lesson", of: id, as: "a string"),
                tipID: try reader.field("tip_id", of: id, as: "a string"))
        }
    }
}

/// The rules every question meets, whether from the bank or from a model, so both are shown
/// to people on the same terms.
enum QuizRules {
    static func problem(with question: QuizQuestion) -> (field: QuizQuestion.CodingKeys, reason: String)? {
        if let reason = WellbeingJSON.textProblem(question.prompt, limit: QuizBank.promptLimit) { return (.prompt, reason) }
        let choices = question.choices
        guard QuizBank.choiceCounts.contains(choices.count) else {
            return (.choices, "must hold \(QuizBank.choiceCounts.lowerBound) to \(QuizBank.choiceCounts.upperBound) choices, not \(choices.count)")
        }
        for (index, choice) in choices.enumerated() {
            if let reason = WellbeingJSON.textProblem(choice, limit: QuizBank.choiceLimit) {
                return (.choices, "choice \(index) \(reason)")
            }
        }
        // Ignoring case and spacing, so "Paris" and "paris " cannot both be offered.
        if Set(choices.map(key)).count != choices.count { return (.choices, "repeats a choice") }
        guard choices.indices.contains(question.answer) else {
            return (.answer, "\(question.answer) is not the index of a choice (0...\(choices.count - 1))")
        }
        if let reason = WellbeingJSON.textProblem(question.lesson, limit: QuizBank.lessonLimit) { return (.lesson, reason) }
        return nil
    }

    /// Text compared ignoring case and runs of spaces.
    static func key(_ text: String) -> String {
        text.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
