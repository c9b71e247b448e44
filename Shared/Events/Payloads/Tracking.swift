import Foundation

// Baby and toddler tracking: a child's logs (feeds, sleeps, diapers, growth, medication, foods
// tried, photos), allergen check-in answers, the child's sex and the reminder settings.
//
// Every tracking event is keyed by the household: a child's logs, the household's settings and
// its caregivers' reminder settings are then in one order on one partition, which a replay reads
// in the same order (so the notifier's plans, made from all three, come out the same), and the
// offset of a child's last event is a sync cursor that replays to the same value. The details of
// a log are the household's health data: sealed whole with the household's key.

/// The kinds of log, with their event name (`tracking.<kind>_logged`) and path segment
/// (`/v1/children/{id}/<segment>`).
public enum TrackingLogKind: String, Codable, CaseIterable, Sendable {
    case feed, sleep, diaper, growth, medication, food, photo

    public var pathSegment: String {
        switch self {
        case .feed: "feeds"
        case .sleep: "sleeps"
        case .diaper: "diapers"
        case .growth: "growth"
        case .medication: "medications"
        case .food: "foods"
        case .photo: "photos"
        }
    }

    public init?(pathSegment: String) {
        guard let kind = Self.allCases.first(where: { $0.pathSegment == pathSegment }) else { return nil }
        self = kind
    }
}

/// What one kind of log records beyond its time. Units are canonical (ml, minutes, kg, cm):
/// the gateway converts what clients send.
public protocol TrackingLogDetail: Codable, Sendable, Equatable {
    static var kind: TrackingLogKind { get }
}

/// A feed: a bottle, a nursing session or solids.
public struct FeedDetail: TrackingLogDetail {
    public static let kind = TrackingLogKind.feed
    /// `bottle`, `nursing` or `solids`.
    public var method: String
    public var amountMl: Double?
    /// Bottle: `formula` or `breast_milk`.
    public var milk: String?
    /// Nursing: `left`, `right` or `both`.
    public var side: String?
    public var endedAt: Date?
    public var durationMinutes: Double?
    /// Solids: the foods given, and how much in words ("a few spoons").
    public var foods: [String]?
    public var amountWords: String?
    public var notes: String?

    public init(
        method: String, amountMl: Double? = nil, milk: String? = nil, side: String? = nil, endedAt: Date? = nil,
        durationMinutes: Double? = nil, foods: [String]? = nil, amountWords: String? = nil, notes: String? = nil
    ) {
        self.method = method
        self.amountMl = amountMl
        self.milk = milk
        self.side = side
        self.endedAt = endedAt.map(Timestamp.rounded)
        self.durationMinutes = durationMinutes
        self.foods = foods
        self.amountWords = amountWords
        self.notes = notes
    }

    enum CodingKeys: String, CodingKey {
        case method
        case amountMl = "amount_ml"
        case milk, side
        case endedAt = "ended_at"
        case durationMinutes = "duration_minutes"
        case foods
        case amountWords = "amount_words"
        case notes
    }
}

/// A sleep from the log's time to `ended_at` (nil while it goes on).
public struct SleepDetail: TrackingLogDetail {
    public static let kind = TrackingLogKind.sleep
    public var endedAt: Date?
    /// `nap` or `night`.
    public var period: String
    /// True when the caregiver chose the period; otherwise it was derived from the time of day.
    public var periodChosen: Bool
    public var notes: String?

    public init(endedAt: Date?, period: String, periodChosen: Bool, notes: String? = nil) {
        self.endedAt = endedAt.map(Timestamp.rounded)
        self.period = period
        self.periodChosen = periodChosen
        self.notes = notes
    }

    enum CodingKeys: String, CodingKey {
        case endedAt = "ended_at"
        case period
        case periodChosen = "period_chosen"
        case notes
    }
}

public struct DiaperDetail: TrackingLogDetail {
    public static let kind = TrackingLogKind.diaper
    /// `wet`, `dirty` or `both`.
    public var contents: String
    public var colour: String?
    public var consistency: String?
    public var notes: String?

    public init(contents: String, colour: String? = nil, consistency: String? = nil, notes: String? = nil) {
        self.contents = contents
        self.colour = colour
        self.consistency = consistency
        self.notes = notes
    }
}

/// Growth measurements in kg and cm (any subset, at least one).
public struct GrowthDetail: TrackingLogDetail {
    public static let kind = TrackingLogKind.growth
    public var weightKg: Double?
    public var lengthCm: Double?
    public var headCm: Double?
    public var notes: String?

