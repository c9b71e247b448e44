import Foundation

/// Turns a household and a choice of chores into dated, assigned chores.
///
/// Which chores: those the goal names or describes; failing that, the household's own list
/// (catalogue ids or names, else new chores); failing that, a small starter set.
///
/// Who does each: only members the chore suits (adults do anything; a child only chores
/// whose `min_age` they have reached). Among those, the one whose load so far (sum of
/// effort × minutes) is smallest relative to their fair share, then the one who has done
/// this chore least, then the one listed first. A fair share grows with age: an adult's is
/// 1, a child's is age/16 (a 4-year-old carries a quarter of an adult's load, a 12-year-old
/// three quarters, a 16-year-old a full share). Each day hands out its hardest-to-staff
/// chores first (highest `min_age`, then heaviest), so the few members who can do them are
/// not already loaded up with easy ones. The result is deterministic, and whenever member B
/// can do everything member A was given, load(A)/share(A) ≤ load(B)/share(B) plus one
/// chore's load over share(A): among equals, loads differ by at most one chore.
///
/// When: every day in range that the chore's weekday mask (and the request's active days)
/// allows, due at the request's local time, 18:00 unless told otherwise.
public struct ChoreScheduler: Sendable {
    public static let allowedDays = 1...31
    /// Everyday chores used when neither the goal nor the household names any.
    public static let starterChoreIds = [
        "chore-set-the-table", "chore-clear-the-table-after-dinner", "chore-load-the-dishwasher",
        "chore-wipe-kitchen-counters-and-hob", "chore-take-out-the-rubbish-bins",
    ]
    /// A household chore the catalogue does not know is assumed to be a moderate daily job
    /// that needs some maturity, since nothing says it is safe for a young child.
    public static let newChoreMinAge = 12
    public static let newChoreMinutes = 15
    public static let newChoreEffort = 2
    /// The age from which a child carries a full share.
    public static let fullShareAge = 16

    public let catalogue: ChoreCatalogue

    public init(catalogue: ChoreCatalogue) {
        self.catalogue = catalogue
    }

    public static func bundled() throws -> ChoreScheduler {
        ChoreScheduler(catalogue: try ChoreCatalogue.bundled())
    }

    /// The chores a schedule would use, and where they came from.
    public func selectChores(goal: String?, householdChores: [String]?) -> (source: ChoreSelectionSource, chores: [ChoreDefinition]) {
        let fromGoal = goal.map(catalogue.chores(matchingGoal:)) ?? []
        if !fromGoal.isEmpty {
            return (.goal, fromGoal)
        }
        let fromHousehold = unique((householdChores ?? []).flatMap(choresForHouseholdEntry))
        if !fromHousehold.isEmpty {
            return (.household, fromHousehold)
        }
        return (.starterSet, Self.starterChoreIds.compactMap(catalogue.chore(id:)))
    }

