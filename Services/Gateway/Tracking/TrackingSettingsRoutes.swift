import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime
import HearthStore
import Hummingbird

/// The child's tracking profile (`PUT /v1/children/{id}/profile`), the allergen check-ins
/// (`GET /v1/children/{id}/check-ins`, `POST …/check-ins/{check_in_id}`), the household's
/// tracking settings (`/v1/tracking/settings`) and the caller's own tracking reminders
/// (`/v1/tracking/reminders`).
struct TrackingSettingsRoutes: Sendable {
    let publisher: EventPublisher
    let readModel: TrackingReadModel
    let access: ChildAccess
    let membership: MembershipReadModel
    let consistency: ReadConsistency

    static let feedLeadChoices = [15, 30, 45, 60, 120]

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.put("children/{id}/profile") { request, context in try await setProfile(request, context: context) }
        routes.get("children/{id}/check-ins") { request, context in try await checkIns(request, context: context) }
        routes.post("children/{id}/check-ins/{check_in_id}") { request, context in try await answer(request, context: context) }
        routes.get("tracking/settings") { request, context in try await settings(request, context: context) }
        routes.put("tracking/settings") { request, context in try await updateSettings(request, context: context) }
        routes.get("tracking/reminders") { request, context in try await reminders(request, context: context) }
        routes.put("tracking/reminders") { request, context in try await updateReminders(request, context: context) }
    }

    struct ProfileBody: Decodable { var sex: String }

    func setProfile(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let (user, child) = try await access.child(request, context: context)
        let body = try await JSONRequestBody.decode(ProfileBody.self, from: request, context: context)
        guard let sex = GrowthSex(rawValue: body.sex.lowercased()) else { throw APIError.invalid("sex", "sex must be female or male") }
        let position = try await publisher.publish(
            ChildProfileSet(childId: child.childId, householdId: child.householdId, sex: sex.rawValue, setBy: user), correlationId: context.correlationId)
        try await consistency.awaitApplied(position, projections: [TrackingLogRoutes.projection])
        return TrackingJSON(value: .object([
            "child_id": .string(child.childId.uuidString.lowercased()), "sex": .string(sex.rawValue), "position": .string(position.description),
        ]))
    }

    func checkIns(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let (_, child) = try await access.child(request, context: context)
        let checkIns = try await readModel.checkIns(of: child.childId).map(Self.json)
        return TrackingJSON(value: .object(["check_ins": .array(checkIns)]))
    }

    struct AnswerBody: Decodable {
        var outcome: String
        var severity: String?
        var symptoms: [String]?
    }

    /// `{"outcome": "fine"}` or `{"outcome": "reaction", "severity": "mild", "symptoms": [...]}`:
    /// the action of the check-in notification. Answered once; a second answer is 409.
    func answer(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let (user, child) = try await access.child(request, context: context)
        guard let id = context.parameters.get("check_in_id").flatMap(UUID.init(uuidString:)) else {
            throw APIError.invalid("check_in_id", "check_in_id must be a UUID")
        }
        guard let checkIn = try await readModel.checkIns(of: child.childId).first(where: { $0.checkInId == id }) else {
            throw APIError.notFound("check-in")
        }
        let body = try await JSONRequestBody.decode(AnswerBody.self, from: request, context: context)
        guard body.outcome == "fine" || body.outcome == "reaction" else { throw APIError.invalid("outcome", "outcome must be fine or reaction") }
        var severity: String?
        if body.outcome == "reaction" {
            severity = body.severity?.lowercased() ?? "mild"
            guard let given = severity, ["mild", "moderate", "severe"].contains(given) else {
                throw APIError.invalid("severity", "severity must be mild, moderate or severe")
            }
        }
        let symptoms = (body.symptoms ?? []).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        guard symptoms.count <= 20, symptoms.allSatisfy({ $0.count <= 100 }) else {
            throw APIError.invalid("symptoms", "symptoms holds at most 20 items of at most 100 characters")
        }
        guard checkIn.outcome == nil else {
            throw APIError(.conflict, code: "already_answered", message: "the check-in was answered \(checkIn.outcome ?? "") already")
        }
        let position = try await publisher.publish(
            AllergenCheckInAnswered(
                checkInId: id, foodLogId: checkIn.foodLogId, childId: child.childId, householdId: child.householdId, answeredBy: user,
                outcome: body.outcome, allergens: checkIn.allergens, severity: severity, symptoms: symptoms),
            correlationId: context.correlationId)
        try await consistency.awaitApplied(position, projections: [TrackingLogRoutes.projection])
        guard let stored = try await readModel.checkIns(of: child.childId).first(where: { $0.checkInId == id }), stored.answeredBy == user,
              stored.outcome == body.outcome
        else {
            throw APIError(.conflict, code: "already_answered", message: "someone else answered the check-in first")
        }
        return TrackingJSON(value: Self.json(stored))
    }

    static func json(_ checkIn: TrackingReadModel.CheckIn) -> JSONValue {
        .object([
            "check_in_id": .string(checkIn.checkInId.uuidString.lowercased()), "food_log_id": .string(checkIn.foodLogId.uuidString.lowercased()),
            "allergens": .array(checkIn.allergens.map(JSONValue.string)), "logged_at": .string(Timestamp.format(checkIn.loggedAt)),
            "outcome": checkIn.outcome.map(JSONValue.string) ?? .null, "severity": checkIn.severity.map(JSONValue.string) ?? .null,
            "answered_by": checkIn.answeredBy.map { .string($0.uuidString.lowercased()) } ?? .null,
            "answered_at": checkIn.answeredAt.map { .string(Timestamp.format($0)) } ?? .null,
        ])
    }

    private func household(_ request: Request, _ context: HearthRequestContext) async throws -> (UUID, UUID) {
        let user = try context.authenticatedUser()
        guard let household = try await membership.household(of: user, for: request) else {
            throw APIError(.conflict, code: "no_household", message: "create or join a household first")
        }
        return (user, household)
    }

    func settings(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let (_, household) = try await household(request, context)
        return TrackingJSON(value: Self.json(try await readModel.settings(of: household)))
    }

    struct SettingsBody: Decodable {
        var allergenCheckIns: Bool?
        var checkInDelayMinutes: Int?

        enum CodingKeys: String, CodingKey {
            case allergenCheckIns = "allergen_check_ins"
            case checkInDelayMinutes = "check_in_delay_minutes"
        }
    }

    /// Fields left out keep their value.
    func updateSettings(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let (user, household) = try await household(request, context)
        let body = try await JSONRequestBody.decode(SettingsBody.self, from: request, context: context)
        var settings = try await readModel.settings(of: household)
        if let on = body.allergenCheckIns { settings.allergenCheckIns = on }
        if let delay = body.checkInDelayMinutes {
            guard AllergenCheckIn.delayRange.contains(delay) else {
                throw APIError.invalid("check_in_delay_minutes", "check_in_delay_minutes must be 60 to 240 (1 to 4 hours)")
            }
            settings.checkInDelayMinutes = delay
        }
        let position = try await publisher.publish(
            TrackingSettingsUpdated(
                householdId: household, updatedBy: user, allergenCheckIns: settings.allergenCheckIns, checkInDelayMinutes: settings.checkInDelayMinutes),
            correlationId: context.correlationId)
        try await consistency.awaitApplied(position, projections: [TrackingLogRoutes.projection])
        return TrackingJSON(value: Self.json(settings))
    }

    static func json(_ settings: TrackingSettingsRecord) -> JSONValue {
        .object([
            "allergen_check_ins": .bool(settings.allergenCheckIns),
            "check_in_delay_minutes": .number(Double(settings.checkInDelayMinutes)),
        ])
    }

    func reminders(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let (user, household) = try await household(request, context)
        return TrackingJSON(value: Self.json(try await readModel.caregiverReminders(of: user, in: household)))
    }

    struct RemindersBody: Decodable {
        var feedReminders: Bool?
        var feedLeadMinutes: Int?
        var medicationReminders: Bool?
        var medicationBreaksQuietHours: Bool?

        enum CodingKeys: String, CodingKey {
            case feedReminders = "feed_reminders"
            case feedLeadMinutes = "feed_lead_minutes"
            case medicationReminders = "medication_reminders"
            case medicationBreaksQuietHours = "medication_breaks_quiet_hours"
        }
    }

    func updateReminders(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let (user, household) = try await household(request, context)
        let body = try await JSONRequestBody.decode(RemindersBody.self, from: request, context: context)
        var reminders = try await readModel.caregiverReminders(of: user, in: household)
        if let on = body.feedReminders { reminders.feedReminders = on }
        if let lead = body.feedLeadMinutes {
            guard Self.feedLeadChoices.contains(lead) else {
                throw APIError.invalid("feed_lead_minutes", "feed_lead_minutes must be one of \(Self.feedLeadChoices.map(String.init).joined(separator: ", "))")
            }
            reminders.feedLeadMinutes = lead
        }
        if let on = body.medicationReminders { reminders.medicationReminders = on }
        if let on = body.medicationBreaksQuietHours { reminders.medicationBreaksQuietHours = on }
        let position = try await publisher.publish(
            CaregiverRemindersSet(
                userId: user, householdId: household, feedReminders: reminders.feedReminders, feedLeadMinutes: reminders.feedLeadMinutes,
                medicationReminders: reminders.medicationReminders, medicationBreaksQuietHours: reminders.medicationBreaksQuietHours,
                timeZone: try await access.timeZone(of: user).identifier),
            correlationId: context.correlationId)
        try await consistency.awaitApplied(position, projections: [TrackingLogRoutes.projection])
        return TrackingJSON(value: Self.json(reminders))
    }

    static func json(_ reminders: CaregiverRemindersRecord) -> JSONValue {
        .object([
            "feed_reminders": .bool(reminders.feedReminders), "feed_lead_minutes": .number(Double(reminders.feedLeadMinutes)),
            "medication_reminders": .bool(reminders.medicationReminders),
            "medication_breaks_quiet_hours": .bool(reminders.medicationBreaksQuietHours),
        ])
    }
}