    public init(weightKg: Double?, lengthCm: Double?, headCm: Double?, notes: String? = nil) {
        self.weightKg = weightKg
        self.lengthCm = lengthCm
        self.headCm = headCm
        self.notes = notes
    }

    enum CodingKeys: String, CodingKey {
        case weightKg = "weight_kg"
        case lengthCm = "length_cm"
        case headCm = "head_cm"
        case notes
    }
}

/// A dose given at the log's time; with an interval, the next dose is due that long after.
public struct MedicationDetail: TrackingLogDetail {
    public static let kind = TrackingLogKind.medication
    public var name: String
    public var dose: Double
    /// `ml`, `mg`, `drops`, `tablet`, ...
    public var doseUnit: String
    public var intervalHours: Double?
    public var notes: String?

    public init(name: String, dose: Double, doseUnit: String, intervalHours: Double?, notes: String? = nil) {
        self.name = name
        self.dose = dose
        self.doseUnit = doseUnit
        self.intervalHours = intervalHours
        self.notes = notes
    }

    enum CodingKeys: String, CodingKey {
        case name, dose
        case doseUnit = "dose_unit"
        case intervalHours = "interval_hours"
        case notes
    }
}

/// A food tried (first tried at the log's time). `allergens` are the canonical allergens the food
/// holds, resolved by the gateway when it was logged. Un-marking keeps the log with `unmarked_at`.
public struct FoodDetail: TrackingLogDetail {
    public static let kind = TrackingLogKind.food
    public var food: String
    public var allergens: [String]
    /// `none`, `mild`, `moderate` or `severe`.
    public var reaction: String
    public var symptoms: [String]
    public var liked: Bool?
    public var colour: String?
    public var unmarkedAt: Date?
    public var notes: String?

    public init(
        food: String, allergens: [String], reaction: String, symptoms: [String], liked: Bool?, colour: String?, unmarkedAt: Date?,
        notes: String? = nil
    ) {
        self.food = food
        self.allergens = allergens
        self.reaction = reaction
        self.symptoms = symptoms
        self.liked = liked
        self.colour = colour
        self.unmarkedAt = unmarkedAt.map(Timestamp.rounded)
        self.notes = notes
    }

    enum CodingKeys: String, CodingKey {
        case food, allergens, reaction, symptoms, liked, colour
        case unmarkedAt = "unmarked_at"
        case notes
    }
}

/// A photo, stored by the gateway (bytes and thumbnail); the event names it by id and hash.
public struct PhotoDetail: TrackingLogDetail {
    public static let kind = TrackingLogKind.photo
    public var photoId: UUID
    public var sha256: String
    public var contentType: String
    public var byteCount: Int
    public var foodLogId: UUID?
    public var caption: String?

    public init(photoId: UUID, sha256: String, contentType: String, byteCount: Int, foodLogId: UUID?, caption: String?) {
        self.photoId = photoId
        self.sha256 = sha256
        self.contentType = contentType
        self.byteCount = byteCount
        self.foodLogId = foodLogId
        self.caption = caption
    }

    enum CodingKeys: String, CodingKey {
        case photoId = "photo_id"
        case sha256
        case contentType = "content_type"
        case byteCount = "byte_count"
        case foodLogId = "food_log_id"
        case caption
    }
}

/// `tracking.<kind>_logged` v1: a caregiver logged something for a child. `at` is the log's own
/// time (when the feed started, the sleep began, the food was first tried), not when it arrived:
/// logs made offline arrive late and are ordered by it. `detail` is null once the household's key
/// is destroyed.
public struct TrackingLogged<Detail: TrackingLogDetail>: EventPayload {
    public static var eventType: String { "tracking.\(Detail.kind.rawValue)_logged" }
    public static var version: Int { 1 }
    public static var topic: Topic { .tracking }
    public static var privacy: PayloadPrivacy {
        PayloadPrivacy(
            personal: ["detail": .household("household_id")],
            notPersonal: ["log_id", "child_id", "household_id", "logged_by", "client_id", "at"])
    }

    public var logId: UUID
    public var childId: UUID
    public var householdId: UUID
    public var loggedBy: UUID
    /// The client's own id for the log: a retried create with the same one is the same log.
    public var clientId: String?
    public var at: Date
    public var detail: Detail?