    public func schedule(_ request: ChoreScheduleRequest) throws(ChoreSchedulingError) -> ChoreSchedule {
        guard Self.allowedDays.contains(request.days) else {
            throw .daysOutOfRange(requested: request.days, allowed: Self.allowedDays)
        }
        guard !request.members.isEmpty else { throw .noMembers }
        let clock = try Self.validatedDueTime(request.dueTime)
        let offset = request.utcOffsetMinutes.map(Self.offsetSuffix) ?? ""

        let (source, chosen) = selectChores(goal: request.goal, householdChores: request.householdChores)
        let members = request.members
        let staffable = chosen.filter { chore in members.contains(where: chore.suits) }
        let unassignable = chosen.filter { chore in !members.contains(where: chore.suits) }
            .map { UnassignableChore(chore: $0.name, minAge: $0.minAge) }
        // Hardest to staff first, then heaviest; id keeps the order total.
        let handOutOrder = staffable.sorted { lhs, rhs in
            if lhs.minAge != rhs.minAge { return lhs.minAge > rhs.minAge }
            if lhs.load != rhs.load { return lhs.load > rhs.load }
            return lhs.id < rhs.id
        }

        let shares = members.map(Self.fairShare)
        var load = [Int](repeating: 0, count: members.count)
        var minutes = [Int](repeating: 0, count: members.count)
        var count = [Int](repeating: 0, count: members.count)
        var timesDone = [[String: Int]](repeating: [:], count: members.count)
        var occurrences: [ChoreOccurrence] = []
        for offsetDays in 0..<request.days {
            let date = request.startDate.adding(days: offsetDays)
            let weekday = date.weekday
            guard request.activeDays?.contains(weekday) ?? true else { continue }
            for chore in handOutOrder where chore.weekdays.contains(weekday) {
                let assignee = members.indices.filter { chore.suits(members[$0]) }.min { lhs, rhs in
                    let (relativeLeft, relativeRight) = (Double(load[lhs]) / shares[lhs], Double(load[rhs]) / shares[rhs])
                    if relativeLeft != relativeRight { return relativeLeft < relativeRight }
                    let (doneLeft, doneRight) = (timesDone[lhs][chore.id, default: 0], timesDone[rhs][chore.id, default: 0])
                    if doneLeft != doneRight { return doneLeft < doneRight }
                    return lhs < rhs
                }!
                load[assignee] += chore.load
                minutes[assignee] += chore.minutes
                count[assignee] += 1
                timesDone[assignee][chore.id, default: 0] += 1
                occurrences.append(ChoreOccurrence(
                    chore: chore.name, choreId: chore.id, assignee: members[assignee].name,
                    at: "\(date.isoDate)T\(clock):00\(offset)", date: date, minutes: chore.minutes, effort: chore.effort))
            }
        }
        let loads = members.indices.map { index in
            MemberChoreLoad(name: members[index].name, age: members[index].age, occurrences: count[index], minutes: minutes[index], load: load[index])
        }
        return ChoreSchedule(
            startDate: request.startDate, days: request.days, source: source, chores: chosen,
            occurrences: occurrences, loads: loads, unassignable: unassignable)
    }

    /// How much of the household's chores a member should carry, relative to an adult.
    public static func fairShare(of member: HouseholdMember) -> Double {
        if member.isAdult { return 1 }
        return min(1, max(1, Double(member.age)) / Double(fullShareAge))
    }

    /// A household entry is a catalogue id, a catalogue name, words describing catalogue
    /// chores ("dishes"), or else a new chore of its own.
    private func choresForHouseholdEntry(_ entry: String) -> [ChoreDefinition] {
        let trimmed = entry.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return [] }
        if let chore = catalogue.chore(id: trimmed) ?? catalogue.chore(named: trimmed) { return [chore] }
        let described = catalogue.chores(matchingGoal: trimmed)
        if !described.isEmpty { return described }
        return [ChoreDefinition(
            id: "custom-" + WordMatching.words(in: trimmed).joined(separator: "-"), name: trimmed,
            minAge: Self.newChoreMinAge, minutes: Self.newChoreMinutes, weekdays: .everyDay,
            effort: Self.newChoreEffort, keywords: [])]
    }

    private func unique(_ chores: [ChoreDefinition]) -> [ChoreDefinition] {
        var seen = Set<String>()
        return chores.filter { seen.insert($0.id).inserted }
    }

    private static func validatedDueTime(_ text: String) throws(ChoreSchedulingError) -> String {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let hour = Int(parts[0]), let minute = Int(parts[1]), (0...23).contains(hour), (0...59).contains(minute)
        else { throw .invalidDueTime(text) }
        return text
    }

    private static func offsetSuffix(_ minutes: Int) -> String {
        let sign = minutes < 0 ? "-" : "+"
        let magnitude = abs(minutes)
        return sign + String(format: "%02d:%02d", magnitude / 60, magnitude % 60)
    }
}
