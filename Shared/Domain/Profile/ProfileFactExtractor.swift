import Foundation

/// Reads profile facts (allergies, diets, injuries, goals, tastes, schedules) out of one chat
/// message with hand-written rules. It is deliberately conservative: questions, hypotheticals,
/// suggestions, uncertain statements and facts about people outside the household give nothing,
/// because a wrong fact in a family's profile costs more than a missed one.
///
/// Negation decides polarity: "isn't allergic to sesame any more", "used to be vegetarian",
/// "outgrew", "no longer" give `remove` facts; a negative with no specific value ("not allergic
/// to anything") gives none; and negated verbs that express a taste ("isn't keen on", "can't
/// stand") are read as dislikes, not as removals.
///
/// A statement about someone named who is not a member yet ("Sam is allergic to sesame" with no
/// Sam in the household) is not dropped when it is about safety or health (allergies,
/// intolerances, diets, injuries): it is read with the name as written, and the household is
/// asked to link it to a member or add one (`ProfileExtractionProjection`).
public struct ProfileFactExtractor: Sendable {
    /// The kinds read about someone not (yet) in the household: the ones that keep people safe.
    public static let unknownSubjectKinds: Set<ProfileFactKind> = [.allergy, .intolerance, .diet, .injury]

    private let vocabulary: AllergenVocabulary

    public init(vocabulary: AllergenVocabulary) {
        self.vocabulary = vocabulary
    }

    public static func bundled() throws -> ProfileFactExtractor {
        ProfileFactExtractor(vocabulary: try AllergenVocabulary.bundled())
    }

    /// - Parameters:
    ///   - speaker: who wrote the message; first-person statements are about them.
    ///   - members: the household's member names; every fact's subject is one of them.
    public func extract(text: String, speaker: String, members: [String]) -> [ExtractedProfileFact] {
        var facts: [ExtractedProfileFact] = []
        var lastSubjects: [String] = []
        var unknownNames = Set<String>()
        for sentence in MessageText.sentences(in: text) {
            if sentence.isQuestion || MessageText.isNonAssertive(sentence.lower) { continue }
            let everyone = MessageText.speaksForEveryone(sentence.lower)
            var pendingCoSubjects: [String] = []
            for clause in MessageText.clauses(in: sentence.text, members: members) {
                if clause.mentionsOutsider { lastSubjects = []; continue }
                let named = clause.namedMembers(members)
                var subjects: [String]
                if !named.isEmpty {
                    subjects = pendingCoSubjects + named
                    if clause.consistsOnlyOf(names: named) {
                        pendingCoSubjects = subjects
                        continue
                    }
                } else if clause.isFirstPerson, members.contains(speaker) {
                    subjects = [speaker]
                } else if everyone || clause.speaksForEveryone {
                    subjects = members
                } else if let name = clause.unknownName(members: members) {
                    subjects = [name]
                    unknownNames.insert(name)
                } else {
                    subjects = lastSubjects
                }
                pendingCoSubjects = []
                guard !subjects.isEmpty else { continue }
                lastSubjects = subjects
                for reading in readings(of: clause, in: sentence) {
                    for subject in subjects where !unknownNames.contains(subject) || Self.unknownSubjectKinds.contains(reading.kind) {
                        facts.append(
                            ExtractedProfileFact(
                                kind: reading.kind, subject: subject, value: reading.value,
                                polarity: reading.polarity, confidence: reading.confidence,
                                quotedSpan: clause.text))
                    }
                }
            }
        }
        return Self.deduplicated(facts)
    }

    // MARK: - Readings of one clause

    private struct Reading {
        var kind: ProfileFactKind
        var value: String
        var polarity: ProfileFactPolarity
        var confidence: Double
    }

