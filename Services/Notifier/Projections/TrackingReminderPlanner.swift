import Foundation
import HearthDomain
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// The reminders that baby tracking leads to, planned as rows of `reminders` (part of the
/// `reminders` projection, which owns that table; the dispatcher delivers them like any other):
///
/// - an allergen check-in to the caregiver who logged a food with a high-risk allergen, the
///   household's delay after it was tried (`allergen_check_in`, under the check-in's id);
/// - the next feed, predicted from the child's feeds, to each caregiver who turned feed reminders
///   on, their lead time before it (`next_feed`, one per child and caregiver, moved by every feed);
/// - the next dose of a medicine given with an interval, to whoever gave it (`medication_due`),
///   urgent (through quiet hours) when they chose so.
///
/// Every plan is a function of the household's events so far and of their `occurred_at`, never of
/// the clock or of another projection's tables: tracking events are keyed by household, so a
/// rebuild reads a household's logs and settings in the order they happened and plans the same
/// reminders. Edits and deletes apply on top of the version they were
/// made from, as in the gateway's read model, so an edit the gateway refused changes nothing here.
struct TrackingReminderPlanner: Sendable {
    static let tables = [
        "tracking_children", "tracking_feed_times", "tracking_doses", "tracking_food_versions", "tracking_household_settings",
        "tracking_caregivers",
    ]

    /// The sources of the reminders it plans: the dispatcher sends them only to people still in the household.
    static let sources: Set<String> = ["next_feed", "medication_due", "allergen_check_in"]
    static let eventTypes: Set<String> = Set(
        [TrackingLogKind.feed, .medication, .food].flatMap(\.eventTypes) + [
            HouseholdMemberAdded.eventType, AllergenCheckInAnswered.eventType, TrackingSettingsUpdated.eventType,
            CaregiverRemindersSet.eventType,
        ])

    /// Feeds further back than this do not inform the next one.
    static let feedHistory: TimeInterval = 7 * 86_400
    private static let namespace = UUID(uuidString: "0b3f5a8e-7c21-4d6f-a9e4-2f8c1d7b6e53")!

    /// One reminder per child, caregiver and last feed: later feeds plan a new one (and cancel
    /// this), while a re-plan for the same last feed (an older feed arriving late, a lead time
    /// changed) leaves it as it is, so a reminder that went out is never sent again.
    static func nextFeedReminderId(child: UUID, user: UUID, after lastFeed: Date) -> UUID {
        NameBasedUUID.make(
            namespace: namespace,
            name: "next-feed:\(child.uuidString.lowercased()):\(user.uuidString.lowercased()):\(Timestamp.format(lastFeed))")
    }

    static func doseReminderId(log: UUID) -> UUID {
        NameBasedUUID.make(namespace: namespace, name: "medication-due:\(log.uuidString.lowercased())")
    }

