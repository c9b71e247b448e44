import Foundation
import HearthDomain
import HearthEvents

/// A claimed request as the flows use it: the goal (already PII-redacted by the gateway, and
/// again here), the household, and the planning window.
struct RunInput: Sendable {
    let runId: UUID
    let userId: UUID
    let householdId: UUID?
    let mode: AssistMode
    let goal: String
    let days: Int
    let startDate: CalendarDay
    let prefs: HouseholdPrefs
    let members: [HouseholdMember]

    /// Household members as the planners want them: the recorded members, and where they do not
    /// say enough (none recorded, or no child's age known) the preferences stand in: "Adult 1",
    /// "Child 1" (age 4), ...
    static func members(from recorded: [AssistMember], prefs: HouseholdPrefs) -> [HouseholdMember] {
        let known = recorded.compactMap { member -> HouseholdMember? in
            if let age = member.age { return HouseholdMember(name: member.name, age: age) }
            // An adult without a birthdate is still an adult; a child's age is needed to plan.
            return member.role == "child" ? nil : HouseholdMember(name: member.name, age: HouseholdMember.adultAge)
        }
        let children = prefs.kidsAges.enumerated().map { HouseholdMember(name: "Child \($0.offset + 1)", age: $0.element) }
        if known.isEmpty {
            let adults = (0..<max(prefs.adults, 1)).map { HouseholdMember(name: "Adult \($0 + 1)", age: HouseholdMember.adultAge) }
            return adults + children
        }
        return known.contains(where: { !$0.isAdult }) ? known : known + children
    }
}

/// The three kinds of plan an assist run makes.
enum AssistMode: String, Sendable, CaseIterable {
    case meals, chores, routines
}

extension JSONValue {
    /// Any `Encodable` as a JSON tree, for the `data` of stream events.
    init(encoding value: some Encodable) throws {
        self = try JSONValueEncoder().encode(value)
    }

    static func int(_ value: Int) -> JSONValue { .number(Double(value)) }

    static func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }
}
