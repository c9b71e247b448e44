import Foundation

// The wellbeing space: one adult's own check-ins, quizzes, exercises, practice scenarios, tips,
// badges and weekly reflections. Every event is keyed by the user (one partition holds a user's
// history in order) and everything a user wrote or revealed is sealed with the user's key, so
// erasing the account erases the space. Shapes owned by HearthDomain (quiz questions, figures)
// travel as JSON documents, as the summary's metrics do.

/// What a check-in says, sealed as one field: nothing of it is readable without the user's key.
public struct WellbeingCheckInEntry: Codable, Sendable, Equatable {
    /// 1 to 10.
    public var mood: Int
    /// 0 to 10.
    public var urgeLevel: Int
    public var triggerContext: String?
    public var note: String?
    public var exerciseCompleted: Bool
    /// The `WellbeingTrigger` raw values read from the trigger context (and note) when it was
    /// logged, in the event so that a later change of the vocabulary does not rewrite history.
    public var triggers: [String]
    /// The safety policy's crisis rule matched the note or the trigger context: no quiz, no badge,
    /// and the answer carried the crisis resources.
    public var crisis: Bool

    public init(mood: Int, urgeLevel: Int, triggerContext: String?, note: String?, exerciseCompleted: Bool, triggers: [String], crisis: Bool) {
        self.mood = mood
        self.urgeLevel = urgeLevel
        self.triggerContext = triggerContext
        self.note = note
        self.exerciseCompleted = exerciseCompleted
        self.triggers = triggers
        self.crisis = crisis
    }

    enum CodingKeys: String, CodingKey {
        case mood
        case urgeLevel = "urge_level"
        case triggerContext = "trigger_context"
        case note
        case exerciseCompleted = "exercise_completed"
        case triggers, crisis
    }
}

/// `wellbeing.checkin_logged` v1: a check-in, at the instant the user says it happened.
public struct WellbeingCheckInLogged: EventPayload {
    public static let eventType = "wellbeing.checkin_logged"
    public static let version = 1
    public static let topic = Topic.wellbeing
    public static let privacy = PayloadPrivacy(
        personal: ["entry": .user("user_id")], notPersonal: ["checkin_id", "user_id", "at"])

    public var checkinId: UUID
    public var userId: UUID
    public var at: Date
    /// Null once the user's key is destroyed.
    public var entry: WellbeingCheckInEntry?

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case checkinId = "checkin_id"
        case userId = "user_id"
        case at, entry
    }

    public init(checkinId: UUID, userId: UUID, at: Date, entry: WellbeingCheckInEntry) {
        self.checkinId = checkinId
        self.userId = userId
        self.at = at
        self.entry = entry
    }
}

/// `wellbeing.checkin_edited` v1: the whole check-in as it now is.
public struct WellbeingCheckInEdited: EventPayload {
    public static let eventType = "wellbeing.checkin_edited"
    public static let version = 1
    public static let topic = Topic.wellbeing
    public static let privacy = PayloadPrivacy(
        personal: ["entry": .user("user_id")], notPersonal: ["checkin_id", "user_id", "at"])

    public var checkinId: UUID
    public var userId: UUID
    public var at: Date
    public var entry: WellbeingCheckInEntry?

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case checkinId = "checkin_id"
        case userId = "user_id"
        case at, entry
    }

    public init(checkinId: UUID, userId: UUID, at: Date, entry: WellbeingCheckInEntry) {
        self.checkinId = checkinId
        self.userId = userId
        self.at = at
        self.entry = entry
    }
}

/// `wellbeing.checkin_deleted` v1.
public struct WellbeingCheckInDeleted: EventPayload {
    public static let eventType = "wellbeing.checkin_deleted"
    public static let version = 1
    public static let topic = Topic.wellbeing
    public static let privacy = PayloadPrivacy.nothingPersonal(["checkin_id", "user_id"])

    public var checkinId: UUID
    public var userId: UUID

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case checkinId = "checkin_id"
        case userId = "user_id"
    }

    public init(checkinId: UUID, userId: UUID) {
        self.checkinId = checkinId
        self.userId = userId
    }
}

/// A user's wellbeing settings, the whole set.
public struct WellbeingSettingsValue: Codable, Sendable, Equatable {
    /// Local times `HH:mm`: pushes of the space wait for this window (it may cross midnight).
    public var windowStart: String
    public var windowEnd: String
    public var timeZone: String
    /// Pushes only change the badge count (no alert text); on by default, as the seed asks.
    public var badgeOnly: Bool
    /// Guided audio never starts playing by itself.
    public var noAutoplay: Bool
    /// `WellbeingInterest` raw values: the domains quizzes come from.
    public var interests: [String]
    /// `daily`, `weekdays`, `weekly` or `off`: how often a check-in reminder is pushed.
    public var reminderCadence: String