    /// Applies one event; false when it is not one of the planner's.
    func apply(_ event: ProjectedEvent, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let at = event.metadata.occurredAt
        switch event.payload {
        case let added as HouseholdMemberAdded:
            guard added.role == "child" else { return true }
            try await connection.query(
                """
                INSERT INTO tracking_children (child_id, household_id, name) VALUES (\(added.memberId), \(added.householdId), \(added.name))
                ON CONFLICT (child_id) DO NOTHING
                """, logger: logger)
        case let log as any TrackingLogEvent:
            switch type(of: log).kind {
            case .feed: try await applyFeed(log, at: at, eventId: event.metadata.id, on: connection, logger: logger)
            case .medication: try await applyDose(log, at: at, eventId: event.metadata.id, on: connection, logger: logger)
            case .food: try await applyFood(log, at: at, eventId: event.metadata.id, on: connection, logger: logger)
            default: break
            }
        case let answer as AllergenCheckInAnswered:
            try await cancel(answer.checkInId, at: at, eventId: event.metadata.id, on: connection, logger: logger)
        case let settings as TrackingSettingsUpdated:
            try await connection.query(
                """
                INSERT INTO tracking_household_settings (household_id, allergen_check_ins, check_in_delay_minutes)
                VALUES (\(settings.householdId), \(settings.allergenCheckIns), \(settings.checkInDelayMinutes))
                ON CONFLICT (household_id) DO UPDATE SET allergen_check_ins = EXCLUDED.allergen_check_ins,
                    check_in_delay_minutes = EXCLUDED.check_in_delay_minutes
                """, logger: logger)
            if !settings.allergenCheckIns {
                // Off means off: the check-ins still waiting are not sent either.
                try await connection.query(
                    """
                    UPDATE reminders SET status = 'cancelled', updated_at = \(at), last_event_id = \(event.metadata.id)
                    WHERE household_id = \(settings.householdId) AND source = 'allergen_check_in' AND status = 'pending'
                    """, logger: logger)
            }
        case let caregiver as CaregiverRemindersSet:
            try await connection.query(
                """
                INSERT INTO tracking_caregivers (user_id, household_id, feed_reminders, feed_lead_minutes, medication_reminders,
                                                 medication_breaks_quiet_hours, time_zone)
                VALUES (\(caregiver.userId), \(caregiver.householdId), \(caregiver.feedReminders), \(caregiver.feedLeadMinutes),
                        \(caregiver.medicationReminders), \(caregiver.medicationBreaksQuietHours), \(caregiver.timeZone))
                ON CONFLICT (user_id, household_id) DO UPDATE SET feed_reminders = EXCLUDED.feed_reminders,
                    feed_lead_minutes = EXCLUDED.feed_lead_minutes, medication_reminders = EXCLUDED.medication_reminders,
                    medication_breaks_quiet_hours = EXCLUDED.medication_breaks_quiet_hours, time_zone = EXCLUDED.time_zone
                """, logger: logger)
            // The doses this caregiver gave: medication reminders turned off (or urgency changed) reach them too.
            let given = try await connection.query(
                "SELECT DISTINCT child_id, medicine FROM tracking_doses WHERE given_by = \(caregiver.userId) ORDER BY child_id, medicine",
                logger: logger)
            var doses: [(UUID, String)] = []
            for try await pair in given.decode((UUID, String).self) { doses.append(pair) }
            for (child, medicine) in doses {
                try await planDoses(child: child, medicine: medicine, at: at, eventId: event.metadata.id, on: connection, logger: logger)
            }
            let children = try await connection.query(
                "SELECT child_id FROM tracking_children WHERE household_id = \(caregiver.householdId) ORDER BY child_id", logger: logger)
            var ids: [UUID] = []
            for try await id in children.decode(UUID.self) { ids.append(id) }
            for child in ids {
                try await planNextFeed(child: child, household: caregiver.householdId, at: at, eventId: event.metadata.id, on: connection, logger: logger)
            }
        default:
            return false
        }
        return true
    }

    /// `user.erased`: the tracking state of the households erased with the user, and the user's
    /// own settings. (Their reminders go with the rest of `reminders`.)
    func erase(_ erased: UserErased, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM tracking_caregivers WHERE user_id = \(erased.userId)", logger: logger)
        guard !erased.householdIds.isEmpty else { return }
        let households = erased.householdIds
        try await connection.query("DELETE FROM tracking_children WHERE household_id = ANY(\(households))", logger: logger)
        try await connection.query("DELETE FROM tracking_feed_times WHERE household_id = ANY(\(households))", logger: logger)
        try await connection.query("DELETE FROM tracking_doses WHERE household_id = ANY(\(households))", logger: logger)
        try await connection.query("DELETE FROM tracking_food_versions WHERE household_id = ANY(\(households))", logger: logger)
        try await connection.query("DELETE FROM tracking_household_settings WHERE household_id = ANY(\(households))", logger: logger)
        try await connection.query("DELETE FROM tracking_caregivers WHERE household_id = ANY(\(households))", logger: logger)
    }

    // MARK: feeds

    private func applyFeed(_ log: any TrackingLogEvent, at: Date, eventId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        switch log.change {
        case .logged(_, _, let time, let detail):
            guard detail != nil else { return }
            try await connection.query(
                """
                INSERT INTO tracking_feed_times (log_id, child_id, household_id, at, version)
                VALUES (\(log.logId), \(log.childId), \(log.householdId), \(time), 1) ON CONFLICT (log_id) DO NOTHING
                """, logger: logger)
        case .edited(_, let time, let detail, let version):
            guard detail != nil else { return }
            try await connection.query(
                """
                UPDATE tracking_feed_times SET at = \(time), version = \(version)
                WHERE log_id = \(log.logId) AND version = \(version - 1)
                """, logger: logger)
        case .deleted(_, let version):
            try await connection.query(
                "DELETE FROM tracking_feed_times WHERE log_id = \(log.logId) AND version = \(version - 1)", logger: logger)
        }
        try await planNextFeed(child: log.childId, household: log.householdId, at: at, eventId: eventId, on: connection, logger: logger)
    }