    public var aggregateKey: String { householdId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case logId = "log_id"
        case childId = "child_id"
        case householdId = "household_id"
        case loggedBy = "logged_by"
        case clientId = "client_id"
        case at, detail
    }

    public init(logId: UUID, childId: UUID, householdId: UUID, loggedBy: UUID, clientId: String?, at: Date, detail: Detail) {
        self.logId = logId
        self.childId = childId
        self.householdId = householdId
        self.loggedBy = loggedBy
        self.clientId = clientId
        self.at = Timestamp.rounded(at)
        self.detail = detail
    }
}

/// `tracking.<kind>_edited` v1: the whole new state of a log. `version` is the version it makes
/// (the edited version + 1): the projection applies it only on top of the version it edited, so of
/// two edits of the same version one wins and the other is answered 409 by the gateway.
public struct TrackingLogEdited<Detail: TrackingLogDetail>: EventPayload {
    public static var eventType: String { "tracking.\(Detail.kind.rawValue)_edited" }
    public static var version: Int { 1 }
    public static var topic: Topic { .tracking }
    public static var privacy: PayloadPrivacy {
        PayloadPrivacy(
            personal: ["detail": .household("household_id")],
            notPersonal: ["log_id", "child_id", "household_id", "edited_by", "at", "version"])
    }

    public var logId: UUID
    public var childId: UUID
    public var householdId: UUID
    public var editedBy: UUID
    public var at: Date
    public var detail: Detail?
    public var version: Int

    public var aggregateKey: String { householdId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case logId = "log_id"
        case childId = "child_id"
        case householdId = "household_id"
        case editedBy = "edited_by"
        case at, detail, version
    }

    public init(logId: UUID, childId: UUID, householdId: UUID, editedBy: UUID, at: Date, detail: Detail, version: Int) {
        self.logId = logId
        self.childId = childId
        self.householdId = householdId
        self.editedBy = editedBy
        self.at = Timestamp.rounded(at)
        self.detail = detail
        self.version = version
    }
}

/// `tracking.<kind>_deleted` v1: the log is gone (kept as a tombstone for sync).
public struct TrackingLogDeleted<Detail: TrackingLogDetail>: EventPayload {
    public static var eventType: String { "tracking.\(Detail.kind.rawValue)_deleted" }
    public static var version: Int { 1 }
    public static var topic: Topic { .tracking }
    public static var privacy: PayloadPrivacy {
        .nothingPersonal(["log_id", "child_id", "household_id", "deleted_by", "version"])
    }

    public var logId: UUID
    public var childId: UUID
    public var householdId: UUID
    public var deletedBy: UUID
    public var version: Int

    public var aggregateKey: String { householdId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case logId = "log_id"
        case childId = "child_id"
        case householdId = "household_id"
        case deletedBy = "deleted_by"
        case version
    }

    public init(logId: UUID, childId: UUID, householdId: UUID, deletedBy: UUID, version: Int) {
        self.logId = logId
        self.childId = childId
        self.householdId = householdId
        self.deletedBy = deletedBy
        self.version = version
    }
}

/// `tracking.allergen_check_in_answered` v1: a caregiver answered the check-in after a food with a
/// high-risk allergen: `fine`, or `reaction` (with how severe and the symptoms). A reaction marks
/// the food's allergens as reacted for the child.
public struct AllergenCheckInAnswered: EventPayload {
    public static let eventType = "tracking.allergen_check_in_answered"
    public static let version = 1
    public static let topic = Topic.tracking
    public static let privacy = PayloadPrivacy(
        personal: [
            "outcome": .household("household_id"),
            "allergens": .household("household_id"),
            "severity": .household("household_id"),
            "symptoms": .household("household_id"),
        ],
        notPersonal: ["check_in_id", "food_log_id", "child_id", "household_id", "answered_by"])

    public var checkInId: UUID
    public var foodLogId: UUID
    public var childId: UUID
    public var householdId: UUID
    public var answeredBy: UUID
    /// `fine` or `reaction` (a child's health: null once the household's key is destroyed).
    public var outcome: String?
    public var allergens: [String]?
    public var severity: String?
    public var symptoms: [String]?

    public var aggregateKey: String { householdId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case checkInId = "check_in_id"
        case foodLogId = "food_log_id"
        case childId = "child_id"
        case householdId = "household_id"
        case answeredBy = "answered_by"
        case outcome, allergens, severity, symptoms
    }

