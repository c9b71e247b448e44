/// A Kafka topic of the catalogue. Partition counts are part of the contract: the key → partition
/// mapping, and so per-aggregate order, depends on them.
public struct Topic: Hashable, Sendable, CustomStringConvertible {
    public let name: String
    public let partitions: Int

    public init(_ name: String, partitions: Int) {
        self.name = name
        self.partitions = partitions
    }

    public var description: String { name }

    /// Where events that a projection could not decode or apply are parked.
    public var deadLetter: Topic { Topic("\(name).dlq", partitions: 1) }

    public static let households = Topic("households", partitions: 6)
    public static let users = Topic("users", partitions: 6)
    public static let feedback = Topic("feedback", partitions: 3)
    public static let assistRequests = Topic("assist.requests", partitions: 6)
    public static let assistEvents = Topic("assist.events", partitions: 6)
    public static let chores = Topic("chores", partitions: 6)
    public static let content = Topic("content", partitions: 3)
    public static let reminders = Topic("reminders", partitions: 6)
    public static let notifications = Topic("notifications", partitions: 6)
    public static let calendar = Topic("calendar", partitions: 6)
    public static let chats = Topic("chats", partitions: 6)
    public static let profile = Topic("profile", partitions: 6)
    public static let assistant = Topic("assistant", partitions: 6)
    public static let tracking = Topic("tracking", partitions: 6)
    /// A user's own wellbeing space, keyed by the user: nobody else reads it.
    public static let wellbeing = Topic("wellbeing", partitions: 6)
    /// The activity feed and its submissions. One partition: the feed is small and changes
    /// rarely, and one order over all of it makes the topic's offsets the feed's revisions
    /// (`GET /v1/activities/feed?since=`).
    public static let activities = Topic("activities", partitions: 1)
    /// What each user does with the feed: favourites, what they did, their preferences. Keyed by
    /// the user; apart from `activities` so that this traffic never invalidates the feed's cache.
    public static let activityHistory = Topic("activity-history", partitions: 6)
    /// What administrators did from the console or the admin API (redriving parked events, …),
    /// keyed by the administrator: the audit trail, in the log like everything else.
    public static let adminAudit = Topic("admin-audit", partitions: 1)

    /// Every event topic, in a stable order. Dead-letter topics are derived from these.
    public static let all: [Topic] = [
        .households, .users, .feedback, .assistRequests, .assistEvents, .chores, .content,
        .reminders, .notifications, .calendar, .chats, .profile, .assistant, .tracking, .wellbeing,
        .activities, .activityHistory, .adminAudit,
    ]

    public static func named(_ name: String) -> Topic? {
        if let topic = all.first(where: { $0.name == name }) { return topic }
        if name.hasSuffix(".dlq"), let base = all.first(where: { "\($0.name).dlq" == name }) { return base.deadLetter }
        return nil
    }
}