    public init(
        windowStart: String, windowEnd: String, timeZone: String, badgeOnly: Bool, noAutoplay: Bool, interests: [String], reminderCadence: String
    ) {
        self.windowStart = windowStart
        self.windowEnd = windowEnd
        self.timeZone = timeZone
        self.badgeOnly = badgeOnly
        self.noAutoplay = noAutoplay
        self.interests = interests
        self.reminderCadence = reminderCadence
    }

    enum CodingKeys: String, CodingKey {
        case windowStart = "window_start"
        case windowEnd = "window_end"
        case timeZone = "time_zone"
        case badgeOnly = "badge_only"
        case noAutoplay = "no_autoplay"
        case interests
        case reminderCadence = "reminder_cadence"
    }
}

/// `wellbeing.settings_updated` v1.
public struct WellbeingSettingsUpdated: EventPayload {
    public static let eventType = "wellbeing.settings_updated"
    public static let version = 1
    public static let topic = Topic.wellbeing
    public static let privacy = PayloadPrivacy(personal: ["settings": .user("user_id")], notPersonal: ["user_id"])

    public var userId: UUID
    public var settings: WellbeingSettingsValue?

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case settings
    }

    public init(userId: UUID, settings: WellbeingSettingsValue) {
        self.userId = userId
        self.settings = settings
    }
}

/// `wellbeing.quiz_questions_added` v1: questions were added to a quiz — its first ones when it
/// starts (`POST /quizzes`), more each time the user asks (`POST /quizzes/{id}/next`).
public struct WellbeingQuizQuestionsAdded: EventPayload {
    public static let eventType = "wellbeing.quiz_questions_added"
    public static let version = 1
    public static let topic = Topic.wellbeing
    public static let privacy = PayloadPrivacy(
        personal: ["questions": .user("user_id")], notPersonal: ["quiz_id", "user_id", "domain", "written_by", "at"])

    public var quizId: UUID
    public var userId: UUID
    /// A `WellbeingInterest` raw value.
    public var domain: String
    /// `bank`, or the model as `provider:model`.
    public var writtenBy: String
    /// `[QuizQuestion]` as JSON: each with its choices, answer, lesson and tip.
    public var questions: JSONValue?
    public var at: Date

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case quizId = "quiz_id"
        case userId = "user_id"
        case domain
        case writtenBy = "written_by"
        case questions, at
    }

    public init(quizId: UUID, userId: UUID, domain: String, writtenBy: String, questions: JSONValue, at: Date) {
        self.quizId = quizId
        self.userId = userId
        self.domain = domain
        self.writtenBy = writtenBy
        self.questions = questions
        self.at = at
    }
}

/// `wellbeing.quiz_answered` v1: answers to questions of a quiz, evaluated.
public struct WellbeingQuizAnswered: EventPayload {
    public static let eventType = "wellbeing.quiz_answered"
    public static let version = 1
    public static let topic = Topic.wellbeing
    public static let privacy = PayloadPrivacy(
        personal: ["answers": .user("user_id"), "tips_earned": .user("user_id")], notPersonal: ["quiz_id", "user_id", "score", "total", "at"])

    public var quizId: UUID
    public var userId: UUID
    /// Question id → the chosen choice's index.
    public var answers: [String: Int]?
    /// Right answers among these.
    public var score: Int
    public var total: Int
    public var tipsEarned: [String]?
    public var at: Date

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case quizId = "quiz_id"
        case userId = "user_id"
        case answers, score, total
        case tipsEarned = "tips_earned"
        case at
    }

    public init(quizId: UUID, userId: UUID, answers: [String: Int], score: Int, total: Int, tipsEarned: [String], at: Date) {
        self.quizId = quizId
        self.userId = userId
        self.answers = answers
        self.score = score
        self.total = total
        self.tipsEarned = tipsEarned
        self.at = at
    }
}

/// `wellbeing.tip_published` v1: a tip entered the user's feed (after a check-in, a quiz, or
/// when their interests were set). Which tip was picked follows from what the user wrote (a
/// loneliness tip after a lonely evening), so the tip is sealed like the words it came from.
public struct WellbeingTipPublished: EventPayload {
    public static let eventType = "wellbeing.tip_published"
    public static let version = 1
    public static let topic = Topic.wellbeing
    public static let privacy = PayloadPrivacy(personal: ["tip_id": .user("user_id")], notPersonal: ["feed_id", "user_id", "reason", "at"])