    public init(
        checkInId: UUID, foodLogId: UUID, childId: UUID, householdId: UUID, answeredBy: UUID, outcome: String, allergens: [String],
        severity: String?, symptoms: [String]
    ) {
        self.checkInId = checkInId
        self.foodLogId = foodLogId
        self.childId = childId
        self.householdId = householdId
        self.answeredBy = answeredBy
        self.outcome = outcome
        self.allergens = allergens
        self.severity = severity
        self.symptoms = symptoms
    }
}

/// `tracking.child_profile_set` v1: what growth percentiles need of a child beyond the birth date
/// the household already holds (its sex as WHO's tables split it).
public struct ChildProfileSet: EventPayload {
    public static let eventType = "tracking.child_profile_set"
    public static let version = 1
    public static let topic = Topic.tracking
    public static let privacy = PayloadPrivacy(
        personal: ["sex": .household("household_id")],
        notPersonal: ["child_id", "household_id", "set_by"])

    public var childId: UUID
    public var householdId: UUID
    /// `female` or `male`; null once erased.
    public var sex: String?
    public var setBy: UUID

    public var aggregateKey: String { householdId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case childId = "child_id"
        case householdId = "household_id"
        case sex
        case setBy = "set_by"
    }

    public init(childId: UUID, householdId: UUID, sex: String, setBy: UUID) {
        self.childId = childId
        self.householdId = householdId
        self.sex = sex
        self.setBy = setBy
    }
}

/// `tracking.settings_updated` v1: the household's tracking settings (the whole set).
public struct TrackingSettingsUpdated: EventPayload {
    public static let eventType = "tracking.settings_updated"
    public static let version = 1
    public static let topic = Topic.tracking
    public static let privacy = PayloadPrivacy.nothingPersonal(
        ["household_id", "updated_by", "allergen_check_ins", "check_in_delay_minutes"])

    public var householdId: UUID
    public var updatedBy: UUID
    public var allergenCheckIns: Bool
    /// 60 to 240.
    public var checkInDelayMinutes: Int

    public var aggregateKey: String { householdId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case householdId = "household_id"
        case updatedBy = "updated_by"
        case allergenCheckIns = "allergen_check_ins"
        case checkInDelayMinutes = "check_in_delay_minutes"
    }

    public init(householdId: UUID, updatedBy: UUID, allergenCheckIns: Bool, checkInDelayMinutes: Int) {
        self.householdId = householdId
        self.updatedBy = updatedBy
        self.allergenCheckIns = allergenCheckIns
        self.checkInDelayMinutes = checkInDelayMinutes
    }
}

/// `tracking.caregiver_reminders_set` v1: one caregiver's tracking reminders (the whole set):
/// next-feed reminders with a lead time, and whether a medication falling due may break their
/// quiet hours. Keyed by the household, like every tracking event.
public struct CaregiverRemindersSet: EventPayload {
    public static let eventType = "tracking.caregiver_reminders_set"
    public static let version = 1
    public static let topic = Topic.tracking
    public static let privacy = PayloadPrivacy.nothingPersonal(
        ["user_id", "household_id", "feed_reminders", "feed_lead_minutes", "medication_reminders", "medication_breaks_quiet_hours", "time_zone"])

    public var userId: UUID
    public var householdId: UUID
    public var feedReminders: Bool
    /// 15, 30, 45, 60 or 120.
    public var feedLeadMinutes: Int
    public var medicationReminders: Bool
    public var medicationBreaksQuietHours: Bool
    /// The caregiver's IANA zone when they set these: what "night" means for their next-feed
    /// predictions and the clock times in their reminders (in the event, so a replay plans alike).
    public var timeZone: String?

    public var aggregateKey: String { householdId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case householdId = "household_id"
        case feedReminders = "feed_reminders"
        case feedLeadMinutes = "feed_lead_minutes"
        case medicationReminders = "medication_reminders"
        case medicationBreaksQuietHours = "medication_breaks_quiet_hours"
        case timeZone = "time_zone"
    }

    public init(
        userId: UUID, householdId: UUID, feedReminders: Bool, feedLeadMinutes: Int, medicationReminders: Bool,
        medicationBreaksQuietHours: Bool, timeZone: String?
    ) {
        self.userId = userId
        self.householdId = householdId
        self.feedReminders = feedReminders
        self.feedLeadMinutes = feedLeadMinutes
        self.medicationReminders = medicationReminders
        self.medicationBreaksQuietHours = medicationBreaksQuietHours
        self.timeZone = timeZone
    }
}