    /// For each caregiver of the household with feed reminders on: the next feed predicted from
    /// the child's recent feeds, less their lead time. No prediction, or one already past when the
    /// event happened, cancels the reminder.
    private func planNextFeed(
        child: UUID, household: UUID, at now: Date, eventId: UUID, on connection: PostgresConnection, logger: Logger
    ) async throws {
        let feedRows = try await connection.query(
            """
            SELECT at FROM tracking_feed_times
            WHERE child_id = \(child) AND at > (SELECT max(at) FROM tracking_feed_times WHERE child_id = \(child)) - \(Self.feedHistory) * interval '1 second'
            ORDER BY at
            """, logger: logger)
        var feeds: [Date] = []
        for try await time in feedRows.decode(Date.self) { feeds.append(time) }
        let caregivers = try await connection.query(
            """
            SELECT c.user_id, c.feed_reminders, c.feed_lead_minutes, c.time_zone, coalesce(k.name, '')
            FROM tracking_caregivers c LEFT JOIN tracking_children k ON k.child_id = \(child)
            WHERE c.household_id = \(household) ORDER BY c.user_id
            """, logger: logger)
        var plans: [(UUID, Bool, Int, TimeZone, String)] = []
        for try await (user, on, lead, zone, name) in caregivers.decode((UUID, Bool, Int, String?, String).self) {
            plans.append((user, on, lead, DeliveryTiming.zone(setting: zone, profile: nil), name))
        }
        for (user, on, lead, zone, name) in plans {
            let prediction = on ? NextFeedPredictor.predict(feeds: feeds, timeZone: zone, now: now) : nil
            let dueAt = prediction.map { $0.predictedAt.addingTimeInterval(-TimeInterval(lead * 60)) }
            let id = prediction.map { Self.nextFeedReminderId(child: child, user: user, after: $0.lastFeedAt) }
            // Whatever was planned for an earlier last feed is moot now.
            try await connection.query(
                """
                UPDATE reminders SET status = 'cancelled', updated_at = \(now), last_event_id = \(eventId)
                WHERE source = 'next_feed' AND member_id = \(child) AND user_id = \(user) AND status = 'pending'
                  AND reminder_id IS DISTINCT FROM \(id)
                """, logger: logger)
            // No prediction, or one whose reminder time has passed when the event happened: nothing to send.
            guard let prediction, let dueAt, let id, dueAt > now else {
                if let id { try await cancel(id, at: now, eventId: eventId, on: connection, logger: logger) }
                continue
            }
            let who = name.isEmpty ? "Your baby" : name
            try await insertOnce(
                id, user: user, household: household, child: child, title: "\(who)'s next feed",
                body: "Due around \(Self.clock(prediction.predictedAt, in: zone)): \(prediction.explanation).",
                dueAt: dueAt, urgent: false, source: "next_feed", at: now, eventId: eventId, on: connection, logger: logger)
        }
    }

    // MARK: medication

    private func applyDose(_ log: any TrackingLogEvent, at: Date, eventId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        var medicines: [String] = []
        let old = try await connection.query("SELECT medicine FROM tracking_doses WHERE log_id = \(log.logId)", logger: logger)
        for try await name in old.decode(String.self) { medicines.append(name) }
        switch log.change {
        case .logged(let by, _, let time, let detail):
            guard let dose = detail as? MedicationDetail else { return }
            let medicine = Self.medicineKey(dose.name)
            try await connection.query(
                """
                INSERT INTO tracking_doses (log_id, child_id, household_id, medicine, at, interval_hours, given_by, version)
                VALUES (\(log.logId), \(log.childId), \(log.householdId), \(medicine), \(time), \(dose.intervalHours), \(by), 1)
                ON CONFLICT (log_id) DO NOTHING
                """, logger: logger)
            medicines.append(medicine)
        case .edited(_, let time, let detail, let version):
            guard let dose = detail as? MedicationDetail else { return }
            let medicine = Self.medicineKey(dose.name)
            try await connection.query(
                """
                UPDATE tracking_doses SET medicine = \(medicine), at = \(time), interval_hours = \(dose.intervalHours), version = \(version)
                WHERE log_id = \(log.logId) AND version = \(version - 1)
                """, logger: logger)
            medicines.append(medicine)
        case .deleted(_, let version):
            let deleted = try await connection.query(
                "DELETE FROM tracking_doses WHERE log_id = \(log.logId) AND version = \(version - 1) RETURNING log_id", logger: logger)
            for try await id in deleted.decode(UUID.self) {
                try await cancel(Self.doseReminderId(log: id), at: at, eventId: eventId, on: connection, logger: logger)
            }
        }
        for medicine in Set(medicines).sorted() {
            try await planDoses(child: log.childId, medicine: medicine, at: at, eventId: eventId, on: connection, logger: logger)
        }
    }

