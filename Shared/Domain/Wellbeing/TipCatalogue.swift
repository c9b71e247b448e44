import Foundation
import HearthContent

/// One actionable tip from `wellbeing/tips.json`: something concrete to try when an urge shows up.
public struct WellbeingTip: Codable, Sendable, Equatable, Identifiable {
    /// "tip-001": stable, because quiz questions, model replies and "seen" lists refer to it.
    public let id: String
    public let title: String
    public let body: String
    /// The situations the tip helps with; what `TipRanking` matches against check-ins.
    public let triggers: [WellbeingTrigger]
    /// Interest domains whose quiz lessons the tip fits; empty for tips that fit any domain.
    public let domains: [WellbeingInterest]

    public init(id: String, title: String, body: String, triggers: [WellbeingTrigger], domains: [WellbeingInterest]) {
        self.id = id
        self.title = title
        self.body = body
        self.triggers = triggers
        self.domains = domains
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, title, body, triggers, domains
    }
}

/// Why a tips file was refused. Quiz questions and model replies point at tips by id, so a
/// broken entry refuses the whole file rather than silently leaving a dangling reference.
public enum TipCatalogueError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file cannot be read or is not `{"source": …, "tips": […]}`.
    case unreadable(file: String, reason: String)
    /// `tip` is the tip's id, or its position ("tips[3]") when it has no usable id.
    case invalidTip(tip: String, field: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason):
            return "\(file): cannot read: \(reason)"
        case .invalidTip(let tip, let field, let reason):
            return "\(TipCatalogue.file): tip \"\(tip)\", field \"\(field)\": \(reason)"
        }
    }
}

/// The wellbeing tips (`wellbeing/tips.json`). Pure and immutable: load once, share freely.
public struct TipCatalogue: Sendable {
    public static let file = "tips.json"
    /// Titles show on a single line of a card; bodies must fit a notification-sized card.
    public static let titleLimit = 60
    public static let bodyLimit = 280
    /// More than three triggers means the tip is about nothing in particular.
    public static let triggersPerTip = 1...3
    public static let domainsPerTip = 0...2

    /// Provenance of the file (its `source`).
    public let source: String
    /// In the file's order.
    public let tips: [WellbeingTip]
    private let positionByID: [String: Int]

    private static let loaded = Result { () throws(TipCatalogueError) -> TipCatalogue in
        let data: Data
        do {
            data = try HearthContent.wellbeing(file)
        } catch {
            throw .unreadable(file: file, reason: "\(error)")
        }
        return try TipCatalogue(data: data)
    }

    /// The bundled `tips.json`, parsed once per process.
    public static func bundled() throws(TipCatalogueError) -> TipCatalogue {
        try loaded.get()
    }

    /// Decodes and checks a tips file.
    public init(data: Data) throws(TipCatalogueError) {
        let file: FileShape
        do {
            file = try JSONDecoder().decode(FileShape.self, from: data)
        } catch let problem as WellbeingFieldProblem {
            throw .invalidTip(tip: problem.entry, field: problem.field, reason: problem.reason)
        } catch {
            throw .unreadable(file: Self.file, reason: WellbeingJSON.reason(error))
        }
        var positionByID: [String: Int] = [:]
        for (position, tip) in file.tips.map(\.tip).enumerated() {
            if let problem = Self.problem(with: tip) {
                throw .invalidTip(tip: tip.id, field: problem.field.rawValue, reason: problem.reason)
            }
            if let other = positionByID[tip.id] {
                throw .invalidTip(tip: tip.id, field: "id", reason: "repeats the id of tips[\(other)]")
            }
            positionByID[tip.id] = position
        }
        source = file.source
        tips = file.tips.map(\.tip)
        self.positionByID = positionByID
    }

    public func tip(id: String) -> WellbeingTip? {
        positionByID[id].map { tips[$0] }
    }

    /// The tip to attach when a question names none that exists: the best ranked for `domain`
    /// and `triggers`, so a replacement still fits the quiz it lands in. Nil only when empty.
    public func bestTip(for domain: WellbeingInterest, triggers: [WellbeingTrigger] = []) -> WellbeingTip? {
        let counts = Dictionary(triggers.map { ($0, 1) }, uniquingKeysWith: +)
        return TipRanking.rank(tips, triggerCounts: counts, interests: [domain], seen: []).first
    }