extension TrackingLogKind {
    /// The payload types of this kind's three events (catalogue registration, projection filters).
    public var eventTypes: [String] {
        switch self {
        case .feed: Self.types(FeedDetail.self)
        case .sleep: Self.types(SleepDetail.self)
        case .diaper: Self.types(DiaperDetail.self)
        case .growth: Self.types(GrowthDetail.self)
        case .medication: Self.types(MedicationDetail.self)
        case .food: Self.types(FoodDetail.self)
        case .photo: Self.types(PhotoDetail.self)
        }
    }

    private static func types<D: TrackingLogDetail>(_ detail: D.Type) -> [String] {
        [TrackingLogged<D>.eventType, TrackingLogEdited<D>.eventType, TrackingLogDeleted<D>.eventType]
    }

    /// Every tracking payload type, for the catalogue.
    public static var payloadTypes: [any EventPayload.Type] {
        func all<D: TrackingLogDetail>(_ detail: D.Type) -> [any EventPayload.Type] {
            [TrackingLogged<D>.self, TrackingLogEdited<D>.self, TrackingLogDeleted<D>.self]
        }
        return all(FeedDetail.self) + all(SleepDetail.self) + all(DiaperDetail.self) + all(GrowthDetail.self)
            + all(MedicationDetail.self) + all(FoodDetail.self) + all(PhotoDetail.self)
            + [AllergenCheckInAnswered.self, ChildProfileSet.self, TrackingSettingsUpdated.self, CaregiverRemindersSet.self,
               DaycareImportReceived.self, DaycareImportReceivedV2.self, DaycareImportSuggestionChanged.self, DaycareImportCommitted.self]
    }
}

/// What one log event did, whatever the kind: how projections read the 21 log event types
/// through one code path.
public enum TrackingLogChange: Sendable {
    case logged(by: UUID, clientId: String?, at: Date, detail: (any TrackingLogDetail)?)
    case edited(by: UUID, at: Date, detail: (any TrackingLogDetail)?, version: Int)
    case deleted(by: UUID, version: Int)
}

/// A log event of any kind.
public protocol TrackingLogEvent: EventPayload {
    static var kind: TrackingLogKind { get }
    var logId: UUID { get }
    var childId: UUID { get }
    var householdId: UUID { get }
    var change: TrackingLogChange { get }
}

extension TrackingLogged: TrackingLogEvent {
    public static var kind: TrackingLogKind { Detail.kind }
    public var change: TrackingLogChange { .logged(by: loggedBy, clientId: clientId, at: at, detail: detail) }
}

extension TrackingLogEdited: TrackingLogEvent {
    public static var kind: TrackingLogKind { Detail.kind }
    public var change: TrackingLogChange { .edited(by: editedBy, at: at, detail: detail, version: version) }
}

extension TrackingLogDeleted: TrackingLogEvent {
    public static var kind: TrackingLogKind { Detail.kind }
    public var change: TrackingLogChange { .deleted(by: deletedBy, version: version) }
}

extension TrackingLogKind {
    /// The `_logged` event of this kind for a detail of the right type (the gateway's one writer).
    public func logged(
        logId: UUID, childId: UUID, householdId: UUID, loggedBy: UUID, clientId: String?, at: Date, detail: any TrackingLogDetail
    ) -> any TrackingLogEvent {
        func make<D: TrackingLogDetail>(_ detail: D) -> any TrackingLogEvent {
            TrackingLogged(logId: logId, childId: childId, householdId: householdId, loggedBy: loggedBy, clientId: clientId, at: at, detail: detail)
        }
        return make(detail)
    }

    public func edited(logId: UUID, childId: UUID, householdId: UUID, editedBy: UUID, at: Date, detail: any TrackingLogDetail, version: Int)
        -> any TrackingLogEvent
    {
        func make<D: TrackingLogDetail>(_ detail: D) -> any TrackingLogEvent {
            TrackingLogEdited(logId: logId, childId: childId, householdId: householdId, editedBy: editedBy, at: at, detail: detail, version: version)
        }
        return make(detail)
    }

    public func deleted(logId: UUID, childId: UUID, householdId: UUID, deletedBy: UUID, version: Int) -> any TrackingLogEvent {
        func make<D: TrackingLogDetail>(_ detail: D.Type) -> any TrackingLogEvent {
            TrackingLogDeleted<D>(logId: logId, childId: childId, householdId: householdId, deletedBy: deletedBy, version: version)
        }
        switch self {
        case .feed: return make(FeedDetail.self)
        case .sleep: return make(SleepDetail.self)
        case .diaper: return make(DiaperDetail.self)
        case .growth: return make(GrowthDetail.self)
        case .medication: return make(MedicationDetail.self)
        case .food: return make(FoodDetail.self)
        case .photo: return make(PhotoDetail.self)
        }
    }

