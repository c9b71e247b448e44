import Foundation
import HearthEvents

/// What a caregiver sends to log something for a child, checked and brought to canonical units.
///
/// A body uses the names of the stored detail (`amount_ml`, `weight_kg`, ...) or a value with its
/// unit (`amount` + `unit`, `weight` + `weight_unit`): a stored log read back as JSON is itself a
/// valid body, which is how an edit merges its changes into the current log.
public struct TrackingLogInput: Sendable {
    public var at: Date
    public var detail: any TrackingLogDetail

    /// The body's fields as they arrive (numbers, strings, booleans, lists of strings).
    public typealias Fields = [String: JSONValue]

    /// The limits every log is held to. `now` is the server's clock; logs made offline arrive
    /// late, so only a time in the future (beyond a little clock skew) is refused.
    public struct Context: Sendable {
        public var now: Date
        public var birthdate: Date?
        public var timeZone: TimeZone

        public init(now: Date, birthdate: Date?, timeZone: TimeZone) {
            self.now = now
            self.birthdate = birthdate
            self.timeZone = timeZone
        }
    }

    public static let futureTolerance: TimeInterval = 5 * 60
    public static let maxBottleMl = 500.0
    public static let maxNursingMinutes = 180.0
    public static let maxSleepHours = 24.0
    public static let maxTextLength = 500
    public static let maxListItems = 20

    public static func parse(_ kind: TrackingLogKind, _ fields: Fields, context: Context) throws(FieldViolation) -> TrackingLogInput {
        var reader = FieldReader(fields: fields)
        let at = try reader.time("at", context: context) ?? context.now
        if let birth = context.birthdate, at < birth.addingTimeInterval(-86_400) {
            throw FieldViolation(field: "at", message: "at is before the child was born")
        }
        let detail: any TrackingLogDetail
        switch kind {
        case .feed: detail = try feed(&reader, at: at, context: context)
        case .sleep: detail = try sleep(&reader, at: at, context: context)
        case .diaper: detail = try diaper(&reader)
        case .growth: detail = try growth(&reader)
        case .medication: detail = try medication(&reader)
        case .food: detail = try food(&reader, context: context)
        case .photo: throw FieldViolation(field: "kind", message: "photos are uploaded as image bodies, not JSON")
        }
        return TrackingLogInput(at: at, detail: detail)
    }

    // MARK: kinds

    static let feedMethods = ["bottle", "nursing", "solids"]
    static let milks = ["formula", "breast_milk"]
    static let sides = ["left", "right", "both"]

    static func feed(_ reader: inout FieldReader, at: Date, context: Context) throws(FieldViolation) -> FeedDetail {
        let method = try reader.choice("method", of: feedMethods, required: true)!
        let notes = try reader.text("notes")
        switch method {
        case "bottle":
            let ml = try reader.quantity(
                canonical: "amount_ml", value: "amount", unit: "unit", units: ["ml": 1, "oz": DaycareReportParser.millilitresPerOunce, "floz": DaycareReportParser.millilitresPerOunce], required: true)!
            guard (ml * 10).rounded() > 0 else { throw FieldViolation(field: "amount", message: "amount must be at least 0.1 ml") }
            guard ml <= maxBottleMl else {
                throw FieldViolation(field: "amount", message: "a bottle of more than \(Int(maxBottleMl)) ml is more than any baby drinks at once")
            }
            let milk = try reader.choice("milk", of: milks, required: false)
            return FeedDetail(method: method, amountMl: (ml * 10).rounded() / 10, milk: milk, notes: notes)
        case "nursing":
            let side = try reader.choice("side", of: sides, required: true)
            let end = try reader.time("ended_at", context: context)
            var minutes = try reader.number("duration_minutes")
            if let end {
                guard end > at else { throw FieldViolation(field: "ended_at", message: "ended_at must be after at") }
                // The times say how long it lasted; a duration sent beside them is not trusted over them.
                minutes = end.timeIntervalSince(at) / 60
            }
            if let value = minutes {
                guard value > 0 else { throw FieldViolation(field: "duration_minutes", message: "duration_minutes must be more than 0") }
                guard value <= maxNursingMinutes else {
                    throw FieldViolation(field: end == nil ? "duration_minutes" : "ended_at", message: "a nursing session lasts at most \(Int(maxNursingMinutes)) minutes")
                }
            }
            return FeedDetail(
                method: method, side: side, endedAt: end, durationMinutes: minutes.map { ($0 * 10).rounded() / 10 }, notes: notes)
        default:
            let foods = try reader.texts("foods")
            guard !foods.isEmpty else { throw FieldViolation(field: "foods", message: "solids name at least one food") }
            return FeedDetail(method: method, foods: foods, amountWords: try reader.text("amount_words"), notes: notes)
        }
    }