    private static func problem(with tip: WellbeingTip) -> (field: WellbeingTip.CodingKeys, reason: String)? {
        if !WellbeingJSON.isSlug(tip.id) {
            return (.id, "must be lower-case letters and digits joined by single hyphens")
        }
        if let reason = WellbeingJSON.textProblem(tip.title, limit: titleLimit) { return (.title, reason) }
        if let reason = WellbeingJSON.textProblem(tip.body, limit: bodyLimit) { return (.body, reason) }
        if !triggersPerTip.contains(tip.triggers.count) {
            return (.triggers, "must list \(triggersPerTip.lowerBound) to \(triggersPerTip.upperBound) triggers, not \(tip.triggers.count)")
        }
        if Set(tip.triggers).count != tip.triggers.count { return (.triggers, "lists a trigger twice") }
        if !domainsPerTip.contains(tip.domains.count) {
            return (.domains, "must list at most \(domainsPerTip.upperBound) domains, not \(tip.domains.count)")
        }
        if Set(tip.domains).count != tip.domains.count { return (.domains, "lists a domain twice") }
        return nil
    }

    // MARK: - Decoding

    private struct FileShape: Decodable {
        let source: String
        let tips: [Entry]
    }

    /// Decodes one tip field by field, so a wrong type, a misspelt key or an unknown trigger is
    /// reported with the tip's id and the field's name rather than as a bare coding path.
    private struct Entry: Decodable {
        let tip: WellbeingTip

        init(from decoder: any Decoder) throws {
            let reader = try WellbeingEntryReader(decoder, list: "tips")
            let id: String = try reader.field("id", of: reader.position, as: "a string")
            try reader.refuseUnknownKeys(known: WellbeingTip.CodingKeys.allCases.map(\.rawValue), of: id)
            let triggers: [String] = try reader.field("triggers", of: id, as: "a list of strings")
            let domains: [String] = try reader.field("domains", of: id, as: "a list of strings")
            tip = WellbeingTip(
                id: id,
                title: try reader.field("title", of: id, as: "a string"),
                body: try reader.field("body", of: id, as: "a string"),
                triggers: try WellbeingJSON.values(triggers, field: "triggers", of: id),
                domains: try WellbeingJSON.values(domains, field: "domains", of: id))
        }
    }
}

/// Orders tips for one person. Deterministic, so the same check-ins show the same tips on every
/// server, and explainable from the weights below.
///
/// A tip's score is the sum of:
/// - for each of its triggers the person reported (count > 0): `matchWeight` (3) plus
///   `frequencyWeight` (2) × count ÷ the count of their most reported trigger, so a tip for the
///   trigger they report most gains up to 5 and a rarely reported one a little over 3;
/// - `interestBonus` (1) when one of its domains is among the person's interests;
/// - `similarityWeight` (1) × the embedding similarity given for its id, clamped to 0…1;
/// - minus `seenPenalty` (1000) when already seen.
/// Any trigger match (> 3) outweighs interest plus similarity (≤ 2), so the person's own
/// situation comes first; the penalty exceeds any attainable score, so seen tips go last but
/// stay available. Equal scores are ordered by id.
public enum TipRanking {
    public static let matchWeight = 3.0
    public static let frequencyWeight = 2.0
    public static let interestBonus = 1.0
    public static let similarityWeight = 1.0
    public static let seenPenalty = 1000.0

    public static func rank(
        _ tips: [WellbeingTip], triggerCounts: [WellbeingTrigger: Int], interests: Set<WellbeingInterest>,
        seen: Set<String>, similarity: [String: Double] = [:]
    ) -> [WellbeingTip] {
        let scored = tips.map { tip in
            (tip: tip, score: score(tip, triggerCounts: triggerCounts, interests: interests, seen: seen, similarity: similarity))
        }
        return scored.sorted { lhs, rhs in
            lhs.score != rhs.score ? lhs.score > rhs.score : lhs.tip.id < rhs.tip.id
        }.map(\.tip)
    }

