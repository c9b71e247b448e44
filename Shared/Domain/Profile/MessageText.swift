import Foundation

/// One sentence of a message, kept as written and lower-cased (with typographic apostrophes
/// folded) for matching.
struct Sentence {
    let text: String
    let lower: String
    let isQuestion: Bool
}

/// A clause: the unit one subject and one statement are read from.
struct Clause {
    let text: String
    let lower: String
    let words: [String]

    init(_ text: String) {
        self.text = Clause.trimmed(text)
        lower = MessageText.folded(self.text)
        words = MessageText.words(in: lower)
    }

    static func trimmed(_ text: String) -> String {
        text.trimmingCharacters(in: CharacterSet.whitespacesAndNewlines.union(.punctuationCharacters))
    }

    func containsWord(_ word: String) -> Bool {
        (" " + words.joined(separator: " ") + " ").contains(" \(word) ")
    }

    /// Members named in the clause, in the order they appear ("Sam", "Sam's").
    func namedMembers(_ members: [String]) -> [String] {
        var found: [(Int, String)] = []
        for member in members {
            let name = member.lowercased()
            if let index = words.firstIndex(where: { $0 == name || $0 == name + "'s" }) { found.append((index, member)) }
        }
        return found.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// "Anika" in "Anika and Rohan are both allergic …": a name waiting for its statement.
    func consistsOnlyOf(names: [String]) -> Bool {
        let lowered = Set(names.map { $0.lowercased() })
        return words.allSatisfy { lowered.contains($0) || $0 == "and" || $0 == "both" }
    }

    private static let firstPerson: Set<String> = ["i", "i'm", "i've", "i'd", "i'll", "my", "me", "myself", "im"]
    var isFirstPerson: Bool { words.contains { Clause.firstPerson.contains($0) } }

    var speaksForEveryone: Bool { MessageText.speaksForEveryone(lower) }

    /// The name a clause opens with when it is nobody in the household yet: "Sam is allergic to
    /// sesame" with no Sam among the members. Conservative: a capitalised word of letters, not a
    /// member, not a word that is capitalised for other reasons (pronouns, days, family words),
    /// followed by a verb that states something about it.
    func unknownName(members: [String]) -> String? {
        let tokens = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard tokens.count >= 2, var name = tokens.first else { return nil }
        var verb = MessageText.folded(tokens[1])
        if name.hasSuffix("'s") || name.hasSuffix("\u{2019}s") {
            // "Sam's allergic to …" is Sam; "Sam's mum is allergic …" is someone else.
            guard Clause.predicatesAfterIs.contains(verb) else { return nil }
            name = String(name.dropLast(2))
            verb = "is"
        }
        guard name.count >= 2, name.count <= 30, name.allSatisfy(\.isLetter), name.first!.isUppercase,
              name.dropFirst().allSatisfy({ $0.isLowercase }),
              !Clause.notNames.contains(name.lowercased()), !name.lowercased().hasSuffix("ing"),
              !members.contains(where: { $0.lowercased() == name.lowercased() || $0.lowercased().hasPrefix(name.lowercased() + " ") }),
              Clause.statementVerbs.contains(verb)
        else { return nil }
        return name
    }

    /// Words capitalised at the start of a sentence that are not a person's name.
    private static let notNames: Set<String> = [
        "i", "he", "she", "they", "we", "it", "this", "that", "these", "those", "the", "a", "an", "my", "our", "your", "his", "her",
        "their", "mum", "mom", "mummy", "mommy", "dad", "daddy", "baby", "everyone", "everybody", "nobody", "someone", "today",
        "tomorrow", "yesterday", "tonight", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "also",
        "and", "but", "so", "just", "oh", "ok", "okay", "yes", "no", "hi", "hey", "thanks", "please", "dinner", "lunch",
        "breakfast", "school", "nursery", "daycare", "there", "here", "what", "who", "which", "when", "where", "why", "how",
        "apparently", "turns", "update", "note", "fyi", "btw", "pasta", "milk", "bread", "cheese", "fish", "meat", "food",
        "everything", "nothing", "one", "both", "all", "none", "each", "granny", "grandma", "grandad", "grandpa", "nana", "papa",
        "auntie", "uncle", "teacher", "doctor", "dr", "coach", "friend", "kids", "children", "family",
    ]
    /// What follows "Sam's" when it means "Sam is" (a state), not "Sam's <someone>".
    private static let predicatesAfterIs: Set<String> = [
        "allergic", "intolerant", "coeliac", "celiac", "vegan", "vegetarian", "pescatarian", "lactose", "gluten", "dairy", "nut",
        "not", "no", "now", "off", "diabetic", "anaphylactic", "been", "got", "also", "still",
    ]
    /// Verbs after a name that state a fact about that person.
    private static let statementVerbs: Set<String> = [
        "is", "isn't", "has", "hasn't", "can't", "cannot", "doesn't", "won't", "hates", "eats", "avoids", "reacts", "broke",
        "sprained", "hurt", "fractured", "was", "went", "became", "turned", "stopped", "gets", "got", "must", "needs", "became",
    ]

    /// People who are not household members: what they have is not the household's profile.
    private static let outsiders: Set<String> = [
        "friend", "friends", "colleague", "colleagues", "cousin", "cousins", "sister", "sister's", "brother",
        "brother's", "neighbour", "neighbor", "neighbours", "teacher", "coworker", "boss", "aunt", "uncle",
        "grandma", "grandad", "granny", "someone", "anyone", "somebody",
    ]
    var mentionsOutsider: Bool { words.contains { Clause.outsiders.contains($0) } }

    private static let removalCues = [
        "no longer", "any more", "anymore", "used to", "outgrew", "outgrown", "stopped being", "gave up", "given up",
        "quit", "healed", "mended", "came back clear", "came back negative", "was negative", "cleared", "no more",
        "doesn't need to avoid",
    ]
    /// The clause says something stopped being true.
    var statesRemoval: Bool { Clause.removalCues.contains { lower.contains($0) } }

    /// Negated verbs that state a taste or a symptom rather than deny a fact.
    private static let affirmingNegations = [
        "can't stand", "cannot stand", "can't eat", "cannot eat", "doesn't agree with", "don't agree with",
        "doesn't like", "don't like", "does not like", "isn't keen on", "not keen on", "won't touch", "won't eat",
        "not a fan of", "not an allergy", "no other meat", "no meat",
    ]
    /// The clause denies its statement ("is not allergic", "isn't vegetarian").
    var isNegated: Bool {
        var text = " " + lower + " "
        for phrase in Clause.affirmingNegations { text = text.replacingOccurrences(of: phrase, with: " ") }
        return [" not ", "isn't", "aren't", "wasn't", "isnt ", " never "].contains { text.contains($0) }
    }
}

enum MessageText {
    static func folded(_ text: String) -> String {
        text.lowercased().replacingOccurrences(of: "\u{2019}", with: "'")
    }