    /// Reads a stored detail back (the read model keeps it as JSON).
    public func decodeDetail(_ data: Data, decoder: JSONDecoder) throws -> any TrackingLogDetail {
        switch self {
        case .feed: try decoder.decode(FeedDetail.self, from: data)
        case .sleep: try decoder.decode(SleepDetail.self, from: data)
        case .diaper: try decoder.decode(DiaperDetail.self, from: data)
        case .growth: try decoder.decode(GrowthDetail.self, from: data)
        case .medication: try decoder.decode(MedicationDetail.self, from: data)
        case .food: try decoder.decode(FoodDetail.self, from: data)
        case .photo: try decoder.decode(PhotoDetail.self, from: data)
        }
    }
}

/// `assist.summary_requested` v1: a caregiver asked for a pediatrician summary of a child over a
/// range of days. On `assist.requests` beside plans and assistant messages (keyed by run), so the
/// orchestrator claims, budgets, safety-checks and streams it like any run. The metrics are
/// computed by the gateway from the logs and travel in the request: the run writes the words, never
/// the numbers. Sealed with the run's key: the summary ages out with the run.
public struct SummaryRequested: EventPayload {
    public static let eventType = "assist.summary_requested"
    public static let version = 1
    public static let topic = Topic.assistRequests
    public static let privacy = PayloadPrivacy(
        personal: [
            "child_name": .run("run_id", erased: .string("")),
            "parent_notes": .run("run_id"),
            "metrics": .run("run_id"),
        ],
        notPersonal: ["run_id", "user_id", "household_id", "child_id", "from", "to"])

    public var runId: UUID
    public var userId: UUID
    public var householdId: UUID
    public var childId: UUID
    public var childName: String
    /// `YYYY-MM-DD`, both included.
    public var from: String
    public var to: String
    /// PII-redacted by the gateway.
    public var parentNotes: String?
    /// `SummaryMetrics` as JSON (null once the run's key is destroyed).
    public var metrics: JSONValue?

    public var aggregateKey: String { runId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case runId = "run_id"
        case userId = "user_id"
        case householdId = "household_id"
        case childId = "child_id"
        case childName = "child_name"
        case from, to
        case parentNotes = "parent_notes"
        case metrics
    }

    public init(
        runId: UUID, userId: UUID, householdId: UUID, childId: UUID, childName: String, from: String, to: String, parentNotes: String?,
        metrics: JSONValue
    ) {
        self.runId = runId
        self.userId = userId
        self.householdId = householdId
        self.childId = childId
        self.childName = childName
        self.from = from
        self.to = to
        self.parentNotes = parentNotes
        self.metrics = metrics
    }
}

/// `assist.summary_requested` v2: v1 plus `growth_chart`, the child's weight-for-age
/// measurements from birth to the range's end and the sex the WHO bands are read for, as they were
/// when the summary was asked for: `{"sex": "female", "points": [{"age_days": 30, "weight_kg": 4.2}]}`,
/// or null without a sex, a birth date or a weight. The summary's PDF draws its chart from these,
/// so a weight logged or corrected later does not change a summary already handed to a doctor.
public struct SummaryRequestedV2: EventPayload {
    public static let eventType = SummaryRequested.eventType
    public static let version = 2
    public static let topic = Topic.assistRequests
    public static let privacy = PayloadPrivacy(
        personal: [
            "child_name": .run("run_id", erased: .string("")),
            "parent_notes": .run("run_id"),
            "metrics": .run("run_id"),
            "growth_chart": .run("run_id"),
        ],
        notPersonal: ["run_id", "user_id", "household_id", "child_id", "from", "to"])

    public var runId: UUID
    public var userId: UUID
    public var householdId: UUID
    public var childId: UUID
    public var childName: String
    /// `YYYY-MM-DD`, both included.
    public var from: String
    public var to: String
    /// PII-redacted by the gateway.
    public var parentNotes: String?
    /// `SummaryMetrics` as JSON (null once the run's key is destroyed).
    public var metrics: JSONValue?
    /// `SummaryGrowthChart` as JSON; null when there is nothing to draw or the key is destroyed.
    public var growthChart: JSONValue?

