import Foundation
import HearthDomain
import Testing

@Suite struct RoutineBuilderTests {
    func builder() throws -> RoutineBuilder {
        RoutineBuilder(catalogue: try PlanningFixtures.routineCatalogue.get())
    }

    @Test func everyChildGetsTheBandOfTheirAge() throws {
        let builder = try builder()
        for age in 0...17 {
            let plan = builder.build(children: [HouseholdMember(name: "Kid", age: age)])
            let band = try #require(builder.catalogue.bands.first { $0.minAge <= age && age <= $0.maxAge }, "age \(age)")
            #expect(plan.routines.map(\.kind) == [.morning, .bedtime])
            #expect(plan.routines.allSatisfy { $0.band == band.label && $0.age == age && $0.child == "Kid" })
            #expect(plan.routines[0].steps == band.morning)
            #expect(plan.routines[1].steps == band.bedtime)
            #expect(plan.withoutRoutine.isEmpty)
        }
    }

    @Test func aOneYearOldGetsOnlyBabySteps() throws {
        let plan = try builder().build(children: [HouseholdMember(name: "Ada", age: 1)])
        let steps = plan.routines.flatMap(\.steps).map { $0.title.lowercased() }
        #expect(plan.routines.allSatisfy { $0.band == "Baby" })
        // Things that need a walking, talking, reading child.
        for beyondABaby in ["alarm", "shower", "homework", "backpack", "bag", "phone", "toilet", "potty", "choose", "tidy", "make the bed", "read"] {
            #expect(!steps.contains { $0.contains(beyondABaby) }, "\(beyondABaby)")
        }
    }

    @Test func adultsAndAgesBeyondTheContentGetNoRoutine() throws {
        let plan = try builder().build(children: [HouseholdMember(name: "Max", age: 9), HouseholdMember(name: "Pat", age: 40), HouseholdMember(name: "Ivy", age: 18)])
        #expect(Set(plan.routines.map(\.child)) == ["Max"])
        #expect(plan.withoutRoutine.map(\.name) == ["Pat", "Ivy"])
        let byAge = try builder().build(childAges: [4, 13])
        #expect(byAge.routines.map(\.child) == ["Child 1", "Child 1", "Child 2", "Child 2"])
        #expect(byAge.routines[0].name == "Morning routine")
        #expect(byAge.routines[0].totalMinutes == byAge.routines[0].steps.reduce(0) { $0 + $1.minutes })
    }

    @Test func bandsWithGapsOrOverlapsAreRejected() {
        let step = [RoutineStep(title: "Brush teeth", minutes: 2)]
        #expect(throws: PlanningContentError.self) {
            try RoutineCatalogue(bands: [
                RoutineBand(minAge: 0, maxAge: 3, label: "A", morning: step, bedtime: step),
                RoutineBand(minAge: 5, maxAge: 8, label: "B", morning: step, bedtime: step),
            ])
        }
        #expect(throws: PlanningContentError.self) {
            try RoutineCatalogue(bands: [RoutineBand(minAge: 0, maxAge: 3, label: "A", morning: [], bedtime: step)])
        }
        #expect(throws: PlanningContentError.self) { try RoutineCatalogue(jsonData: Data(#"{"bands": 3}"#.utf8)) }
    }
}