    /// Lower-case words; apostrophes and hyphens inside words are kept ("isn't", "low-carb").
    static func words(in lower: String) -> [String] {
        var words: [String] = []
        var current = ""
        for character in lower {
            if character.isLetter || character.isNumber || ((character == "'" || character == "-" || character == ":") && !current.isEmpty) {
                current.append(character)
            } else if !current.isEmpty {
                words.append(current.trimmingCharacters(in: CharacterSet(charactersIn: "'-:")))
                current = ""
            }
        }
        if !current.isEmpty { words.append(current.trimmingCharacters(in: CharacterSet(charactersIn: "'-:"))) }
        return words.filter { !$0.isEmpty }
    }

    static func sentences(in text: String) -> [Sentence] {
        var sentences: [Sentence] = []
        var current = ""
        let characters = Array(text)
        func flush(question: Bool) {
            let trimmed = current.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty { sentences.append(Sentence(text: trimmed, lower: folded(trimmed), isQuestion: question)) }
            current = ""
        }
        for (index, character) in characters.enumerated() {
            let atBoundary = index + 1 == characters.count || characters[index + 1].isWhitespace
            if "?!.;:".contains(character), atBoundary {
                flush(question: character == "?")
            } else if character == "\n" {
                flush(question: false)
            } else {
                current.append(character)
            }
        }
        flush(question: false)
        return sentences
    }

    /// Sentence openings that ask, suppose, suggest or request rather than state.
    private static let nonAssertiveOpenings = [
        "what if", "if ", "should ", "can ", "could ", "would ", "do ", "does ", "is ", "are ", "i wonder", "which ",
        "how ", "let's", "lets ", "remind ", "please ", "maybe ", "perhaps ",
    ]
    private static let uncertainty = ["might be", "may be", "getting tested", "not sure", "i wonder", "maybe", "probably"]

    static func isNonAssertive(_ lower: String) -> Bool {
        nonAssertiveOpenings.contains { lower.hasPrefix($0) } || uncertainty.contains { lower.contains($0) }
    }

    static func speaksForEveryone(_ lower: String) -> Bool {
        ["all of us", "we all", "we've all", "we have all", "whole family", "everyone at home"].contains { lower.contains($0) }
    }

    private static let subjectStarts: Set<String> = ["i", "i'm", "i've", "i'd", "he", "she", "he's", "she's", "they", "we", "we're", "my"]

    /// Splits a sentence at commas and at conjunctions that start a new statement. "and" splits
    /// only before a new subject, so "soy and sesame" stays together.
    static func clauses(in sentence: String, members: [String]) -> [Clause] {
        let names = Set(members.map { $0.lowercased() })
        var pieces: [String] = []
        for commaPiece in sentence.components(separatedBy: ",") {
            var current: [Substring] = []
            let tokens = commaPiece.split(separator: " ", omittingEmptySubsequences: true)
            for (index, token) in tokens.enumerated() {
                let word = folded(String(token))
                let next = index + 1 < tokens.count ? folded(String(tokens[index + 1])) : ""
                let nextBare = next.hasSuffix("'s") ? String(next.dropLast(2)) : next
                let startsStatement = names.contains(nextBare) || subjectStarts.contains(next)
                let splits =
                    (word == "so" && !current.isEmpty)
                    || (word == "but" && next != "no" && !current.isEmpty)
                    || (word == "and" && startsStatement && !current.isEmpty)
                if splits {
                    pieces.append(current.joined(separator: " "))
                    current = []
                } else {
                    current.append(token)
                }
            }
            if !current.isEmpty { pieces.append(current.joined(separator: " ")) }
        }
        return pieces.map(Clause.init).filter { !$0.words.isEmpty }
    }
}