    private func readings(of clause: Clause, in sentence: Sentence) -> [Reading] {
        var found: [Reading] = []
        found += allergenReadings(clause)
        found += dietReadings(clause)
        found += injuryReadings(clause, sentence: sentence)
        found += goalReadings(clause)
        found += tasteReadings(clause)
        found += scheduleReadings(clause)
        return found
    }

    private static let intoleranceCues = [
        "intoleran", "coeliac", "celiac", "sensitiv", "doesn't agree with", "don't agree with", "upset", "sore tummy",
        "stomach ache", "bloated",
    ]
    private static let strongAllergyCues = ["allergic", "allergy", "allergies"]
    private static let allergyCues = strongAllergyCues + ["hives", "epipen", "anaphyla", "reacts badly", "reaction to", "asthma"]

    private func allergenReadings(_ clause: Clause) -> [Reading] {
        // "it's not an allergy" describes the kind of a problem, not a fact.
        let lower = clause.lower.replacingOccurrences(of: "not an allergy", with: "")
        let isIntolerance = Self.intoleranceCues.contains { lower.contains($0) }
        let isAllergy = Self.allergyCues.contains { lower.contains($0) }
        guard isIntolerance || isAllergy else { return [] }
        let allergens = allergensNamed(in: clause)
        guard !allergens.isEmpty else { return [] }
        let direct = (Self.strongAllergyCues + ["intoleran", "coeliac", "celiac"]).contains { lower.contains($0) }
        let polarity: ProfileFactPolarity = clause.statesRemoval || clause.isNegated ? .remove : .add
        return allergens.map {
            Reading(
                kind: isIntolerance ? .intolerance : .allergy, value: $0.rawValue, polarity: polarity,
                confidence: direct ? 0.9 : 0.7)
        }
    }

    /// Allergens the clause names, longest phrase first. A match right after another match is a
    /// compound ("lupin flour") and only the first counts.
    private func allergensNamed(in clause: Clause) -> [CanonicalAllergen] {
        let words = clause.words.map { $0.hasSuffix("'s") ? String($0.dropLast(2)) : $0 }
        var found: [CanonicalAllergen] = []
        var index = 0
        var previousWasAllergen = false
        scanning: while index < words.count {
            for length in stride(from: min(3, words.count - index), through: 1, by: -1) {
                let phrase = words[index..<(index + length)].joined(separator: " ")
                if let allergens = vocabulary.allergensDeclared(by: phrase) {
                    if !previousWasAllergen {
                        for allergen in allergens where !found.contains(allergen) { found.append(allergen) }
                    }
                    previousWasAllergen = true
                    index += length
                    continue scanning
                }
            }
            previousWasAllergen = false
            index += 1
        }
        return found
    }

    private static let diets: [(cue: String, value: String)] = [
        ("vegetarian", "vegetarian"), ("vegan", "vegan"), ("pescatarian", "pescatarian"), ("pescetarian", "pescatarian"),
        ("halal", "halal"), ("kosher", "kosher"), ("low-carb", "low-carb"), ("low carb", "low-carb"),
        ("low-sodium", "low-sodium"), ("low sodium", "low-sodium"), ("low-salt", "low-sodium"),
    ]

    private func dietReadings(_ clause: Clause) -> [Reading] {
        let lower = clause.lower
        var value: String?
        if lower.contains("fish but no") && lower.contains("meat") {
            value = "pescatarian"
        } else if let diet = Self.diets.first(where: { clause.containsWord($0.cue) }) {
            value = diet.value
        } else if lower.contains("eating meat") || lower.contains("eat meat") {
            // "stopped eating meat" / "doesn't eat meat": a vegetarian diet, stated positively.
            value = "vegetarian"
        } else if lower.contains("diet") {
            if lower.contains("gluten-free") || lower.contains("gluten free") { value = "gluten-free" }
            if lower.contains("dairy-free") || lower.contains("dairy free") { value = "dairy-free" }
        }
        guard let value else { return [] }
        let meatCue = value == "vegetarian" && !Self.diets.contains { clause.containsWord($0.cue) }
        let polarity: ProfileFactPolarity =
            clause.statesRemoval || (!meatCue && clause.isNegated) ? .remove : .add
        return [Reading(kind: .diet, value: value, polarity: polarity, confidence: 0.85)]
    }