    static func sleep(_ reader: inout FieldReader, at: Date, context: Context) throws(FieldViolation) -> SleepDetail {
        let end = try reader.time("ended_at", context: context)
        if let end {
            guard end > at else { throw FieldViolation(field: "ended_at", message: "ended_at must be after at") }
            guard end.timeIntervalSince(at) <= maxSleepHours * 3600 else {
                throw FieldViolation(field: "ended_at", message: "a sleep lasts at most \(Int(maxSleepHours)) hours")
            }
        }
        let chosen = try reader.choice("period", of: ["nap", "night"], required: false)
        let period = chosen ?? SleepPeriod.derived(start: at, in: context.timeZone)
        return SleepDetail(endedAt: end, period: period, periodChosen: chosen != nil, notes: try reader.text("notes"))
    }

    static func diaper(_ reader: inout FieldReader) throws(FieldViolation) -> DiaperDetail {
        DiaperDetail(
            contents: try reader.choice("contents", of: ["wet", "dirty", "both"], required: true)!,
            colour: try reader.choice("colour", of: ["yellow", "green", "brown", "black", "red", "white", "orange"], required: false),
            consistency: try reader.choice("consistency", of: ["runny", "seedy", "soft", "formed", "hard", "mucousy"], required: false),
            notes: try reader.text("notes"))
    }

    static let massUnits = ["kg": 1.0, "g": 0.001, "lb": 0.45359237, "oz": 0.028349523125]
    static let lengthUnits = ["cm": 1.0, "mm": 0.1, "in": 2.54]

    static func growth(_ reader: inout FieldReader) throws(FieldViolation) -> GrowthDetail {
        let weight = try reader.quantity(canonical: "weight_kg", value: "weight", unit: "weight_unit", units: massUnits, required: false)
        let length = try reader.quantity(canonical: "length_cm", value: "length", unit: "length_unit", units: lengthUnits, required: false)
        let head = try reader.quantity(canonical: "head_cm", value: "head", unit: "head_unit", units: lengthUnits, required: false)
        guard weight != nil || length != nil || head != nil else {
            throw FieldViolation(field: "weight", message: "a growth log has at least one of weight, length and head")
        }
        if let weight, !(0.3...60).contains(weight) {
            throw FieldViolation(field: "weight", message: "a weight of \(weight) kg is not a child's (0.3 to 60 kg)")
        }
        if let length, !(20...150).contains(length) {
            throw FieldViolation(field: "length", message: "a length of \(length) cm is not a child's (20 to 150 cm)")
        }
        if let head, !(20...60).contains(head) {
            throw FieldViolation(field: "head", message: "a head circumference of \(head) cm is not a child's (20 to 60 cm)")
        }
        func round(_ value: Double?, _ places: Double) -> Double? { value.map { ($0 * places).rounded() / places } }
        return GrowthDetail(weightKg: round(weight, 1000), lengthCm: round(length, 10), headCm: round(head, 10), notes: try reader.text("notes"))
    }

    static let doseUnits = ["ml", "mg", "mcg", "g", "drops", "tablet", "puff", "sachet", "iu"]

    static func medication(_ reader: inout FieldReader) throws(FieldViolation) -> MedicationDetail {
        guard let name = try reader.text("name") else { throw FieldViolation(field: "name", message: "name is required") }
        guard let dose = try reader.number("dose") else { throw FieldViolation(field: "dose", message: "dose is required") }
        guard dose > 0, dose <= 1000 else { throw FieldViolation(field: "dose", message: "dose must be more than 0 and at most 1000") }
        let unit = try reader.choice("dose_unit", of: doseUnits, required: true)!
        let interval = try reader.number("interval_hours")
        if let interval, !(0.5...72).contains(interval) {
            throw FieldViolation(field: "interval_hours", message: "interval_hours must be between 0.5 and 72")
        }
        return MedicationDetail(name: name, dose: dose, doseUnit: unit, intervalHours: interval, notes: try reader.text("notes"))
    }

    public static let reactions = ["none", "mild", "moderate", "severe"]
    public static let foodColours = ["red", "orange", "yellow", "green", "blue", "purple", "white", "brown"]

    static func food(_ reader: inout FieldReader, context: Context) throws(FieldViolation) -> FoodDetail {
        guard let food = try reader.text("food") else { throw FieldViolation(field: "food", message: "food is required") }
        let reaction = try reader.choice("reaction", of: reactions, required: false) ?? "none"
        let symptoms = try reader.texts("symptoms")
        var unmarked = try reader.time("unmarked_at", context: context)
        if let tried = try reader.bool("tried") { unmarked = tried ? nil : (unmarked ?? context.now) }
        return FoodDetail(
            food: food, allergens: Array(NSOrderedSet(array: try reader.texts("allergens").map { $0.lowercased() })).compactMap { $0 as? String }, reaction: reaction, symptoms: symptoms,
            liked: try reader.bool("liked"), colour: try reader.choice("colour", of: foodColours, required: false), unmarkedAt: unmarked,
            notes: try reader.text("notes"))
    }
}

