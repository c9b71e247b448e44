import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime

/// What a log's answer adds beyond storing it, and the checks that need the child's history:
/// overlapping sleeps are refused, a food's allergens are resolved (and a reacted one warned of),
/// growth gets its WHO percentiles, a dose given early is warned of, and a feed, diaper or dose
/// logged close to another is answered with it as a possible duplicate.
struct TrackingLogEnrichment: Sendable {
    let readModel: TrackingReadModel
    let matcher: AllergenMatcher
    let growth: GrowthStandards
    let catalogue: FoodCatalogue

    /// Two logs of one kind this close are likely the same thing logged by two caregivers.
    static let duplicateWindow: TimeInterval = 10 * 60

    struct Checked: Sendable {
        var detail: any TrackingLogDetail
        var warnings: [TrackingWarning] = []
        var extra: [String: JSONValue] = [:]
    }

    /// Refused with the other log in the answer.
    struct Conflict: Error {
        let answer: TrackingJSON
    }

    func check(
        _ input: TrackingLogInput, kind: TrackingLogKind, child: TrackedChild, logId: UUID, editing: StoredLog?, context: HearthRequestContext
    ) async throws -> Checked {
        var checked = Checked(detail: input.detail)
        switch input.detail {
        case is SleepDetail:
            if let conflict = try await overlap(input, child: child, logId: logId, context: context) { throw Conflict(answer: conflict) }
        case var food as FoodDetail:
            // A food the catalogue knows brings its allergens and its colour (unless one was given).
            let known = catalogue.food(named: food.food)
            food.allergens = resolvedAllergens(food: food.food, declared: food.allergens + (known?.allergens ?? []))
            if food.colour == nil { food.colour = known?.colour }
            checked.detail = food
            if let known, let age = child.ageDays(at: input.at), age < Int(Double(known.fromMonths) * 30.4375) {
                checked.warnings.append(TrackingWarning(
                    code: "too_young_for_food", message: "\(known.name) is for children from \(known.fromMonths) months: \(known.servingTip)", field: "food"))
            }
            checked.warnings += try await reactedAllergens(in: Set(food.allergens), child: child, field: "food")
            let watched = AllergenCheckIn.watched(in: food)
            if editing == nil, !watched.isEmpty {
                let settings = try await readModel.settings(of: child.householdId)
                if settings.allergenCheckIns, Date().timeIntervalSince(input.at) < AllergenCheckIn.horizon {
                    let due = max(input.at.addingTimeInterval(TimeInterval(settings.checkInDelayMinutes * 60)), Date())
                    checked.extra["check_in"] = .object([
                        "check_in_id": .string(AllergenCheckIn.id(forFoodLog: logId).uuidString.lowercased()),
                        "allergens": .array(watched.map(JSONValue.string)),
                        "due_at": .string(Timestamp.format(due)),
                    ])
                }
            }
        case let feed as FeedDetail where feed.method == "solids":
            // Solids name foods too: a food the child reacted to is warned of here as well.
            let allergens = Set((feed.foods ?? []).flatMap { name in
                resolvedAllergens(food: name, declared: catalogue.food(named: name)?.allergens ?? [])
            })
            checked.warnings += try await reactedAllergens(in: allergens, child: child, field: "foods")
        case let growthLog as GrowthDetail:
            checked.extra["percentiles"] = percentiles(growthLog, child: child, at: input.at, warnings: &checked.warnings)
            if let weight = growthLog.weightKg,
               let previous = try await readModel.latest(child: child.childId, kind: .growth, before: input.at.addingTimeInterval(1), excluding: logId),
               case .number(let before)? = previous.detail["weight_kg"]
            {
                let days = max(1, input.at.timeIntervalSince(previous.at) / 86_400)
                let perDay = abs(weight - before) / days
                if perDay > max(0.15, before * 0.05) {
                    checked.warnings.append(TrackingWarning(
                        code: "implausible_weight_change",
                        message: "\(before) kg to \(weight) kg in \(Int(days.rounded())) day(s) is more than an infant's weight changes: check the scale and unit",
                        field: "weight"))
                }
            }
        case let dose as MedicationDetail:
            if let previous = try await previousDose(of: dose.name, child: child, before: input.at, excluding: logId),
               case .number(let hours)? = previous.detail["interval_hours"]
            {
                let due = previous.at.addingTimeInterval(hours * 3600)
                if input.at < due.addingTimeInterval(-15 * 60) {
                    let early = Int((due.timeIntervalSince(input.at) / 60).rounded())
                    checked.warnings.append(TrackingWarning(
                        code: "dose_too_early",
                        message: "\(dose.name) was given \(early) min before the next dose was due (\(Timestamp.format(due)))", field: "at"))
                }
            }
            if let hours = dose.intervalHours {
                checked.extra["next_dose_due_at"] = .string(Timestamp.format(input.at.addingTimeInterval(hours * 3600)))
            }
        default:
            break
        }
        if [.feed, .diaper, .medication].contains(kind) {
            let near = try await readModel.near(child: child.childId, kind: kind, at: input.at, window: Self.duplicateWindow, excluding: logId)
            checked.extra["possible_duplicates"] = .array(near.map(\.json))
        }
        return checked
    }