    private static let bodyParts = [
        "knee", "ankle", "arm", "wrist", "back", "shoulder", "leg", "foot", "hand", "finger", "neck", "elbow", "hip",
        "toe", "thumb", "hamstring",
    ]
    private static let partOwners: Set<String> = [
        "my", "his", "her", "their", "a", "the", "broken", "sprained", "twisted", "strained", "sore", "bad", "injured",
    ]
    private static let healing = ["healed", "mended", "fine now", "better now", "recovered", "all better"]

    private func injuryReadings(_ clause: Clause, sentence: Sentence) -> [Reading] {
        let lower = clause.lower
        let healed = Self.healing.contains { lower.contains($0) }
        if lower.contains("concussion") {
            return [Reading(kind: .injury, value: "concussion", polarity: healed ? .remove : .add, confidence: 0.85)]
        }
        let words = clause.words
        guard
            let partIndex = words.indices.first(where: { index in
                Self.bodyParts.contains(words[index]) && index > 0
                    && words[max(0, index - 2)..<index].contains { Self.partOwners.contains($0) }
            })
        else { return [] }
        let part = words[partIndex]
        let injury: String
        if words.contains(where: { $0.hasPrefix("broke") }) || (healed && sentence.lower.contains("cast")) {
            injury = "broken \(part)"
        } else if words.contains(where: { $0.hasPrefix("sprain") }) {
            injury = "sprained \(part)"
        } else if words.contains(where: { $0.hasPrefix("twist") }) {
            injury = "twisted \(part)"
        } else if words.contains(where: { $0.hasPrefix("strain") }) {
            injury = "strained \(part)"
        } else if healed || ["hurt", "injured", "injury", "pulled", "out", "sore"].contains(where: words.contains) {
            injury = "\(part) injury"
        } else {
            return []
        }
        return [Reading(kind: .injury, value: injury, polarity: healed ? .remove : .add, confidence: 0.8)]
    }

    private static let goalCues = [
        "goal is to ", "wants to ", "want to ", "aiming to ", "aim to ", "hoping to ", "working towards ",
        "working toward ", "training for ", "doing the ",
    ]
    private static let timeTails = [
        " by ", " before ", " this month", " this week", " this year", " this term", " next ", " for a while",
        " for the ",
    ]
    private static let raceWords = ["marathon", "5k", "10k", "triathlon", "half marathon", "race"]

    private func goalReadings(_ clause: Clause) -> [Reading] {
        let lower = clause.lower
        var rest: Substring?
        if let trying = lower.range(of: "trying to get "), let to = lower.range(of: " to ", range: trying.upperBound..<lower.endIndex) {
            rest = lower[to.upperBound...]
        } else {
            for cue in Self.goalCues {
                if let range = lower.range(of: cue) {
                    rest = lower[range.upperBound...]
                    break
                }
            }
        }
        guard var value = rest.map(String.init) else { return [] }
        if value.hasPrefix("doing ") { return [] }
        for tail in Self.timeTails { if let range = value.range(of: tail) { value = String(value[..<range.lowerBound]) } }
        value = Clause.trimmed(value)
        if Self.raceWords.contains(where: { value.hasSuffix($0) }) {
            let race = value.split(separator: " ").drop { ["a", "an", "the", "my", "his", "her"].contains($0) }
            value = "run a " + race.joined(separator: " ").replacingOccurrences(of: "run a ", with: "")
        }
        if value.hasPrefix("cut down on ") { value = "eat less " + value.dropFirst("cut down on ".count) }
        guard !value.isEmpty, lower.range(of: "doing the ") == nil || clause.statesRemoval else { return [] }
        return [Reading(kind: .goal, value: value, polarity: clause.statesRemoval ? .remove : .add, confidence: 0.7)]
    }