/// Nap or night, from the local hour a sleep starts: the same night as next-feed predictions use.
public enum SleepPeriod {
    public static func derived(start: Date, in zone: TimeZone) -> String {
        NextFeedPredictor.isNight(start, in: zone) ? "night" : "nap"
    }
}

/// Reads typed fields from a JSON object, naming the field in every refusal.
struct FieldReader {
    let fields: TrackingLogInput.Fields

    private func value(_ name: String) -> JSONValue? {
        guard let value = fields[name], value != .null else { return nil }
        return value
    }

    func text(_ name: String) throws(FieldViolation) -> String? {
        guard let value = value(name) else { return nil }
        guard case .string(let text) = value else { throw FieldViolation(field: name, message: "\(name) must be a string") }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count <= TrackingLogInput.maxTextLength else {
            throw FieldViolation(field: name, message: "\(name) must be at most \(TrackingLogInput.maxTextLength) characters")
        }
        return trimmed.isEmpty ? nil : trimmed
    }

    func texts(_ name: String) throws(FieldViolation) -> [String] {
        guard let value = value(name) else { return [] }
        guard case .array(let items) = value else { throw FieldViolation(field: name, message: "\(name) must be a list of strings") }
        guard items.count <= TrackingLogInput.maxListItems else {
            throw FieldViolation(field: name, message: "\(name) holds at most \(TrackingLogInput.maxListItems) items")
        }
        var result: [String] = []
        for item in items {
            guard case .string(let text) = item else { throw FieldViolation(field: name, message: "\(name) must be a list of strings") }
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty, trimmed.count <= 100 else {
                throw FieldViolation(field: name, message: "each of \(name) must be 1 to 100 characters")
            }
            if !result.contains(trimmed) { result.append(trimmed) }
        }
        return result
    }

    func number(_ name: String) throws(FieldViolation) -> Double? {
        guard let value = value(name) else { return nil }
        guard case .number(let number) = value, number.isFinite else { throw FieldViolation(field: name, message: "\(name) must be a number") }
        return number
    }

    func bool(_ name: String) throws(FieldViolation) -> Bool? {
        guard let value = value(name) else { return nil }
        guard case .bool(let flag) = value else { throw FieldViolation(field: name, message: "\(name) must be true or false") }
        return flag
    }

    func choice(_ name: String, of allowed: [String], required: Bool) throws(FieldViolation) -> String? {
        guard let text = try text(name)?.lowercased() else {
            if required { throw FieldViolation(field: name, message: "\(name) is required: one of \(allowed.joined(separator: ", "))") }
            return nil
        }
        guard allowed.contains(text) else { throw FieldViolation(field: name, message: "\(name) must be one of \(allowed.joined(separator: ", "))") }
        return text
    }

    /// An RFC 3339 date-time, not in the future beyond the clock-skew tolerance.
    func time(_ name: String, context: TrackingLogInput.Context) throws(FieldViolation) -> Date? {
        guard let text = try text(name) else { return nil }
        guard let date = Timestamp.parse(text) else {
            throw FieldViolation(field: name, message: "\(name) must be an RFC 3339 date-time with a zone (2026-03-01T14:05:00Z)")
        }
        guard date <= context.now.addingTimeInterval(TrackingLogInput.futureTolerance) else {
            throw FieldViolation(field: name, message: "\(name) is in the future")
        }
        return date
    }

    /// A quantity in canonical units: `canonical` as is, or `value` with `unit` converted.
    func quantity(
        canonical: String, value valueName: String, unit unitName: String, units: [String: Double], required: Bool
    ) throws(FieldViolation) -> Double? {
        let amount: Double
        let field: String
        if let given = try number(valueName) {
            guard let unit = try text(unitName)?.lowercased() else {
                throw FieldViolation(field: unitName, message: "\(unitName) is required with \(valueName): one of \(units.keys.sorted().joined(separator: ", "))")
            }
            guard let factor = units[unit] else {
                throw FieldViolation(field: unitName, message: "\(unitName) must be one of \(units.keys.sorted().joined(separator: ", "))")
            }
            amount = given * factor
            field = valueName
            guard amount.isFinite else { throw FieldViolation(field: valueName, message: "\(valueName) is too large") }
        } else if let given = try number(canonical) {
            amount = given
            field = canonical
        } else {
            if required { throw FieldViolation(field: valueName, message: "\(valueName) is required (with \(unitName))") }
            return nil
        }
        guard amount > 0 else { throw FieldViolation(field: field, message: "\(field) must be more than 0") }
        return amount
    }
}
