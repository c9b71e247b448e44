import Foundation
import HearthDomain
import Testing

@Suite struct ChoreSchedulerTests {
    static let monday = PlanningFixtures.day("2025-03-03")

    func scheduler() throws -> ChoreScheduler {
        ChoreScheduler(catalogue: try PlanningFixtures.choreCatalogue.get())
    }

    func names(_ chores: [ChoreDefinition]) -> [String] { chores.map(\.name) }

    @Test func goalsNameChoresOutrightOrByKeyword() throws {
        let catalogue = try PlanningFixtures.choreCatalogue.get()
        #expect(names(catalogue.chores(matchingGoal: "Walk the dog and set the table")) == ["Set the table", "Walk the dog"])
        #expect(names(catalogue.chores(matchingGoal: "the kids should feed the cat and do the dishes")) ==
            ["Feed the pet", "Unload the dishwasher", "Load the dishwasher"])
        #expect(names(catalogue.chores(matchingGoal: "clear the table")) == ["Clear the table after dinner"])
        let laundry = names(catalogue.chores(matchingGoal: "walking the dog and laundry"))
        #expect(laundry.contains("Walk the dog"))
        #expect(laundry.contains("Fold and put away laundry"))
        #expect(!laundry.contains("Feed the pet"))
        #expect(catalogue.chores(matchingGoal: "what's for dinner, darling?").allSatisfy { $0.keywords.contains("dinner") })
        #expect(catalogue.chores(matchingGoal: "hello there").isEmpty)
    }

    @Test func householdListIsUsedWhenTheGoalNamesNothing() throws {
        let scheduler = try scheduler()
        let (source, chores) = scheduler.selectChores(goal: "make it fair", householdChores: ["chore-walk-the-dog", "make the bed", "Polish the piano", "dishes"])
        #expect(source == .household)
        #expect(names(chores) == ["Walk the dog", "Make the bed", "Polish the piano", "Unload the dishwasher", "Load the dishwasher"])
        let custom = try #require(chores.first { $0.name == "Polish the piano" })
        #expect(custom.id == "custom-polish-the-piano")
        #expect(custom.minAge == ChoreScheduler.newChoreMinAge)
        let starter = scheduler.selectChores(goal: nil, householdChores: nil)
        #expect(starter.source == .starterSet)
        #expect(starter.chores.map(\.id) == ChoreScheduler.starterChoreIds)
    }

    @Test func occurrencesFollowWeekdayMasksAndDueTime() throws {
        let schedule = try scheduler().schedule(ChoreScheduleRequest(
            members: [HouseholdMember(name: "Alex", age: 40)], goal: "water the plants and take out the rubbish bins",
            days: 14, startDate: Self.monday))
        #expect(Set(schedule.chores.map(\.name)) == ["Water the house plants", "Take out the rubbish bins"])
        // Plants: Mon and Fri; rubbish: Thu. Two weeks.
        #expect(schedule.occurrences.count == 6)
        for occurrence in schedule.occurrences {
            let chore = try #require(schedule.chores.first { $0.id == occurrence.choreId })
            #expect(chore.weekdays.contains(occurrence.date.weekday))
            #expect(occurrence.at == "\(occurrence.date.isoDate)T18:00:00")
        }
        #expect(schedule.occurrences.first?.at == "2025-03-03T18:00:00")
        #expect(schedule.occurrences.map(\.date) == schedule.occurrences.map(\.date).sorted())
    }

    @Test func activeDaysAndOffsetsAreHonoured() throws {
        let schedule = try scheduler().schedule(ChoreScheduleRequest(
            members: [HouseholdMember(name: "Alex", age: 40)], goal: "set the table", days: 7, startDate: Self.monday,
            activeDays: .weekend, dueTime: "17:30", utcOffsetMinutes: -330))
        #expect(schedule.occurrences.map(\.at) == ["2025-03-08T17:30:00-05:30", "2025-03-09T17:30:00-05:30"])
        let east = try scheduler().schedule(ChoreScheduleRequest(
            members: [HouseholdMember(name: "Alex", age: 40)], goal: "set the table", days: 1, startDate: Self.monday, utcOffsetMinutes: 60))
        #expect(east.occurrences.map(\.at) == ["2025-03-03T18:00:00+01:00"])
    }

    @Test func rejectsBadRequests() throws {
        let scheduler = try scheduler()
        let alex = [HouseholdMember(name: "Alex", age: 40)]
        #expect(throws: ChoreSchedulingError.daysOutOfRange(requested: 0, allowed: 1...31)) {
            try scheduler.schedule(ChoreScheduleRequest(members: alex, days: 0, startDate: Self.monday))
        }
        #expect(throws: ChoreSchedulingError.invalidDueTime("6pm")) {
            try scheduler.schedule(ChoreScheduleRequest(members: alex, days: 1, startDate: Self.monday, dueTime: "6pm"))
        }
        #expect(throws: ChoreSchedulingError.noMembers) {
            try scheduler.schedule(ChoreScheduleRequest(members: [], days: 1, startDate: Self.monday))
        }
    }

    @Test func choresNobodyIsOldEnoughForAreLeftOut() throws {
        let schedule = try scheduler().schedule(ChoreScheduleRequest(
            members: [HouseholdMember(name: "Mia", age: 3), HouseholdMember(name: "Leo", age: 6)], goal: "mow the lawn and tidy the toys",
            days: 7, startDate: Self.monday))
        #expect(schedule.unassignable == [UnassignableChore(chore: "Mow the lawn", minAge: 14)])
        #expect(!schedule.occurrences.isEmpty)
        #expect(!schedule.occurrences.contains { $0.chore == "Mow the lawn" })
    }

    @Test func childrenCarryAShareThatGrowsWithAge() throws {
        #expect(ChoreScheduler.fairShare(of: HouseholdMember(name: "a", age: 4)) == 0.25)
        #expect(ChoreScheduler.fairShare(of: HouseholdMember(name: "a", age: 12)) == 0.75)
        #expect(ChoreScheduler.fairShare(of: HouseholdMember(name: "a", age: 17)) == 1)
        #expect(ChoreScheduler.fairShare(of: HouseholdMember(name: "a", age: 0)) == 1.0 / 16)
        // A parent and a 12-year-old, both able to do every chore named: the child ends with
        // about three quarters of the parent's load.
        let schedule = try scheduler().schedule(ChoreScheduleRequest(
            members: [HouseholdMember(name: "Parent", age: 40), HouseholdMember(name: "Kid", age: 12)],
            goal: "set the table, load the dishwasher and wipe the kitchen counters", days: 28, startDate: Self.monday))
        let parent = Double(schedule.loads[0].load), kid = Double(schedule.loads[1].load)
        #expect(abs(kid / parent - 0.75) < 0.1, "\(schedule.loads)")
    }

    @Test func adultsShareEvenly() throws {
        let members = ["Alex", "Sam", "Jo"].map { HouseholdMember(name: $0, age: 35) }
        let schedule = try scheduler().schedule(ChoreScheduleRequest(
            members: members, goal: "kitchen, laundry, dog and bins", days: 14, startDate: Self.monday))
        let heaviest = schedule.chores.map(\.load).max()!
        let loads = schedule.loads.map(\.load)
        #expect(loads.max()! - loads.min()! <= heaviest, "\(schedule.loads)")
        #expect(loads.reduce(0, +) == schedule.occurrences.reduce(0) { $0 + $1.load })
    }

    /// Random households: nobody gets a chore they are too young for, and nobody carries, for
    /// their fair share, more than one chore beyond anyone who could have done all of theirs.
    @Test func randomHouseholdsAreAgeSafeAndBalanced() throws {
        let scheduler = try scheduler()
        let goals = ["kitchen and laundry", "pets, bins and garden", "tidy up and dishes", "clean the bathroom", "everything about the table", "dog cat fridge car"]
        var random = SplitMix64(seed: 0xC40_7E5)
        for round in 0..<300 {
            let members = (0..<Int.random(in: 1...5, using: &random)).map { HouseholdMember(name: "m\($0)", age: Int.random(in: 0...50, using: &random)) }
            let request = ChoreScheduleRequest(
                members: members, goal: goals.randomElement(using: &random)!, days: Int.random(in: 1...21, using: &random),
                startDate: CalendarDay(daysSinceEpoch: Int.random(in: 20_000...20_400, using: &random)))
            let schedule = try scheduler.schedule(request)
            #expect(try scheduler.schedule(request) == schedule, "deterministic, round \(round)")
            let heaviest = schedule.chores.map(\.load).max() ?? 0
            var given: [String: Set<String>] = [:]
            for occurrence in schedule.occurrences {
                let member = try #require(members.first { $0.name == occurrence.assignee })
                let chore = try #require(schedule.chores.first { $0.id == occurrence.choreId })
                #expect(member.isAdult || member.age >= chore.minAge, "round \(round): \(member) got \(chore.name)")
                given[member.name, default: []].insert(chore.id)
            }
            for a in schedule.loads {
                for b in schedule.loads where a.name != b.name {
                    let bMember = members.first { $0.name == b.name }!
                    let bCanDoAll = (given[a.name] ?? []).allSatisfy { id in schedule.chores.first { $0.id == id }!.suits(bMember) }
                    if bCanDoAll {
                        let aShare = ChoreScheduler.fairShare(of: members.first { $0.name == a.name }!)
                        let bShare = ChoreScheduler.fairShare(of: bMember)
                        #expect(Double(a.load) / aShare <= Double(b.load) / bShare + Double(heaviest) / aShare + 1e-9, "round \(round): \(a) vs \(b)")
                    }
                }
            }
        }
    }
}