    public var aggregateKey: String { runId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case runId = "run_id"
        case userId = "user_id"
        case householdId = "household_id"
        case childId = "child_id"
        case childName = "child_name"
        case from, to
        case parentNotes = "parent_notes"
        case metrics
        case growthChart = "growth_chart"
    }

    public init(
        runId: UUID, userId: UUID, householdId: UUID, childId: UUID, childName: String, from: String, to: String, parentNotes: String?,
        metrics: JSONValue, growthChart: JSONValue?
    ) {
        self.runId = runId
        self.userId = userId
        self.householdId = householdId
        self.childId = childId
        self.childName = childName
        self.from = from
        self.to = to
        self.parentNotes = parentNotes
        self.metrics = metrics
        self.growthChart = growthChart
    }

    /// v1 → v2: a v1 request froze no chart, and its PDF draws none rather than today's logs.
    public static let upcasterFromV1 = Upcaster(eventType: eventType, fromVersion: 1) { payload in
        guard case .object(var fields) = payload else { return payload }
        if fields["growth_chart"] == nil { fields["growth_chart"] = .null }
        return .object(fields)
    }
}

/// One log a daycare report suggests, as the parser read it (times are minutes after local
/// midnight of the report's day).
public struct ImportSuggestion: Codable, Sendable, Equatable {
    /// `nap`, `feed`, `diaper`, `solids`, `medication` or `note`.
    public var kind: String
    public var start: Int
    public var end: Int?
    public var amountMl: Double?
    public var details: String
    public var line: Int

    public init(kind: String, start: Int, end: Int?, amountMl: Double?, details: String, line: Int) {
        self.kind = kind
        self.start = start
        self.end = end
        self.amountMl = amountMl
        self.details = details
        self.line = line
    }

    enum CodingKeys: String, CodingKey {
        case kind, start, end
        case amountMl = "amount_ml"
        case details, line
    }
}

/// `tracking.import_received` v1: a daycare report was read into suggested logs, waiting for the
/// caregiver to keep, drop or edit each and commit.
public struct DaycareImportReceived: EventPayload {
    public static let eventType = "tracking.import_received"
    public static let version = 1
    public static let topic = Topic.tracking
    public static let privacy = PayloadPrivacy(
        personal: [
            "filename": .household("household_id"),
            "suggestions": .household("household_id"),
        ],
        notPersonal: ["import_id", "child_id", "household_id", "uploaded_by", "format", "report_day", "time_zone", "unread_lines"])

    public var importId: UUID
    public var childId: UUID
    public var householdId: UUID
    public var uploadedBy: UUID
    public var filename: String?
    /// `text`, `csv`, `json`, `pdf` or `image`.
    public var format: String
    /// `YYYY-MM-DD`: the day the report is about.
    public var reportDay: String
    public var timeZone: String
    /// Null once the household's key is destroyed.
    public var suggestions: [ImportSuggestion]?
    /// Lines that looked like entries but could not be read.
    public var unreadLines: [Int]

    public var aggregateKey: String { householdId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case importId = "import_id"
        case childId = "child_id"
        case householdId = "household_id"
        case uploadedBy = "uploaded_by"
        case filename, format
        case reportDay = "report_day"
        case timeZone = "time_zone"
        case suggestions
        case unreadLines = "unread_lines"
    }

    public init(
        importId: UUID, childId: UUID, householdId: UUID, uploadedBy: UUID, filename: String?, format: String, reportDay: String, timeZone: String,
        suggestions: [ImportSuggestion], unreadLines: [Int]
    ) {
        self.importId = importId
        self.childId = childId
        self.householdId = householdId
        self.uploadedBy = uploadedBy
        self.filename = filename
        self.format = format
        self.reportDay = reportDay
        self.timeZone = timeZone
        self.suggestions = suggestions
        self.unreadLines = unreadLines
    }
}

/// `tracking.import_received` v2: v1 plus `parser`, what read the sheet: `rules`, or the model
/// as `provider:model` (`HEARTH_DAYCARE_IMPORT_PARSER=model`). The suggestions are in the event
/// either way, so a replay rebuilds the import without reading the sheet again.
public struct DaycareImportReceivedV2: EventPayload {
    public static let eventType = DaycareImportReceived.eventType
    public static let version = 2
    public static let topic = Topic.tracking
    public static let privacy = PayloadPrivacy(
        personal: [
            "filename": .household("household_id"),
            "suggestions": .household("household_id"),
        ],
        notPersonal: ["import_id", "child_id", "household_id", "uploaded_by", "format", "report_day", "time_zone", "unread_lines", "parser"])