    private static let dislikeCues = [
        "can't stand ", "cannot stand ", "hates ", "hate ", "dislikes ", "dislike ", "isn't keen on ", "not keen on ",
        "won't touch ", "won't eat ", "not a fan of ", "doesn't like ", "don't like ", "does not like ",
    ]
    private static let likeCues = [
        "loves ", "likes ", "adores ", "prefers ", "enjoys ", "i love ", "i like ", "we love ", "would eat ",
        "asking for ", "favourite food is ", "favourite dinner is ", "favourite meal is ", "favorite food is ",
        "favorite dinner is ",
    ]
    private static let tasteTails = [
        " in it", " especially", " every ", " if ", " all week", " so ", " because ", " rather than", " at the ",
        " too much",
    ]
    private static let catalogueWords = [
        "coriander": "cilantro", "aubergine": "eggplant", "aubergines": "eggplant", "courgette": "zucchini",
        "courgettes": "zucchini", "rocket": "arugula",
    ]
    private static let tasteAdjectives: Set<String> = ["spicy", "sweet", "salty", "sour", "bitter", "hot", "mild"]
    private static let preparations: Set<String> = ["raw", "cooked", "plain", "crunchy", "soft"]

    private func tasteReadings(_ clause: Clause) -> [Reading] {
        let lower = clause.lower
        let noLonger = ["anymore", "any more", "no longer"].contains { lower.contains($0) }
        var best: (cue: String, range: Range<String.Index>, dislike: Bool)?
        for (cues, dislike) in [(Self.dislikeCues, true), (Self.likeCues, false)] {
            for cue in cues {
                if let range = lower.range(of: cue), best == nil || range.lowerBound < best!.range.lowerBound {
                    best = (cue, range, dislike)
                }
            }
        }
        guard let best else { return [] }
        let before = lower[..<best.range.lowerBound]
        let negatedCue = ["doesn't ", "don't ", "no longer ", "not "].contains { before.hasSuffix($0) }
        guard var value = Optional(String(lower[best.range.upperBound...])) else { return [] }
        for tail in Self.tasteTails { if let range = value.range(of: tail) { value = String(value[..<range.lowerBound]) } }
        for filler in ["anything with ", "anything ", "eating ", "her ", "his ", "their ", "my ", "the ", "too "]
        where value.hasPrefix(filler) {
            value = String(value.dropFirst(filler.count))
        }
        value = Clause.trimmed(value)
        for tail in [" anymore", " any more"] where value.hasSuffix(tail) { value = String(value.dropLast(tail.count)) }
        var words = value.split(separator: " ").map { Self.catalogueWords[String($0)] ?? String($0) }
        guard !words.isEmpty, words.count <= 4 else { return [] }
        if words.count == 1, Self.tasteAdjectives.contains(words[0]) { words.append("food") }
        if words.count > 1, let last = words.last, Self.preparations.contains(last) {
            words = [last] + words.dropLast()
        }
        value = words.joined(separator: " ")
        if value.hasPrefix("to ") || value.hasPrefix("being ") { return [] }

        let isLikeNegation = ["doesn't like ", "don't like ", "does not like "].contains(best.cue)
        if isLikeNegation {
            return [Reading(kind: noLonger ? .preference : .dislike, value: value, polarity: noLonger ? .remove : .add, confidence: 0.8)]
        }
        let removal = noLonger || negatedCue
        return [
            Reading(kind: best.dislike ? .dislike : .preference, value: value, polarity: removal ? .remove : .add, confidence: 0.75)
        ]
    }

    private static let weekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    private static let activityVerbs: Set<String> = ["has", "have", "work", "works", "do", "does", "goes", "go", "attends"]
    private static let activityStops: Set<String> = ["on", "every", "at", "after", "before", "each", "to", "moved", "is", "starts"]