    /// The score `rank` orders by; public so a caller can log why a tip was chosen.
    public static func score(
        _ tip: WellbeingTip, triggerCounts: [WellbeingTrigger: Int], interests: Set<WellbeingInterest>,
        seen: Set<String>, similarity: [String: Double] = [:]
    ) -> Double {
        let most = triggerCounts.values.filter { $0 > 0 }.max() ?? 1
        var score = 0.0
        // In the tip's own order, not a Set's: a Set's order changes between processes, and so
        // would the rounding of the sum. A trigger listed twice counts once; the catalogue refuses
        // that, but callers may rank tips of their own.
        var counted: [WellbeingTrigger] = []
        for trigger in tip.triggers where !counted.contains(trigger) {
            counted.append(trigger)
            guard let count = triggerCounts[trigger], count > 0 else { continue }
            score += matchWeight + frequencyWeight * Double(count) / Double(most)
        }
        if tip.domains.contains(where: interests.contains) { score += interestBonus }
        if let value = similarity[tip.id], !value.isNaN { score += similarityWeight * min(max(value, 0), 1) }
        if seen.contains(tip.id) { score -= seenPenalty }
        return score
    }
}

// MARK: - Shared by the wellbeing files

/// What is wrong with one field of one entry of a wellbeing file; each catalogue turns it into
/// its own error, naming the entry and the field.
struct WellbeingFieldProblem: Error {
    let entry: String
    let field: String
    let reason: String
}

/// Reads one entry of a wellbeing file, turning decoding failures into `WellbeingFieldProblem`s.
struct WellbeingEntryReader {
    /// "tips[3]": how to name the entry before its id is known.
    let position: String
    private let container: KeyedDecodingContainer<WellbeingJSONKey>

    init(_ decoder: any Decoder, list: String) throws {
        position = decoder.codingPath.last?.intValue.map { "\(list)[\($0)]" } ?? "\(list)[?]"
        do {
            container = try decoder.container(keyedBy: WellbeingJSONKey.self)
        } catch {
            throw WellbeingFieldProblem(entry: position, field: "-", reason: "must be a JSON object")
        }
    }

    func field<Value: Decodable>(_ key: String, of entry: String, as expected: String) throws -> Value {
        do {
            return try container.decode(Value.self, forKey: WellbeingJSONKey(key))
        } catch DecodingError.keyNotFound {
            throw WellbeingFieldProblem(entry: entry, field: key, reason: "is missing")
        } catch DecodingError.valueNotFound {
            throw WellbeingFieldProblem(entry: entry, field: key, reason: "must be \(expected), not null")
        } catch {
            throw WellbeingFieldProblem(entry: entry, field: key, reason: "must be \(expected)")
        }
    }

    /// A misspelt key ("tipid") must not pass as an absent field or be silently dropped.
    func refuseUnknownKeys(known: [String], of entry: String) throws {
        let known = Set(known)
        if let unknown = container.allKeys.map(\.stringValue).filter({ !known.contains($0) }).sorted().first {
            throw WellbeingFieldProblem(entry: entry, field: unknown, reason: "is not a known field")
        }
    }
}

struct WellbeingJSONKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

enum WellbeingJSON {
    /// Lower-case letters and digits joined by single hyphens ("tip-001").
    static func isSlug(_ text: String) -> Bool {
        !text.split(separator: "-", omittingEmptySubsequences: false).contains(where: \.isEmpty)
            && text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }

    /// Nil when `text` is non-empty, has no surrounding spaces and fits `limit` characters.
    static func textProblem(_ text: String, limit: Int) -> String? {
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return "must not be empty" }
        if text != text.trimmingCharacters(in: .whitespacesAndNewlines) { return "must not start or end with spaces" }
        if text.count > limit { return "is \(text.count) characters, more than \(limit)" }
        return nil
    }

    /// Raw values read as an enum's cases, naming the first that is not one.
    static func values<Value: RawRepresentable & CaseIterable>(
        _ raw: [String], field: String, of entry: String
    ) throws -> [Value] where Value.RawValue == String {
        try raw.map { text in
            guard let value = Value(rawValue: text) else {
                let allowed = Value.allCases.map(\.rawValue).joined(separator: ", ")
                throw WellbeingFieldProblem(entry: entry, field: field, reason: "\"\(text)\" is not one of \(allowed)")
            }
            return value
        }
    }

    static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context):
            return context.underlyingError.map { "\($0)" } ?? context.debugDescription
        case DecodingError.keyNotFound(let key, _):
            return "missing \"\(key.stringValue)\""
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return "\(path.isEmpty ? "top level" : path): \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }
}
