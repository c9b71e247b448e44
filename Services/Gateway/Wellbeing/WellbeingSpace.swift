import Foundation
import HearthAssist
import HearthDomain
import HearthEvents
import HearthRuntime
import HearthStore
import Hummingbird

/// What every wellbeing route shares: the content (quiz bank, tips, scenarios, audio scripts),
/// the read model, publishing and the steps that follow an activity (badges, tips).
struct WellbeingSpace: Sendable {
    static let projection = "wellbeing"

    let publisher: EventPublisher
    let readModel: WellbeingReadModel
    let consistency: ReadConsistency
    let users: UserReadModel
    let bank: QuizBank
    let tips: TipCatalogue
    let scenarios: ScenarioLibrary
    let audio: AudioScriptLibrary
    let safety: SafetyPolicy
    let similarity: TipSimilarity

    /// The caller: any signed-in user has a space of their own.
    func user(_ context: HearthRequestContext) throws -> UUID {
        try context.authenticatedUser()
    }

    /// Publishes and waits until the wellbeing tables hold it, so the caller's next read sees it.
    @discardableResult
    func publish<P: EventPayload>(_ payload: P, context: HearthRequestContext) async throws -> EventPosition {
        let position = try await publisher.publish(payload, correlationId: context.correlationId)
        try await consistency.awaitApplied(position, projections: [Self.projection])
        return position
    }

    /// The user's settings, or the defaults: 08:00–21:00 in their profile's zone, badge-only pushes,
    /// no autoplay, no interests yet, and no check-in nudges until the user chooses a cadence.
    func settings(of user: UUID) async throws -> WellbeingSettingsValue {
        if let stored = try await readModel.settings(of: user) { return stored }
        let zone = try await users.find(user)?.timeZone.flatMap(TimeZone.init(identifier:))?.identifier ?? "UTC"
        return WellbeingSettingsValue(
            windowStart: DeliveryWindow.defaultStart, windowEnd: DeliveryWindow.defaultEnd, timeZone: zone, badgeOnly: true, noAutoplay: true,
            interests: [], reminderCadence: WellbeingReminderCadence.off.rawValue)
    }

    func zone(of settings: WellbeingSettingsValue) -> TimeZone {
        TimeZone(identifier: settings.timeZone) ?? TimeZone(identifier: "UTC")!
    }

    /// Whether the user's own words say they are in danger (`WellbeingCrisisCheck`).
    func isCrisis(_ texts: [String?]) -> Bool {
        WellbeingCrisisCheck(policy: safety).isCrisis(texts)
    }

    /// The crisis answer: the policy's own words, and where to turn.
    var crisisAnswer: JSONValue {
        .object([
            "message": .string(WellbeingCrisisCheck(policy: safety).message),
            "resources": .array([
                .object(["region": .string("US"), "name": .string("988 Suicide & Crisis Lifeline"), "contact": .string("call or text 988")]),
                .object(["region": .string("UK & Ireland"), "name": .string("Samaritans"), "contact": .string("call 116 123")]),
                .object(["region": .string("Anywhere"), "name": .string("Emergency services"), "contact": .string("your local emergency number")]),
            ]),
        ])
    }

    /// Announces every badge the user's activity now earns and had not been announced, and
    /// returns them. Badges are rules over the events (`WellbeingProgress`); the announcement is
    /// what the live connection and the dashboard's history show.
    func announceBadges(of user: UUID, settings: WellbeingSettingsValue, context: HearthRequestContext) async throws -> [WellbeingProgress.Badge] {
        let activity = try await readModel.activity(of: user)
        let progress = WellbeingProgress(
            checkIns: activity.checkIns, quizzes: activity.quizzes, exercises: activity.exercises, timeZone: zone(of: settings), now: Date())
        let announced = try await readModel.announcedBadges(of: user)
        let new = progress.badges.filter { !announced.contains($0.id) }
        for badge in new {
            try await publish(WellbeingBadgeEarned(userId: user, badgeId: badge.id, earnedAt: badge.earnedAt), context: context)
        }
        return new
    }

    /// Puts the best tips the user has not had into their feed: ranked by the triggers of their
    /// last 30 days of check-ins, their interests, how close each tip is in meaning to those
    /// (`TipSimilarity`, the search embeddings), and what the feed already holds.
    func publishTips(
        to user: UUID, count: Int, reason: String, extraTriggers: [WellbeingTrigger] = [], settings: WellbeingSettingsValue, seen known: Set<String>? = nil,
        context: HearthRequestContext
    ) async throws -> [WellbeingTip] {
        let seen: Set<String>
        if let known { seen = known } else { seen = try await readModel.tipsInFeed(of: user) }
        var counts = try await readModel.triggerCounts(of: user, days: 30)
        // What the user just said weighs most.
        for trigger in extraTriggers { counts[trigger, default: 0] += 3 }
        let interests = Set(settings.interests.compactMap(WellbeingInterest.init(rawValue:)))
        let closeness = await similarity.scores(triggers: WellbeingTrigger.strongest(in: counts), interests: interests.sorted { $0.rawValue < $1.rawValue })
        let ranked = TipRanking.rank(tips.tips, triggerCounts: counts, interests: interests, seen: seen, similarity: closeness)
            .filter { !seen.contains($0.id) }
        let chosen = Array(ranked.prefix(count))
        try await publish(tipIds: chosen.map(\.id), to: user, reason: reason, context: context)
        return chosen
    }

    func publish(tipIds: [String], to user: UUID, reason: String, context: HearthRequestContext) async throws {
        let now = Date()
        for (index, tipId) in tipIds.enumerated() {
            // Later entries a millisecond apart, so the feed keeps the order they were chosen in.
            // Each waits until the feed holds it: the answer that names a tip is followed by reads
            // that must find it.
            try await publish(
                WellbeingTipPublished(feedId: UUID(), userId: user, tipId: tipId, reason: reason, at: now.addingTimeInterval(-Double(index) / 1000)),
                context: context)
        }
    }

    func tipJSON(_ tip: WellbeingTip) -> JSONValue {
        .object([
            "tip_id": .string(tip.id), "title": .string(tip.title), "body": .string(tip.body),
            "triggers": .array(tip.triggers.map { .string($0.rawValue) }), "domains": .array(tip.domains.map { .string($0.rawValue) }),
        ])
    }

    func badgeJSON(_ badge: WellbeingProgress.Badge) -> JSONValue {
        .object(["badge_id": .string(badge.id), "title": .string(badge.title), "earned_at": .string(Timestamp.format(badge.earnedAt))])
    }

}