    /// The feed entry: its order, with `at`, in the user's feed.
    public var feedId: UUID
    public var userId: UUID
    /// Null once the user's key is destroyed.
    public var tipId: String?
    /// `checkin`, `quiz` or `interests`.
    public var reason: String
    public var at: Date

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case feedId = "feed_id"
        case userId = "user_id"
        case tipId = "tip_id"
        case reason, at
    }

    public init(feedId: UUID, userId: UUID, tipId: String, reason: String, at: Date) {
        self.feedId = feedId
        self.userId = userId
        self.tipId = tipId
        self.reason = reason
        self.at = at
    }
}

/// `wellbeing.audio_exercise_created` v1: a guided audio script was written for the user. The
/// recording is rendered from the script (espeak-ng) and kept by its hash, not in the event.
public struct WellbeingAudioExerciseCreated: EventPayload {
    public static let eventType = "wellbeing.audio_exercise_created"
    public static let version = 1
    public static let topic = Topic.wellbeing
    public static let privacy = PayloadPrivacy(
        personal: ["script": .user("user_id")],
        notPersonal: ["exercise_id", "user_id", "theme", "title", "script_hash", "duration_sec", "written_by", "at"])

    public var exerciseId: UUID
    public var userId: UUID
    public var theme: String
    public var title: String
    /// `AudioScript` as JSON.
    public var script: JSONValue?
    /// SHA-256 of the script's canonical text: the key of its one recording.
    public var scriptHash: String
    public var durationSec: Double
    /// `template`, or the model as `provider:model`.
    public var writtenBy: String
    public var at: Date

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case exerciseId = "exercise_id"
        case userId = "user_id"
        case theme, title, script
        case scriptHash = "script_hash"
        case durationSec = "duration_sec"
        case writtenBy = "written_by"
        case at
    }

    public init(
        exerciseId: UUID, userId: UUID, theme: String, title: String, script: JSONValue, scriptHash: String, durationSec: Double, writtenBy: String,
        at: Date
    ) {
        self.exerciseId = exerciseId
        self.userId = userId
        self.theme = theme
        self.title = title
        self.script = script
        self.scriptHash = scriptHash
        self.durationSec = durationSec
        self.writtenBy = writtenBy
        self.at = at
    }
}

/// `wellbeing.exercise_completed` v1: the user finished an audio exercise or a practice scenario.
public struct WellbeingExerciseCompleted: EventPayload {
    public static let eventType = "wellbeing.exercise_completed"
    public static let version = 1
    public static let topic = Topic.wellbeing
    public static let privacy = PayloadPrivacy.nothingPersonal(["exercise_id", "user_id", "kind", "at"])

    public var exerciseId: UUID
    public var userId: UUID
    /// `audio` or `scenario`.
    public var kind: String
    public var at: Date

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case exerciseId = "exercise_id"
        case userId = "user_id"
        case kind, at
    }

    public init(exerciseId: UUID, userId: UUID, kind: String, at: Date) {
        self.exerciseId = exerciseId
        self.userId = userId
        self.kind = kind
        self.at = at
    }
}

/// `wellbeing.simulation_started` v1: a practice scenario began.
public struct WellbeingSimulationStarted: EventPayload {
    public static let eventType = "wellbeing.simulation_started"
    public static let version = 1
    public static let topic = Topic.wellbeing
    public static let privacy = PayloadPrivacy(personal: ["scenario_id": .user("user_id")], notPersonal: ["simulation_id", "user_id", "at"])

    public var simulationId: UUID
    public var userId: UUID
    /// An authored scenario of `scenarios.json`, picked by the user's triggers: sealed.
    public var scenarioId: String?
    public var at: Date

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case simulationId = "simulation_id"
        case userId = "user_id"
        case scenarioId = "scenario_id"
        case at
    }

    public init(simulationId: UUID, userId: UUID, scenarioId: String, at: Date) {
        self.simulationId = simulationId
        self.userId = userId
        self.scenarioId = scenarioId
        self.at = at
    }
}

/// `wellbeing.simulation_started` v2: v1 plus the scenario itself when a model wrote it
/// (`scenario`, the tree as JSON, sealed: it was written from the user's triggers) and who wrote
/// it (`authored`, or `provider:model`). An authored scenario is named by `scenario_id` alone.
public struct WellbeingSimulationStartedV2: EventPayload {
    public static let eventType = WellbeingSimulationStarted.eventType
    public static let version = 2
    public static let topic = Topic.wellbeing
    public static let privacy = PayloadPrivacy(
        personal: ["scenario": .user("user_id"), "scenario_id": .user("user_id")], notPersonal: ["simulation_id", "user_id", "written_by", "at"])

