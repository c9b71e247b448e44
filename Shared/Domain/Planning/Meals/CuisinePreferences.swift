/// A household's cuisine preferences, matched against the catalogue's cuisines
/// forgivingly ("Middle Eastern food" → middle-eastern).
struct CuisinePreferences: Sendable {
    private let preferredKeys: Set<String>
    /// Stemmed words of preferences that name no cuisine ("vegetarian", "spicy"); the
    /// planner treats them as goal words rather than dropping them.
    let otherWords: [String]

    /// - Parameter known: the catalogue's cuisines, as `RecipeCatalogue.cuisineKey` gives them.
    init(_ preferences: [String], known: Set<String>) {
        var keys = Set<String>()
        var other: [String] = []
        for preference in preferences {
            let words = WordMatching.words(in: preference)
            var matched = false
            for start in words.indices {
                var joined = ""
                for end in start..<words.count {
                    joined += words[end]
                    if known.contains(joined) {
                        keys.insert(joined)
                        matched = true
                    }
                }
            }
            if !matched {
                for word in words where !MealGoal.fillerWords.contains(word) {
                    let stem = MealGoal.synonyms[word] ?? WordMatching.keywordStem(word)
                    if !other.contains(stem) { other.append(stem) }
                }
            }
        }
        preferredKeys = keys
        otherWords = other
    }

    /// - Parameter cuisineKey: a cuisine as `RecipeCatalogue.cuisineKey` normalises it.
    func prefers(cuisineKey: String) -> Bool {
        preferredKeys.contains(cuisineKey)
    }
}