    private func scheduleReadings(_ clause: Clause) -> [Reading] {
        let words = clause.words
        let dayIndices = words.indices.filter { index in
            Self.weekdays.contains { words[index] == $0 || words[index] == $0 + "s" }
        }
        guard let firstDay = dayIndices.first else { return [] }
        var activity: [String] = []
        if let verb = words.firstIndex(where: { Self.activityVerbs.contains($0) }), verb < firstDay {
            activity = Array(words[(verb + 1)..<firstDay].prefix { !Self.activityStops.contains($0) })
        } else if let owner = words.firstIndex(where: { $0.hasSuffix("'s") }), owner < firstDay {
            activity = Array(words[(owner + 1)..<firstDay].prefix { !Self.activityStops.contains($0) })
        }
        activity = activity.filter { !["a", "an", "the", "his", "her", "my", "their", "no", "more"].contains($0) }
        guard !activity.isEmpty, activity.count <= 3 else { return [] }

        func day(_ index: Int) -> String { Self.weekdays.first { words[index].hasPrefix($0) }! }
        var parts = activity
        if dayIndices.count == 2, words[dayIndices[0]..<dayIndices[1]].contains("to") {
            parts.append("\(day(dayIndices[0]))-\(day(dayIndices[1]))")
        } else {
            parts.append(day(firstDay))
        }
        let afterDay = Array(words[(dayIndices.last! + 1)...])
        if let time = Self.clockTime(in: afterDay) {
            parts.append(time)
        } else if let next = afterDay.first {
            if next.hasPrefix("morning") { parts.append("morning") }
            else if next.hasPrefix("afternoon") { parts.append("afternoon") }
            else if next.hasPrefix("evening") || next.hasPrefix("night") { parts.append("evening") }
            else if next == "after", afterDay.dropFirst().first == "school" { parts.append("after school") }
        }
        return [Reading(kind: .schedule, value: parts.joined(separator: " "), polarity: clause.statesRemoval ? .remove : .add, confidence: 0.75)]
    }

    public static func clockTimeForTesting(_ words: [String]) -> String? { clockTime(in: words) }

    /// "at 5pm" → 17:00, "at 4" → 16:00 (family activities with a bare hour below 8 are afternoons).
    static func clockTime(in words: [String]) -> String? {
        guard let at = words.firstIndex(of: "at"), at + 1 < words.count else { return nil }
        var token = words[at + 1]
        var meridiem: String?
        if at + 2 < words.count, ["am", "pm"].contains(words[at + 2]) { meridiem = words[at + 2] }
        for suffix in ["am", "pm"] where token.hasSuffix(suffix) {
            meridiem = suffix
            token = String(token.dropLast(2))
        }
        let pieces = token.split(separator: ":")
        guard let hour = pieces.first.flatMap({ Int($0) }), (0...23).contains(hour) else { return nil }
        let minute = pieces.count > 1 ? Int(pieces[1]) ?? 0 : 0
        var hour24 = hour
        if meridiem == "pm", hour < 12 { hour24 += 12 }
        if meridiem == "am", hour == 12 { hour24 = 0 }
        if meridiem == nil, hour >= 1, hour < 8 { hour24 += 12 }
        return String(format: "%02d:%02d", hour24, minute)
    }

    private static func deduplicated(_ facts: [ExtractedProfileFact]) -> [ExtractedProfileFact] {
        var seen: [String: Int] = [:]
        var result: [ExtractedProfileFact] = []
        for fact in facts {
            let key = "\(fact.kind)|\(fact.subject)|\(fact.value)|\(fact.polarity)"
            if let existing = seen[key] {
                if fact.confidence > result[existing].confidence { result[existing] = fact }
            } else {
                seen[key] = result.count
                result.append(fact)
            }
        }
        return result
    }
}