    /// The 409 for a sleep overlapping another of the child's, naming the other; nil when it does not.
    func overlap(_ input: TrackingLogInput, child: TrackedChild, logId: UUID, context: HearthRequestContext) async throws -> TrackingJSON? {
        guard let sleep = input.detail as? SleepDetail,
              let other = try await readModel.overlappingSleep(child: child.childId, start: input.at, end: sleep.endedAt, excluding: logId)
        else { return nil }
        return TrackingJSON.conflict(
            code: "overlapping_sleep",
            message: "the sleep overlaps sleep \(other.logId.uuidString.lowercased()) from \(Timestamp.format(other.at))"
                + (other.endedAt.map { " to \(Timestamp.format($0))" } ?? " (still going on)"),
            field: "at", current: other, requestId: context.requestId)
    }

    /// A warning for each of `allergens` the child has reacted to.
    private func reactedAllergens(in allergens: Set<String>, child: TrackedChild, field: String) async throws -> [TrackingWarning] {
        try await readModel.allergens(of: child.childId).compactMap { status in
            guard let reactedAt = status.reactedAt, allergens.contains(status.allergen) else { return nil }
            return TrackingWarning(
                code: "reacted_allergen",
                message: "\(child.name) reacted to \(CanonicalAllergen(status.allergen).displayName) on \(Timestamp.format(reactedAt)): watch closely or ask your doctor",
                field: field)
        }
    }

    /// The food's allergens by its name, and those the caregiver named, in canonical form.
    func resolvedAllergens(food: String, declared: [String]) -> [String] {
        var found = Set(matcher.allergensSuggested(byIngredientName: food).map(\.rawValue))
        if !declared.isEmpty { found.formUnion(matcher.vocabulary.resolve(declared).allergens.map(\.rawValue)) }
        return found.sorted()
    }

    private func previousDose(of name: String, child: TrackedChild, before at: Date, excluding: UUID) async throws -> StoredLog? {
        let recent = try await readModel.logs(child: child.childId, kinds: [.medication], from: at.addingTimeInterval(-72 * 3600), to: at)
        return recent.last { log in
            log.logId != excluding && { if case .string(let other)? = log.detail["name"] { other.caseInsensitiveCompare(name) == .orderedSame } else { false } }()
        }
    }

    /// WHO percentiles of each measurement, or null (with a warning) without the child's sex and
    /// birth date, or beyond the tables' five years.
    func percentiles(_ log: GrowthDetail, child: TrackedChild, at: Date, warnings: inout [TrackingWarning]) -> JSONValue {
        guard let sexName = child.sex, let sex = GrowthSex(rawValue: sexName), let age = child.ageDays(at: at) else {
            warnings.append(TrackingWarning(
                code: "percentiles_unavailable",
                message: "set the child's birth date and sex (PUT /v1/children/{id}/profile) to get WHO percentiles", field: nil))
            return .null
        }
        var result: [String: JSONValue] = [:]
        let measurements: [(String, Double?, GrowthIndicator)] = [
            ("weight", log.weightKg, .weightForAge), ("length", log.lengthCm, .lengthForAge), ("head", log.headCm, .headCircumferenceForAge),
        ]
        for (name, value, indicator) in measurements {
            guard let value else { continue }
            guard let assessment = growth.assess(value, indicator: indicator, sex: sex, ageDays: age) else {
                warnings.append(TrackingWarning(code: "percentiles_unavailable", message: "WHO tables cover ages 0 to 5 years", field: name))
                continue
            }
            result[name] = .object([
                "indicator": .string(indicator.rawValue), "z_score": .number((assessment.zScore * 100).rounded() / 100),
                "percentile": .number(assessment.percentile), "age_days": .number(Double(age)),
            ])
        }
        return .object(result)
    }
}