    /// The latest dose of the medicine plans the next one (if it has an interval, the caregiver
    /// wants medication reminders, and it is not already past); every earlier dose's reminder is
    /// cancelled.
    private func planDoses(child: UUID, medicine: String, at now: Date, eventId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.query(
            """
            SELECT d.log_id, d.household_id, d.at, d.interval_hours, d.given_by,
                   -- on unless the caregiver turned them off for this household (leaving it turns them off)
                   coalesce(c.medication_reminders, true),
                   coalesce(c.medication_breaks_quiet_hours, false), c.time_zone, coalesce(k.name, '')
            FROM tracking_doses d
            LEFT JOIN tracking_caregivers c ON c.user_id = d.given_by AND c.household_id = d.household_id
            LEFT JOIN tracking_children k ON k.child_id = d.child_id
            WHERE d.child_id = \(child) AND d.medicine = \(medicine) ORDER BY d.at, d.log_id
            """, logger: logger)
        var doses: [(UUID, UUID, Date, Double?, UUID, Bool, Bool, TimeZone, String)] = []
        for try await row in rows.decode((UUID, UUID, Date, Double?, UUID, Bool, Bool, String?, String).self) {
            doses.append((row.0, row.1, row.2, row.3, row.4, row.5, row.6, DeliveryTiming.zone(setting: row.7, profile: nil), row.8))
        }
        for (index, dose) in doses.enumerated() {
            let id = Self.doseReminderId(log: dose.0)
            let due = dose.3.map { dose.2.addingTimeInterval($0 * 3600) }
            guard index == doses.count - 1, let due, dose.5, due > now else {
                try await cancel(id, at: now, eventId: eventId, on: connection, logger: logger)
                continue
            }
            let who = dose.8.isEmpty ? "your child" : dose.8
            try await upsert(
                id, user: dose.4, household: dose.1, child: child, title: "Next dose for \(who) is due",
                body: "The last dose was given at \(Self.clock(dose.2, in: dose.7)); the next is due every \(Self.hours(dose.3 ?? 0)).",
                dueAt: due, urgent: dose.6, source: "medication_due", at: now, eventId: eventId, on: connection, logger: logger)
        }
    }

