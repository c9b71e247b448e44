import Foundation

/// What an activity (a micro-ritual: a small thing a family can do today) says and how it is
/// tagged. The library's own activities, a family's submission and an approved submission all
/// carry it whole.
public struct ActivityContent: Codable, Sendable, Equatable, Hashable {
    public var title: String
    public var description: String
    /// 2, 5, 15 or 30.
    public var timeMinutes: Int
    /// `low`, `medium` or `high`.
    public var energy: String
    /// Where it fits: some of `indoor`, `outdoor`, `car`, `bedtime`, `meal`, in that order.
    public var contexts: [String]
    /// One of `ActivityContent.categories`.
    public var category: String
    /// Ages (years) it suits; 99 as the upper bound means no limit.
    public var minAge: Int
    public var maxAge: Int
    /// `daily`, `weekly` or `occasional`.
    public var repeatability: String

    public static let times = [2, 5, 15, 30]
    public static let energies = ["low", "medium", "high"]
    public static let contextOrder = ["indoor", "outdoor", "car", "bedtime", "meal"]
    public static let categories = ["connection", "creativity", "movement", "nature", "learning", "calm", "kindness", "play"]
    public static let repeatabilities = ["daily", "weekly", "occasional"]
    public static let noUpperAge = 99

    public init(
        title: String, description: String, timeMinutes: Int, energy: String, contexts: [String], category: String,
        minAge: Int, maxAge: Int, repeatability: String
    ) {
        self.title = title
        self.description = description
        self.timeMinutes = timeMinutes
        self.energy = energy
        self.contexts = contexts
        self.category = category
        self.minAge = minAge
        self.maxAge = maxAge
        self.repeatability = repeatability
    }

    enum CodingKeys: String, CodingKey {
        case title, description
        case timeMinutes = "time_minutes"
        case energy, contexts, category
        case minAge = "min_age"
        case maxAge = "max_age"
        case repeatability
    }
}

/// `activity.published` v1: an activity joins the feed or is edited: one of the bundled library
/// (`source` `library`) or a family's submission once approved (`community`, with its
/// `submission_id`; the author is not named). On the single-partition `activities` topic, so the
/// topic's offsets are the feed's revisions.
public struct ActivityPublished: EventPayload {
    public static let eventType = "activity.published"
    public static let version = 1
    public static let topic = Topic.activities
    public static let privacy = PayloadPrivacy(personal: [:], notPersonal: ["activity_id", "source", "submission_id", "content"])

    public var activityId: String
    public var source: String
    public var submissionId: UUID?
    public var content: ActivityContent

    public var aggregateKey: String { activityId }

    public static let librarySource = "library"
    public static let communitySource = "community"

    enum CodingKeys: String, CodingKey {
        case activityId = "activity_id"
        case source
        case submissionId = "submission_id"
        case content
    }

    public init(activityId: String, source: String, submissionId: UUID?, content: ActivityContent) {
        self.activityId = activityId
        self.source = source
        self.submissionId = submissionId
        self.content = content
    }
}

/// `activity.withdrawn` v1: an activity leaves the feed (an admin's decision); clients syncing
/// with `since` receive it as a tombstone.
public struct ActivityWithdrawn: EventPayload {
    public static let eventType = "activity.withdrawn"
    public static let version = 1
    public static let topic = Topic.activities
    public static let privacy = PayloadPrivacy(personal: [:], notPersonal: ["activity_id", "reason", "withdrawn_by"])

    public var activityId: String
    public var reason: String
    /// The admin's user id.
    public var withdrawnBy: UUID

    public var aggregateKey: String { activityId }

    enum CodingKeys: String, CodingKey {
        case activityId = "activity_id"
        case reason
        case withdrawnBy = "withdrawn_by"
    }

    public init(activityId: String, reason: String, withdrawnBy: UUID) {
        self.activityId = activityId
        self.reason = reason
        self.withdrawnBy = withdrawnBy
    }
}

/// `activity.submitted` v1: a family (a device or an account) proposes an activity for the public
/// feed. The words are the author's until an approval publishes them; the moderation pipeline
/// (embedding-worker) reads it next.
public struct ActivitySubmitted: EventPayload {
    public static let eventType = "activity.submitted"
    public static let version = 1
    public static let topic = Topic.activities
    public static let privacy = PayloadPrivacy(
        personal: ["content": .user("author_id")],
        notPersonal: ["submission_id", "author_id"])

    public var submissionId: UUID
    public var authorId: UUID
    /// Nil once the author's key is destroyed.
    public var content: ActivityContent?

    public var aggregateKey: String { submissionId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case submissionId = "submission_id"
        case authorId = "author_id"
        case content
    }

    public init(submissionId: UUID, authorId: UUID, content: ActivityContent) {
        self.submissionId = submissionId
        self.authorId = authorId
        self.content = content
    }
}

