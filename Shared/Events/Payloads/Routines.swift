import Foundation

/// One step of a scheduled routine.
public struct RoutineStepPlan: Codable, Sendable, Equatable, Hashable {
    public var title: String
    public var minutes: Int

    public init(title: String, minutes: Int) {
        self.title = title
        self.minutes = minutes
    }
}

/// `routine.scheduled` v1: a child's daily routine (morning or bedtime) was put on the household
/// schedule by an assist run in `routines` mode. calendar-sync and the household calendar show it
/// as a daily recurring entry.
///
/// On the `chores` topic, which carries the household's schedule of duties. Keyed by the routine,
/// whose id is derived from the household (or user), the child and the kind: planning routines
/// again replaces that child's morning or bedtime routine instead of adding a second one.
public struct RoutineScheduled: EventPayload {
    public static let eventType = "routine.scheduled"
    public static let version = 1
    public static let topic = Topic.chores
    public static let privacy = PayloadPrivacy(
        personal: [
            "child": .householdElseUser("household_id", "user_id", erased: .string("")),
            "name": .householdElseUser("household_id", "user_id", erased: .string("")),
            "steps[].title": .householdElseUser("household_id", "user_id", erased: .string("")),
            "time_zone": .householdElseUser("household_id", "user_id"),
        ],
        notPersonal: [
            "routine_id", "household_id", "user_id", "run_id", "age", "kind", "starts_at", "start_date", "minutes",
            "steps[].minutes",
            // Always `FREQ=DAILY`: the routine's shape, not anything the family wrote.
            "rrule",
        ])

    public var routineId: UUID
    public var householdId: UUID?
    public var userId: UUID
    public var runId: UUID?
    public var child: String
    public var age: Int
    /// `morning` or `bedtime`.
    public var kind: String
    public var name: String
    /// Local time of day the routine starts, `HH:mm`.
    public var startsAt: String
    /// `YYYY-MM-DD`, the first day it runs.
    public var startDate: String
    public var minutes: Int
    public var steps: [RoutineStepPlan]
    /// RFC 5545 recurrence, `FREQ=DAILY` for every routine today.
    public var rrule: String
    public var timeZone: String?

    public var aggregateKey: String { routineId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case routineId = "routine_id"
        case householdId = "household_id"
        case userId = "user_id"
        case runId = "run_id"
        case child, age, kind, name
        case startsAt = "starts_at"
        case startDate = "start_date"
        case minutes, steps, rrule
        case timeZone = "time_zone"
    }

    public init(
        routineId: UUID, householdId: UUID?, userId: UUID, runId: UUID?, child: String, age: Int, kind: String, name: String,
        startsAt: String, startDate: String, minutes: Int, steps: [RoutineStepPlan], rrule: String, timeZone: String?
    ) {
        self.routineId = routineId
        self.householdId = householdId
        self.userId = userId
        self.runId = runId
        self.child = child
        self.age = age
        self.kind = kind
        self.name = name
        self.startsAt = startsAt
        self.startDate = startDate
        self.minutes = minutes
        self.steps = steps
        self.rrule = rrule
        self.timeZone = timeZone
    }
}
