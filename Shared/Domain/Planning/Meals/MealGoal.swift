/// The useful words of a meal-planning goal ("quick kid-friendly dinners, no mushrooms,
/// nut-free"): what to favour, what to steer away from, and what to rule out.
struct MealGoal: Sendable {
    /// Stems to favour, after dropping filler and mapping everyday synonyms onto the
    /// catalogue's words ("fast" → "quick").
    let wanted: [String]
    /// Stems the user said no to ("no mushrooms", "meat-free").
    let unwanted: [String]
    /// The raw negated phrases, for reading through the allergen vocabulary: a goal that
    /// says "nut-free" must be honoured as strictly as a declared allergy.
    let negatedPhrases: [String]

    static let negators: Set<String> = ["no", "not", "without", "avoid", "avoiding", "skip", "exclude", "excluding", "minus", "hold"]

    static let fillerWords: Set<String> = [
        "a", "an", "the", "and", "or", "of", "for", "to", "in", "on", "at", "with", "some", "any", "all", "each",
        "me", "my", "we", "our", "us", "i", "you", "it", "this", "next", "that", "these", "those", "is", "are", "be",
        "plan", "planning", "planner", "meal", "meals", "dinner", "dinners", "supper", "suppers", "tea", "recipe",
        "recipes", "idea", "ideas", "menu", "week", "weekly", "weeks", "day", "days", "night", "nights", "tonight",
        "make", "making", "cook", "cooking", "want", "wants", "like", "likes", "please", "can", "could", "would",
        "give", "suggest", "help", "need", "something", "things", "food", "foods", "eat", "eating", "new", "few",
        "lot", "lots", "more", "less", "good", "nice", "great", "everyone", "everybody", "people", "so", "also",
        "free", "friendly", "based", "style", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ]

    /// Everyday words mapped to the catalogue's own tags and flags.
    static let synonyms: [String: String] = [
        "fast": "quick", "easy": "quick", "speedy": "quick", "weeknight": "quick", "simple": "quick",
        "veggie": "vegetarian", "meatless": "vegetarian", "plant": "vegetarian",
        "cheap": "budget", "affordable": "budget", "inexpensive": "budget", "thrifty": "budget",
        "kid": "kid", "kids": "kid", "child": "kid", "children": "kid", "toddler": "kid", "toddlers": "kid",
        "picky": "kid", "fussy": "kid", "healthier": "healthy", "light": "healthy", "hot": "spicy",
        "cosy": "comfort", "cozy": "comfort", "hearty": "comfort", "traybake": "one-pan",
    ]

    init(_ text: String?) {
        let words = WordMatching.words(in: text ?? "")
        var wanted: [String] = []
        var unwanted: [String] = []
        var negated: [String] = []
        var consumed = Set<Int>()

        // "no mushrooms", "without peanut butter": the following content words.
        var index = 0
        while index < words.count {
            guard Self.negators.contains(words[index]) else { index += 1; continue }
            var phrase: [String] = []
            var next = index + 1
            while next < words.count, phrase.count < 3, !Self.fillerWords.contains(words[next]), !Self.negators.contains(words[next]) {
                phrase.append(words[next])
                consumed.insert(next)
                next += 1
            }
            if !phrase.isEmpty { negated.append(phrase.joined(separator: " ")) }
            index = next
        }
        // "nut-free", "dairy free": the word before "free".
        for (position, word) in words.enumerated() where word == "free" && position > 0 && !consumed.contains(position - 1) {
            negated.append(words[position - 1])
            consumed.insert(position - 1)
        }
        for phrase in negated {
            unwanted.append(contentsOf: WordMatching.words(in: phrase).map(WordMatching.keywordStem))
        }
        for (position, word) in words.enumerated() where !consumed.contains(position) && !Self.fillerWords.contains(word) && !Self.negators.contains(word) {
            guard word.contains(where: \.isLetter) else { continue }
            let stem = Self.synonyms[word] ?? WordMatching.keywordStem(word)
            if !wanted.contains(stem) { wanted.append(stem) }
        }
        self.wanted = wanted
        self.unwanted = unwanted
        negatedPhrases = negated
    }

    init(wanted: [String]) {
        self.wanted = wanted
        unwanted = []
        negatedPhrases = []
    }
}