/// `activity.moderated` v1: a decision on a submission: `approved` (it joins the feed as
/// `activity_id`), `rejected` (`reason`: `unsafe`, `medical`, `pii`, `spam`, `duplicate`) or
/// `held` for a person to decide. By the pipeline (`moderator` `policy`) or an admin (their
/// user id). `note` is what the author reads; it quotes nothing of theirs.
public struct ActivityModerated: EventPayload {
    public static let eventType = "activity.moderated"
    public static let version = 1
    public static let topic = Topic.activities
    public static let privacy = PayloadPrivacy(
        personal: [:],
        notPersonal: [
            "submission_id", "author_id", "decision", "reason", "note", "activity_id", "nearest_activity_id", "similarity", "moderator",
        ])

    public var submissionId: UUID
    public var authorId: UUID
    public var decision: String
    public var reason: String?
    public var note: String
    /// For an approval: the id it is published under.
    public var activityId: String?
    /// The most similar activity already in the feed (or submission held or approved before), and
    /// how similar (cosine of their embeddings).
    public var nearestActivityId: String?
    public var similarity: Double?
    public var moderator: String

    public var aggregateKey: String { submissionId.uuidString.lowercased() }

    public static let decisions = ["approved", "rejected", "held"]
    public static let policyModerator = "policy"

    enum CodingKeys: String, CodingKey {
        case submissionId = "submission_id"
        case authorId = "author_id"
        case decision, reason, note
        case activityId = "activity_id"
        case nearestActivityId = "nearest_activity_id"
        case similarity, moderator
    }

    public init(
        submissionId: UUID, authorId: UUID, decision: String, reason: String?, note: String, activityId: String?,
        nearestActivityId: String?, similarity: Double?, moderator: String
    ) {
        self.submissionId = submissionId
        self.authorId = authorId
        self.decision = decision
        self.reason = reason
        self.note = note
        self.activityId = activityId
        self.nearestActivityId = nearestActivityId
        self.similarity = similarity
        self.moderator = moderator
    }
}

/// `activity.author_erased` v1: an account's erasure, told on the feed's own topic (by the
/// gateway's eraser, before `user.erased`), so that it lands in the feed's order: what was
/// approved from the author's submissions is withdrawn (tombstones at this revision), and a
/// decision on one of them that comes later finds it closed.
public struct ActivityAuthorErased: EventPayload {
    public static let eventType = "activity.author_erased"
    public static let version = 1
    public static let topic = Topic.activities
    public static let privacy = PayloadPrivacy(personal: [:], notPersonal: ["author_id"])

    public var authorId: UUID

    public var aggregateKey: String { authorId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case authorId = "author_id"
    }

    public init(authorId: UUID) {
        self.authorId = authorId
    }
}

public enum ActivityEvents {
    public static let payloadTypes: [any EventPayload.Type] = [
        ActivityPublished.self, ActivityWithdrawn.self, ActivitySubmitted.self, ActivityModerated.self,
        ActivityFavouriteSet.self, ActivityCompleted.self, ActivityPrefsSet.self, ActivityAuthorErased.self,
    ]
}

/// `activity.favourite_set` v1: a user marks an activity of the feed as a favourite or unmarks it.
/// On `activity-history`, keyed by the user: their choices stay in order.
public struct ActivityFavouriteSet: EventPayload {
    public static let eventType = "activity.favourite_set"
    public static let version = 1
    public static let topic = Topic.activityHistory
    public static let privacy = PayloadPrivacy(personal: [:], notPersonal: ["user_id", "activity_id", "favourite"])

    public var userId: UUID
    public var activityId: String
    public var favourite: Bool

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case activityId = "activity_id"
        case favourite
    }

    public init(userId: UUID, activityId: String, favourite: Bool) {
        self.userId = userId
        self.activityId = activityId
        self.favourite = favourite
    }
}

/// `activity.completed` v1: a user did an activity (`POST /v1/activities/history`), with what they
/// noted of the moment (`context`: the seed's context snapshot, theirs).
public struct ActivityCompleted: EventPayload {
    public static let eventType = "activity.completed"
    public static let version = 1
    public static let topic = Topic.activityHistory
    public static let privacy = PayloadPrivacy(
        personal: ["context": .user("user_id")],
        notPersonal: ["user_id", "entry_id", "activity_id", "completed_at"])

    public var userId: UUID
    public var entryId: UUID
    public var activityId: String
    public var completedAt: Date
    public var context: JSONValue?

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case entryId = "entry_id"
        case activityId = "activity_id"
        case completedAt = "completed_at"
        case context
    }

    public init(userId: UUID, entryId: UUID, activityId: String, completedAt: Date, context: JSONValue?) {
        self.userId = userId
        self.entryId = entryId
        self.activityId = activityId
        self.completedAt = Timestamp.rounded(completedAt)
        self.context = context
    }
}

/// `activity.prefs_set` v1: a user's activity preferences as a whole (`PUT /v1/activities/prefs`):
/// the times, energies and contexts they usually pick, and their flags.
public struct ActivityPrefsSet: EventPayload {
    public static let eventType = "activity.prefs_set"
    public static let version = 1
    public static let topic = Topic.activityHistory
    public static let privacy = PayloadPrivacy(personal: ["prefs": .user("user_id")], notPersonal: ["user_id"])

    public var userId: UUID
    /// Nil once the user's key is destroyed.
    public var prefs: JSONValue?

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case prefs
    }

    public init(userId: UUID, prefs: JSONValue) {
        self.userId = userId
        self.prefs = prefs
    }
}
