/// Word-level text handling shared by allergen, goal and chore matching.
///
/// Matching is done on whole words rather than substrings so that "butternut squash" never
/// hits "butter" and "nutmeg" never hits "nut".
enum WordMatching {
    /// Lower-cased words: runs of letters and digits, keeping inner apostrophes ("cow's",
    /// "za'atar"). Hyphens, underscores and punctuation separate words, so "tree_nut",
    /// "tree-nut" and "tree nut" all read the same.
    static func words(in text: String) -> [String] {
        var words: [String] = []
        var current = String.UnicodeScalarView()
        func flush() {
            while let last = current.last, last == "'" { current.removeLast() }
            if !current.isEmpty { words.append(String(current)) }
            current = String.UnicodeScalarView()
        }
        for scalar in text.lowercased().unicodeScalars {
            if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                current.append(scalar)
            } else if scalar == "'" || scalar == "\u{2019}" || scalar == "\u{2018}" {
                if !current.isEmpty { current.append("'") }
            } else {
                flush()
            }
        }
        flush()
        return words
    }

    /// Whether two words are the same up to a regular English plural ("peanut"/"peanuts",
    /// "anchovy"/"anchovies", "tomato"/"tomatoes"). Deliberately generous: for allergen
    /// screening a false match only excludes a recipe, a missed one could harm someone.
    static func samePluralInsensitive(_ first: String, _ second: String) -> Bool {
        if first == second { return true }
        let (short, long) = first.count <= second.count ? (first, second) : (second, first)
        guard long.hasPrefix(short.hasSuffix("y") ? String(short.dropLast()) : short) else { return false }
        return long == short + "s" || long == short + "es" || (short.hasSuffix("y") && long == short.dropLast() + "ies")
    }

    /// The word and the singulars it could be the plural of: "peanuts" → peanuts, peanut;
    /// "anchovies" → anchovies, anchovie, anchovy. Two words that share a form are the same
    /// up to a plural, as `samePluralInsensitive` decides, give or take a few odd pairs
    /// that only ever make screening stricter. Precomputing forms turns word matching into
    /// set lookups.
    static func pluralForms(_ word: String) -> [String] {
        var forms = [word]
        if word.hasSuffix("s") { forms.append(String(word.dropLast())) }
        if word.hasSuffix("es") { forms.append(String(word.dropLast(2))) }
        if word.hasSuffix("ies") { forms.append(String(word.dropLast(3)) + "y") }
        return forms
    }

    /// A light stem for matching goals and chore keywords: plural and "-ing" endings removed,
    /// so "walking the dogs" meets "Walk the dog" and "dishes" meets "dish".
    static func keywordStem(_ word: String) -> String {
        if word.count > 5, word.hasSuffix("ing") { return String(word.dropLast(3)) }
        if word.count > 4, word.hasSuffix("ies") { return String(word.dropLast(3)) + "y" }
        if word.count > 4, word.hasSuffix("oes") { return String(word.dropLast(2)) }
        if word.count > 3, word.hasSuffix("es") {
            let base = word.dropLast(2)
            if base.hasSuffix("s") || base.hasSuffix("x") || base.hasSuffix("z") || base.hasSuffix("ch") || base.hasSuffix("sh") {
                return String(base)
            }
        }
        if word.count > 3, word.hasSuffix("s"), !word.hasSuffix("ss") { return String(word.dropLast()) }
        return word
    }
}
