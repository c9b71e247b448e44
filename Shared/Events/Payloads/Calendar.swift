import Foundation

/// The kinds of entry the household calendar holds (the seed's training sessions, calls and ad-hoc
/// appointments, plus ordinary appointments).
public enum CalendarEventKind: String, Codable, Sendable, CaseIterable {
    case appointment, call, training, adhoc
}

/// The fields every version-1 calendar entry event carries: what the entry is after the change.
/// `start` and `end` are instants; `time_zone` says in which zone the entry's wall-clock times
/// (and so its recurrences and, for all-day entries, its dates) are meant.
public struct CalendarEntryState: Codable, Sendable, Equatable {
    public var title: String
    public var start: Date
    public var end: Date
    public var allDay: Bool
    public var timeZone: String
    public var kind: CalendarEventKind
    public var memberIds: [UUID]
    public var location: String?
    public var rrule: String?

    enum CodingKeys: String, CodingKey {
        case title, start, end
        case allDay = "all_day"
        case timeZone = "time_zone"
        case kind
        case memberIds = "member_ids"
        case location, rrule
    }

    public init(
        title: String, start: Date, end: Date, allDay: Bool, timeZone: String, kind: CalendarEventKind,
        memberIds: [UUID], location: String?, rrule: String?
    ) {
        self.title = title
        self.start = start
        self.end = end
        self.allDay = allDay
        self.timeZone = timeZone
        self.kind = kind
        self.memberIds = memberIds
        self.location = location
        self.rrule = rrule
    }
}

/// `calendar.event_created` v1: a household calendar entry exists. Keyed by the entry, so its
/// created, updated and deleted events stay in order. `sequence` starts at 0 and grows with
/// every change (it becomes the iCalendar `SEQUENCE`).
public struct CalendarEventCreated: EventPayload {
    public static let eventType = "calendar.event_created"
    public static let version = 1
    public static let topic = Topic.calendar
    public static let privacy = PayloadPrivacy(
        personal: [
            "entry.title": .householdElseUser("household_id", "created_by", erased: .string("")),
            "entry.time_zone": .householdElseUser("household_id", "created_by", erased: .string("UTC")),
            "entry.location": .householdElseUser("household_id", "created_by"),
            "entry.rrule": .householdElseUser("household_id", "created_by"),
        ],
        notPersonal: [
            "event_id", "household_id", "created_by", "sequence",
            "entry.start", "entry.end", "entry.all_day", "entry.kind", "entry.member_ids",
        ])

    public var eventId: UUID
    public var householdId: UUID?
    public var createdBy: UUID
    public var entry: CalendarEntryState
    public var sequence: Int

    public var aggregateKey: String { eventId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case eventId = "event_id"
        case householdId = "household_id"
        case createdBy = "created_by"
        case entry, sequence
    }

    public init(eventId: UUID, householdId: UUID?, createdBy: UUID, entry: CalendarEntryState, sequence: Int = 0) {
        self.eventId = eventId
        self.householdId = householdId
        self.createdBy = createdBy
        self.entry = entry
        self.sequence = sequence
    }
}

/// `calendar.event_updated` v1: the entry now reads `entry` (the whole state, not a patch).
public struct CalendarEventUpdated: EventPayload {
    public static let eventType = "calendar.event_updated"
    public static let version = 1
    public static let topic = Topic.calendar
    public static let privacy = PayloadPrivacy(
        personal: [
            "entry.title": .householdElseUser("household_id", "updated_by", erased: .string("")),
            "entry.time_zone": .householdElseUser("household_id", "updated_by", erased: .string("UTC")),
            "entry.location": .householdElseUser("household_id", "updated_by"),
            "entry.rrule": .householdElseUser("household_id", "updated_by"),
        ],
        notPersonal: [
            "event_id", "household_id", "updated_by", "sequence",
            "entry.start", "entry.end", "entry.all_day", "entry.kind", "entry.member_ids",
        ])

    public var eventId: UUID
    public var householdId: UUID?
    public var updatedBy: UUID
    public var entry: CalendarEntryState
    public var sequence: Int

    public var aggregateKey: String { eventId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case eventId = "event_id"
        case householdId = "household_id"
        case updatedBy = "updated_by"
        case entry, sequence
    }

    public init(eventId: UUID, householdId: UUID?, updatedBy: UUID, entry: CalendarEntryState, sequence: Int) {
        self.eventId = eventId
        self.householdId = householdId
        self.updatedBy = updatedBy
        self.entry = entry
        self.sequence = sequence
    }
}

