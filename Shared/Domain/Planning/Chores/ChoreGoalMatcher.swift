/// Finds the chores a goal names ("walk the dog and do the laundry").
///
/// First, a chore is named outright when the goal holds at least two of the content words
/// of its name covering 60% of them ("clear the table" names "Clear the table after
/// dinner"). Those words are then used up, so "set the table" does not also pull in every
/// chore with a "table" keyword. Each remaining goal word then picks, among the chores
/// carrying it as a keyword, those matching the most remaining goal words: "feed the cat"
/// gives "Feed the pet", not also "Clean the litter tray".
struct ChoreGoalMatcher: Sendable {
    static let fillerWords: Set<String> = [
        "a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "for", "from", "into", "with", "after", "up",
        "out", "back", "own", "our", "my", "their", "his", "her", "we", "us", "i", "me", "you", "they", "it", "is",
        "are", "be", "do", "doing", "done", "should", "can", "could", "would", "will", "want", "need", "please",
        "chore", "chores", "job", "jobs", "task", "tasks", "rota", "roster", "schedule", "plan", "share", "sharing",
        "split", "divide", "fair", "fairly", "help", "kid", "kids", "child", "children", "everyone", "family",
        "week", "weekly", "day", "daily", "every", "each", "some", "all", "more", "also", "around", "house", "home",
        "who", "what", "when", "how", "let", "lets", "get", "make", "sure", "them", "him",
    ]

    let chores: [ChoreDefinition]
    private let nameStems: [[String]]
    private let keywordStems: [[[String]]]

    init(chores: [ChoreDefinition]) {
        self.chores = chores
        nameStems = chores.map { Self.contentStems(of: $0.name) }
        keywordStems = chores.map { chore in chore.keywords.map(Self.contentStems).filter { !$0.isEmpty } }
    }

    static func contentStems(of text: String) -> [String] {
        WordMatching.words(in: text).filter { !fillerWords.contains($0) }.map(WordMatching.keywordStem)
    }

    func matches(for goal: String) -> [ChoreDefinition] {
        var remaining = Self.contentStems(of: goal)
        var chosen = Set<Int>()

        var usedByNames = Set<String>()
        for (position, stems) in nameStems.enumerated() where !stems.isEmpty {
            let present = stems.filter(remaining.contains)
            let namedOutright = stems.count == 1
                ? present.count == 1
                : present.count >= 2 && Double(present.count) >= 0.6 * Double(stems.count)
            if namedOutright {
                chosen.insert(position)
                usedByNames.formUnion(present)
            }
        }
        remaining.removeAll(where: usedByNames.contains)
        let remainingSet = Set(remaining)
        let namedChores = chosen

        func hits(_ position: Int) -> Int {
            keywordStems[position].filter { $0.allSatisfy(remainingSet.contains) }.count
        }
        for word in remainingSet.sorted() {
            let carriers = chores.indices.filter { position in
                !namedChores.contains(position) && keywordStems[position].contains { $0.contains(word) && $0.allSatisfy(remainingSet.contains) }
            }
            guard let best = carriers.map(hits).max() else { continue }
            chosen.formUnion(carriers.filter { hits($0) == best })
        }
        return chosen.sorted().map { chores[$0] }
    }
}
