/// Orders chosen dishes so no main ingredient is served two days running whenever the mix
/// of main ingredients allows it, keeping the better-ranked dishes earlier in the week.
enum MealSequenceArranger {
    /// - Parameter mains: main ingredient of each chosen dish, best-ranked first.
    /// - Returns: positions into `mains`, in serving order.
    static func arrange(mains: [String]) -> [Int] {
        var remaining = Array(mains.indices)
        var counts: [String: Int] = [:]
        for main in mains { counts[main, default: 0] += 1 }
        var order: [Int] = []
        var previous: String?
        while !remaining.isEmpty {
            let afterThis = remaining.count - 1
            let pick = remaining.firstIndex { position in
                let main = mains[position]
                return main != previous && canFinish(counts: counts, taking: main, slotsLeft: afterThis)
            } ?? remaining.firstIndex { mains[$0] != previous } ?? 0
            let position = remaining.remove(at: pick)
            counts[mains[position], default: 0] -= 1
            previous = mains[position]
            order.append(position)
        }
        return order
    }

    /// Whether, after serving `main` now, the rest can still be ordered without repeats.
    /// `slots` dishes with no two neighbours alike and the first unlike `main` exist exactly
    /// when every main fits in every other slot: at most ⌈slots/2⌉ of any main, and at most
    /// ⌊slots/2⌋ of `main` itself since it cannot open the rest.
    private static func canFinish(counts: [String: Int], taking main: String, slotsLeft slots: Int) -> Bool {
        for (other, count) in counts {
            let left = other == main ? count - 1 : count
            let limit = other == main ? slots / 2 : (slots + 1) / 2
            if left > limit { return false }
        }
        return true
    }
}