/// `calendar.event_deleted` v1: the entry is gone from the household calendar.
public struct CalendarEventDeleted: EventPayload {
    public static let eventType = "calendar.event_deleted"
    public static let version = 1
    public static let topic = Topic.calendar
    public static let privacy = PayloadPrivacy.nothingPersonal(["event_id", "household_id", "deleted_by", "sequence"])

    public var eventId: UUID
    public var householdId: UUID?
    public var deletedBy: UUID
    public var sequence: Int

    public var aggregateKey: String { eventId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case eventId = "event_id"
        case householdId = "household_id"
        case deletedBy = "deleted_by"
        case sequence
    }

    public init(eventId: UUID, householdId: UUID?, deletedBy: UUID, sequence: Int) {
        self.eventId = eventId
        self.householdId = householdId
        self.deletedBy = deletedBy
        self.sequence = sequence
    }
}

/// `calendar.feed_created` v1: a secret iCalendar feed URL was issued. Only the SHA-256 of the
/// URL's token travels (hex): the token itself is shown once to its creator and never stored.
public struct CalendarFeedCreated: EventPayload {
    public static let eventType = "calendar.feed_created"
    public static let version = 1
    public static let topic = Topic.calendar
    public static let privacy = PayloadPrivacy.nothingPersonal(["feed_id", "household_id", "user_id", "token_sha256"])

    public var feedId: UUID
    public var householdId: UUID?
    public var userId: UUID
    public var tokenSHA256: String

    public var aggregateKey: String { feedId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case feedId = "feed_id"
        case householdId = "household_id"
        case userId = "user_id"
        case tokenSHA256 = "token_sha256"
    }

    public init(feedId: UUID, householdId: UUID?, userId: UUID, tokenSHA256: String) {
        self.feedId = feedId
        self.householdId = householdId
        self.userId = userId
        self.tokenSHA256 = tokenSHA256
    }
}

/// `calendar.feed_revoked` v1: the feed URL stops working.
public struct CalendarFeedRevoked: EventPayload {
    public static let eventType = "calendar.feed_revoked"
    public static let version = 1
    public static let topic = Topic.calendar
    public static let privacy = PayloadPrivacy.nothingPersonal(["feed_id", "user_id"])

    public var feedId: UUID
    public var userId: UUID

    public var aggregateKey: String { feedId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case feedId = "feed_id"
        case userId = "user_id"
    }

    public init(feedId: UUID, userId: UUID) {
        self.feedId = feedId
        self.userId = userId
    }
}

/// `google.link_connected` v1: the user granted Hearth offline access to their Google calendar.
///
/// No token travels in any event: the refresh token is kept AES-GCM encrypted in the gateway's
/// `google_credentials` table only, because disconnecting must really destroy it, and an
/// append-only log (and its archive) can never forget a value once written. Keyed by the user,
/// so connect, break and disconnect of one user stay in order.
public struct GoogleLinkConnected: EventPayload {
    public static let eventType = "google.link_connected"
    public static let version = 1
    public static let topic = Topic.calendar
    public static let privacy = PayloadPrivacy(
        personal: ["calendar_id": .user("user_id", erased: .string(""))],
        notPersonal: ["user_id", "household_id", "scope"])

    public var userId: UUID
    public var householdId: UUID?
    /// The Google calendar events are mirrored into (`primary` unless configured otherwise).
    public var calendarId: String
    public var scope: String

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case householdId = "household_id"
        case calendarId = "calendar_id"
        case scope
    }

    public init(userId: UUID, householdId: UUID?, calendarId: String, scope: String) {
        self.userId = userId
        self.householdId = householdId
        self.calendarId = calendarId
        self.scope = scope
    }
}

/// `google.link_disconnected` v1: the user removed the link; nothing more is mirrored.
public struct GoogleLinkDisconnected: EventPayload {
    public static let eventType = "google.link_disconnected"
    public static let version = 1
    public static let topic = Topic.calendar
    public static let privacy = PayloadPrivacy.nothingPersonal(["user_id"])

    public var userId: UUID

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
    }

    public init(userId: UUID) {
        self.userId = userId
    }
}

/// `google.link_broken` v1: Google refused the refresh token (`invalid_grant`: revoked, expired
/// or the password changed). Mirroring stops until the user connects again.
public struct GoogleLinkBroken: EventPayload {
    public static let eventType = "google.link_broken"
    public static let version = 1
    public static let topic = Topic.calendar
    public static let privacy = PayloadPrivacy(
        personal: ["reason": .user("user_id", erased: .string(""))],
        notPersonal: ["user_id"])

    public var userId: UUID
    public var reason: String

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case reason
    }

    public init(userId: UUID, reason: String) {
        self.userId = userId
        self.reason = reason
    }
}