    static func medicineKey(_ name: String) -> String {
        name.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    // MARK: foods

    private func applyFood(_ log: any TrackingLogEvent, at: Date, eventId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        let checkIn = AllergenCheckIn.id(forFoodLog: log.logId)
        switch log.change {
        case .logged(let by, _, let time, let detail):
            guard let food = detail as? FoodDetail else { return }
            let inserted = try await connection.query(
                """
                INSERT INTO tracking_food_versions (log_id, household_id, version) VALUES (\(log.logId), \(log.householdId), 1)
                ON CONFLICT (log_id) DO NOTHING RETURNING log_id
                """,
                logger: logger)
            var isNew = false
            for try await _ in inserted { isNew = true }
            let watched = AllergenCheckIn.watched(in: food)
            guard isNew, !watched.isEmpty, food.unmarkedAt == nil, at.timeIntervalSince(time) < AllergenCheckIn.horizon else { return }
            let settings = try await connection.query(
                "SELECT allergen_check_ins, check_in_delay_minutes FROM tracking_household_settings WHERE household_id = \(log.householdId)",
                logger: logger)
            var on = true
            var delay = AllergenCheckIn.defaultDelayMinutes
            for try await (enabled, minutes) in settings.decode((Bool, Int).self) { (on, delay) = (enabled, minutes) }
            guard on else { return }
            let names = try await connection.query("SELECT name FROM tracking_children WHERE child_id = \(log.childId)", logger: logger)
            var name = "your child"
            for try await found in names.decode(String.self) { name = found }
            let allergens = watched.map { CanonicalAllergen($0).displayName }.joined(separator: ", ")
            try await upsert(
                checkIn, user: by, household: log.householdId, child: log.childId, title: "How is \(name) after \(food.food)?",
                body: "\(food.food) has \(allergens). All fine, or was there a reaction? Answer in the app.",
                dueAt: max(time.addingTimeInterval(TimeInterval(delay * 60)), at), urgent: false, source: "allergen_check_in", at: at,
                eventId: eventId, on: connection, logger: logger)
        case .edited(_, _, let detail, let version):
            let edited = try await connection.query(
                "UPDATE tracking_food_versions SET version = \(version) WHERE log_id = \(log.logId) AND version = \(version - 1) RETURNING log_id",
                logger: logger)
            var applied = false
            for try await _ in edited { applied = true }
            // The check-in follows the food: none left to ask about (or un-marked), none sent.
            if applied, let food = detail as? FoodDetail, AllergenCheckIn.watched(in: food).isEmpty || food.unmarkedAt != nil {
                try await cancel(checkIn, at: at, eventId: eventId, on: connection, logger: logger)
            }
        case .deleted(_, let version):
            let deleted = try await connection.query(
                "DELETE FROM tracking_food_versions WHERE log_id = \(log.logId) AND version = \(version - 1) RETURNING log_id", logger: logger)
            for try await _ in deleted { try await cancel(checkIn, at: at, eventId: eventId, on: connection, logger: logger) }
        }
    }

    // MARK: reminders rows

    private func upsert(
        _ id: UUID, user: UUID, household: UUID, child: UUID, title: String, body: String, dueAt: Date, urgent: Bool, source: String, at: Date,
        eventId: UUID, on connection: PostgresConnection, logger: Logger
    ) async throws {
        let due = Timestamp.rounded(dueAt)
        try await connection.query(
            """
            INSERT INTO reminders (reminder_id, user_id, household_id, member_id, title, body, due_at, urgent, channels, source, status,
                                   updated_at, last_event_id)
            VALUES (\(id), \(user), \(household), \(child), \(title), \(body), \(due), \(urgent), NULL, \(source), 'pending', \(at), \(eventId))
            ON CONFLICT (reminder_id) DO UPDATE SET
                title = EXCLUDED.title, body = EXCLUDED.body, due_at = EXCLUDED.due_at, urgent = EXCLUDED.urgent, status = 'pending',
                updated_at = EXCLUDED.updated_at, last_event_id = EXCLUDED.last_event_id
            WHERE reminders.user_id = EXCLUDED.user_id
              AND (reminders.due_at, reminders.title, reminders.body, reminders.urgent, reminders.status)
                  IS DISTINCT FROM (EXCLUDED.due_at, EXCLUDED.title, EXCLUDED.body, EXCLUDED.urgent, 'pending')
            """, logger: logger)
    }

    /// A reminder planned once and then left as it is (a pending one is not moved); a cancelled one
    /// comes back.
    private func insertOnce(
        _ id: UUID, user: UUID, household: UUID, child: UUID, title: String, body: String, dueAt: Date, urgent: Bool, source: String, at: Date,
        eventId: UUID, on connection: PostgresConnection, logger: Logger
    ) async throws {
        try await connection.query(
            """
            INSERT INTO reminders (reminder_id, user_id, household_id, member_id, title, body, due_at, urgent, channels, source, status,
                                   updated_at, last_event_id)
            VALUES (\(id), \(user), \(household), \(child), \(title), \(body), \(Timestamp.rounded(dueAt)), \(urgent), NULL, \(source), 'pending',
                    \(at), \(eventId))
            ON CONFLICT (reminder_id) DO UPDATE SET status = 'pending', updated_at = EXCLUDED.updated_at, last_event_id = EXCLUDED.last_event_id
            WHERE reminders.user_id = EXCLUDED.user_id AND reminders.status = 'cancelled'
            """, logger: logger)
    }

    private func cancel(_ id: UUID, at: Date, eventId: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            UPDATE reminders SET status = 'cancelled', updated_at = \(at), last_event_id = \(eventId)
            WHERE reminder_id = \(id) AND status = 'pending'
            """, logger: logger)
    }

    static func clock(_ date: Date, in zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    static func hours(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) h" : "\(value) h"
    }
}