    public var simulationId: UUID
    public var userId: UUID
    /// Null once the user's key is destroyed.
    public var scenarioId: String?
    /// `PracticeScenario` as JSON for a model-written tree; null for an authored one (or once the key is destroyed).
    public var scenario: JSONValue?
    public var writtenBy: String
    public var at: Date

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case simulationId = "simulation_id"
        case userId = "user_id"
        case scenarioId = "scenario_id"
        case scenario
        case writtenBy = "written_by"
        case at
    }

    public init(simulationId: UUID, userId: UUID, scenarioId: String, scenario: JSONValue?, writtenBy: String, at: Date) {
        self.simulationId = simulationId
        self.userId = userId
        self.scenarioId = scenarioId
        self.scenario = scenario
        self.writtenBy = writtenBy
        self.at = at
    }

    /// v1 → v2: every v1 scenario was an authored one.
    public static let upcasterFromV1 = Upcaster(eventType: eventType, fromVersion: 1) { payload in
        guard case .object(var fields) = payload else { return payload }
        if fields["scenario"] == nil { fields["scenario"] = .null }
        if fields["written_by"] == nil { fields["written_by"] = .string("authored") }
        return .object(fields)
    }
}

/// `wellbeing.simulation_choice_made` v1: one choice in a practice scenario. The choices a user
/// makes say how they meet an urge: sealed.
public struct WellbeingSimulationChoiceMade: EventPayload {
    public static let eventType = "wellbeing.simulation_choice_made"
    public static let version = 1
    public static let topic = Topic.wellbeing
    public static let privacy = PayloadPrivacy(
        personal: ["choice_id": .user("user_id")], notPersonal: ["simulation_id", "user_id", "step", "finished", "at"])

    public var simulationId: UUID
    public var userId: UUID
    /// 1 for the first choice.
    public var step: Int
    public var choiceId: String?
    public var finished: Bool
    public var at: Date

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case simulationId = "simulation_id"
        case userId = "user_id"
        case step
        case choiceId = "choice_id"
        case finished, at
    }

    public init(simulationId: UUID, userId: UUID, step: Int, choiceId: String, finished: Bool, at: Date) {
        self.simulationId = simulationId
        self.userId = userId
        self.step = step
        self.choiceId = choiceId
        self.finished = finished
        self.at = at
    }
}

/// `wellbeing.badge_earned` v1: a badge rule of `WellbeingProgress` was met, by the event at
/// `earned_at`.
public struct WellbeingBadgeEarned: EventPayload {
    public static let eventType = "wellbeing.badge_earned"
    public static let version = 1
    public static let topic = Topic.wellbeing
    public static let privacy = PayloadPrivacy.nothingPersonal(["user_id", "badge_id", "earned_at"])

    public var userId: UUID
    public var badgeId: String
    public var earnedAt: Date

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case badgeId = "badge_id"
        case earnedAt = "earned_at"
    }

    public init(userId: UUID, badgeId: String, earnedAt: Date) {
        self.userId = userId
        self.badgeId = badgeId
        self.earnedAt = earnedAt
    }
}

/// `wellbeing.reflection_written` v1: the weekly reflection of a (Monday-start, local) week: its
/// figures and the recap written from them.
public struct WellbeingReflectionWritten: EventPayload {
    public static let eventType = "wellbeing.reflection_written"
    public static let version = 1
    public static let topic = Topic.wellbeing
    public static let privacy = PayloadPrivacy(
        personal: ["figures": .user("user_id"), "recap": .user("user_id")], notPersonal: ["user_id", "week", "written_by", "at"])

    public var userId: UUID
    /// `YYYY-MM-DD`, the Monday the week starts.
    public var week: String
    /// `WeeklyFigures` as JSON.
    public var figures: JSONValue?
    public var recap: String?
    /// `template`, or the model as `provider:model`.
    public var writtenBy: String
    public var at: Date

    public var aggregateKey: String { userId.uuidString.lowercased() }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case week, figures, recap
        case writtenBy = "written_by"
        case at
    }

    public init(userId: UUID, week: String, figures: JSONValue, recap: String, writtenBy: String, at: Date) {
        self.userId = userId
        self.week = week
        self.figures = figures
        self.recap = recap
        self.writtenBy = writtenBy
        self.at = at
    }
}

public enum WellbeingEvents {
    /// Every wellbeing payload type, for the catalogue.
    public static let payloadTypes: [any EventPayload.Type] = [
        WellbeingCheckInLogged.self, WellbeingCheckInEdited.self, WellbeingCheckInDeleted.self, WellbeingSettingsUpdated.self,
        WellbeingQuizQuestionsAdded.self, WellbeingQuizAnswered.self, WellbeingTipPublished.self, WellbeingAudioExerciseCreated.self,
        WellbeingExerciseCompleted.self, WellbeingSimulationStarted.self, WellbeingSimulationStartedV2.self, WellbeingSimulationChoiceMade.self, WellbeingBadgeEarned.self,
        WellbeingReflectionWritten.self,
    ]
}