    public var importId: UUID
    public var childId: UUID
    public var householdId: UUID
    public var uploadedBy: UUID
    public var filename: String?
    /// `text`, `csv`, `json`, `pdf` or `image`.
    public var format: String
    /// `YYYY-MM-DD`: the day the report is about.
    public var reportDay: String
    public var timeZone: String
    /// Null once the household's key is destroyed.
    public var suggestions: [ImportSuggestion]?
    /// Lines that looked like entries but could not be read.
    public var unreadLines: [Int]
    /// `rules` or `provider:model`.
    public var parser: String

    public var aggregateKey: String { householdId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case importId = "import_id"
        case childId = "child_id"
        case householdId = "household_id"
        case uploadedBy = "uploaded_by"
        case filename, format
        case reportDay = "report_day"
        case timeZone = "time_zone"
        case suggestions
        case unreadLines = "unread_lines"
        case parser
    }

    public init(
        importId: UUID, childId: UUID, householdId: UUID, uploadedBy: UUID, filename: String?, format: String, reportDay: String, timeZone: String,
        suggestions: [ImportSuggestion], unreadLines: [Int], parser: String
    ) {
        self.importId = importId
        self.childId = childId
        self.householdId = householdId
        self.uploadedBy = uploadedBy
        self.filename = filename
        self.format = format
        self.reportDay = reportDay
        self.timeZone = timeZone
        self.suggestions = suggestions
        self.unreadLines = unreadLines
        self.parser = parser
    }

    /// v1 → v2: every v1 import was read by the rules, the only reader there was.
    public static let upcasterFromV1 = Upcaster(eventType: eventType, fromVersion: 1) { payload in
        guard case .object(var fields) = payload else { return payload }
        if fields["parser"] == nil { fields["parser"] = .string("rules") }
        return .object(fields)
    }
}

/// `tracking.import_suggestion_changed` v1: a caregiver kept, dropped or edited one suggestion.
public struct DaycareImportSuggestionChanged: EventPayload {
    public static let eventType = "tracking.import_suggestion_changed"
    public static let version = 1
    public static let topic = Topic.tracking
    public static let privacy = PayloadPrivacy(
        personal: ["suggestion": .household("household_id")],
        notPersonal: ["import_id", "child_id", "household_id", "index", "keep", "changed_by"])

    public var importId: UUID
    public var childId: UUID
    public var householdId: UUID
    public var index: Int
    public var keep: Bool
    /// The edited suggestion, when it was edited.
    public var suggestion: ImportSuggestion?
    public var changedBy: UUID

    public var aggregateKey: String { householdId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case importId = "import_id"
        case childId = "child_id"
        case householdId = "household_id"
        case index, keep, suggestion
        case changedBy = "changed_by"
    }

    public init(importId: UUID, childId: UUID, householdId: UUID, index: Int, keep: Bool, suggestion: ImportSuggestion?, changedBy: UUID) {
        self.importId = importId
        self.childId = childId
        self.householdId = householdId
        self.index = index
        self.keep = keep
        self.suggestion = suggestion
        self.changedBy = changedBy
    }
}

/// `tracking.import_committed` v1: the kept suggestions were written as ordinary logs (published
/// just before, in the same household order): the suggestion `indices[i]` became `log_ids[i]`.
public struct DaycareImportCommitted: EventPayload {
    public static let eventType = "tracking.import_committed"
    public static let version = 1
    public static let topic = Topic.tracking
    public static let privacy = PayloadPrivacy.nothingPersonal(["import_id", "child_id", "household_id", "committed_by", "indices", "log_ids"])

    public var importId: UUID
    public var childId: UUID
    public var householdId: UUID
    public var committedBy: UUID
    public var indices: [Int]
    public var logIds: [UUID]

    public var aggregateKey: String { householdId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case importId = "import_id"
        case childId = "child_id"
        case householdId = "household_id"
        case committedBy = "committed_by"
        case indices
        case logIds = "log_ids"
    }

    public init(importId: UUID, childId: UUID, householdId: UUID, committedBy: UUID, indices: [Int], logIds: [UUID]) {
        self.importId = importId
        self.childId = childId
        self.householdId = householdId
        self.committedBy = committedBy
        self.indices = indices
        self.logIds = logIds
    }
}
