import HearthDomain
import Testing

@Suite struct RoutineClockTests {
    @Test func morningsStartAtWakeUp() {
        #expect(RoutineClock.startTime(kind: .morning, age: 4, minutes: 35) == "07:00")
        #expect(RoutineClock.startTime(kind: .morning, age: 11, minutes: 20) == "07:00")
    }

    @Test func bedtimesEndAtAnAgeAppropriateLightsOut() {
        // 45 minutes before 19:30 for a four-year-old; 30 before 20:00 for a seven-year-old.
        #expect(RoutineClock.startTime(kind: .bedtime, age: 4, minutes: 45) == "18:45")
        #expect(RoutineClock.startTime(kind: .bedtime, age: 7, minutes: 30) == "19:30")
        #expect(RoutineClock.startTime(kind: .bedtime, age: 1, minutes: 5) == "18:55")
    }

    @Test func youngerChildrenNeverGoToBedLaterThanOlderOnes() {
        for age in 0..<17 {
            let younger = RoutineClock.startMinute(kind: .bedtime, age: age, minutes: 0)
            let older = RoutineClock.startMinute(kind: .bedtime, age: age + 1, minutes: 0)
            #expect(younger <= older, "age \(age)")
        }
    }
}
