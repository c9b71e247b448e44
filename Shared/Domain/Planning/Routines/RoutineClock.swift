/// When a child's routine starts in the day: mornings at a fixed wake-up time, bedtimes so that
/// the routine ends at an age-appropriate lights-out (younger children sleep earlier).
public enum RoutineClock {
    /// Minutes after midnight.
    static let wakeUp = 7 * 60

    /// Lights-out by age, following common sleep guidance for school-age and younger children.
    static func lightsOut(age: Int) -> Int {
        switch age {
        case ..<3: 19 * 60
        case 3...5: 19 * 60 + 30
        case 6...9: 20 * 60
        case 10...12: 20 * 60 + 30
        default: 21 * 60 + 30
        }
    }

    /// Minutes after midnight the routine starts.
    public static func startMinute(kind: RoutineKind, age: Int, minutes: Int) -> Int {
        switch kind {
        case .morning: wakeUp
        case .bedtime: max(0, lightsOut(age: age) - max(minutes, 0))
        }
    }

    /// `HH:mm` of `startMinute`.
    public static func startTime(kind: RoutineKind, age: Int, minutes: Int) -> String {
        let start = startMinute(kind: kind, age: age, minutes: minutes)
        let hours = start / 60, rest = start % 60
        return (hours < 10 ? "0" : "") + String(hours) + ":" + (rest < 10 ? "0" : "") + String(rest)
    }
}
