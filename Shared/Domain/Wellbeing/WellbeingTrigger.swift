import Foundation

/// What set an urge off: the vocabulary shared by check-ins, tips, practice scenarios and the
/// tips ranking. A check-in's `trigger_context` is the user's own words; `classify` maps them to
/// these so that "rough day at work" and "deadline stress" both count as `stress`.
public enum WellbeingTrigger: String, CaseIterable, Codable, Sendable, Comparable {
    case stress, boredom, loneliness, fatigue, conflict, anxiety, celebration, screens
    case lateNight = "late_night"
    case hunger

    /// Lower-case word stems that name the trigger in free text. A stem matches at the start of a
    /// word ("argu" in "arguing", "argument"), so plurals and tenses need no entries of their own.
    public var stems: [String] {
        switch self {
        case .stress: return ["stress", "deadline", "pressure", "overwhelm", "busy", "work", "rush"]
        case .boredom: return ["bored", "boring", "nothing to do", "idle", "restless"]
        case .loneliness: return ["lonely", "alone", "isolat", "miss "]
        case .fatigue: return ["tired", "exhaust", "sleepy", "fatigue", "worn out", "drained"]
        case .conflict: return ["argu", "fight", "row ", "conflict", "angry", "anger", "shout", "yell"]
        case .anxiety: return ["anxi", "worr", "nervous", "panic", "on edge"]
        case .celebration: return ["celebrat", "party", "reward", "weekend", "payday", "good news"]
        case .screens: return ["phone", "scroll", "social media", "screen", "notification", "app "]
        case .lateNight: return ["late", "midnight", "night", "can't sleep", "insomnia"]
        case .hunger: return ["hungry", "hunger", "snack", "skipped lunch", "skipped breakfast"]
        }
    }

    public static func < (lhs: WellbeingTrigger, rhs: WellbeingTrigger) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// The `limit` most often named in `counts`, most first (ties by name): what a prompt or a
    /// similarity query is about.
    public static func strongest(in counts: [WellbeingTrigger: Int], limit: Int = 3) -> [WellbeingTrigger] {
        counts.sorted { ($1.value, $0.key.rawValue) < ($0.value, $1.key.rawValue) }.prefix(limit).map(\.key)
    }

    /// The triggers named in `text`, in the order of `allCases`, each once. Empty when none is.
    public static func classify(_ text: String) -> [WellbeingTrigger] {
        let lowered = " " + text.lowercased().replacingOccurrences(of: "\u{2019}", with: "'") + " "
        return allCases.filter { trigger in
            trigger.stems.contains { stem in
                var searchRange = lowered.startIndex..<lowered.endIndex
                while let found = lowered.range(of: stem, range: searchRange) {
                    let before = lowered[lowered.index(before: found.lowerBound)]
                    if !before.isLetter { return true }
                    searchRange = found.upperBound..<lowered.endIndex
                }
                return false
            }
        }
    }
}
