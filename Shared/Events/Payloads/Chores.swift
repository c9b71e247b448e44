import Foundation

/// `chore.scheduled` v1: one occurrence of a chore was put on the household's schedule (today by
/// an assist run in `chores` mode). The notifier turns it into a reminder and calendar-sync puts it
/// in the household calendar.
///
/// Keyed by the occurrence, whose id is derived from the run, the chore and the day: publishing
/// the same occurrence again (a redelivered run) or with a new time (a reschedule) lands on the
/// same key, so consumers treat it as an upsert of that occurrence, in order.
public struct ChoreScheduled: EventPayload {
    public static let eventType = "chore.scheduled"
    public static let version = 1
    public static let topic = Topic.chores
    public static let privacy = PayloadPrivacy(
        personal: [
            "chore": .householdElseUser("household_id", "user_id", erased: .string("")),
            "chore_id": .householdElseUser("household_id", "user_id", erased: .string("")),
            "assignee": .householdElseUser("household_id", "user_id", erased: .string("")),
            "time_zone": .householdElseUser("household_id", "user_id"),
        ],
        notPersonal: ["occurrence_id", "household_id", "user_id", "run_id", "at", "date", "minutes"])

    public var occurrenceId: UUID
    public var householdId: UUID?
    /// The user whose request produced the schedule: reminders for assignees who are not users
    /// go to them.
    public var userId: UUID
    public var runId: UUID?
    public var chore: String
    public var choreId: String
    /// The assigned member's name as the household lists it.
    public var assignee: String
    /// Local ISO 8601 date-time (`2026-03-03T18:00:00`), with the UTC offset when one was given.
    public var at: String
    /// `YYYY-MM-DD`.
    public var date: String
    public var minutes: Int
    /// IANA zone the local `at` is meant in, when known (the requester's profile zone).
    public var timeZone: String?

    public var aggregateKey: String { occurrenceId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case occurrenceId = "occurrence_id"
        case householdId = "household_id"
        case userId = "user_id"
        case runId = "run_id"
        case chore
        case choreId = "chore_id"
        case assignee, at, date, minutes
        case timeZone = "time_zone"
    }

    public init(
        occurrenceId: UUID, householdId: UUID?, userId: UUID, runId: UUID?, chore: String, choreId: String,
        assignee: String, at: String, date: String, minutes: Int, timeZone: String?
    ) {
        self.occurrenceId = occurrenceId
        self.householdId = householdId
        self.userId = userId
        self.runId = runId
        self.chore = chore
        self.choreId = choreId
        self.assignee = assignee
        self.at = at
        self.date = date
        self.minutes = minutes
        self.timeZone = timeZone
    }
}
