import Foundation

/// Whether a user's own words in the wellbeing space (a check-in's note or trigger context) say
/// they are in danger: the safety policy's crisis and emergency rules — for every domain and the
/// wellbeing domain's own — and only those. A note that names a medicine or a hard day is a note,
/// not a crisis; one that says "I want to hurt myself" is met with the crisis resources and
/// nothing else.
public struct WellbeingCrisisCheck: Sendable {
    public static let domain = "wellbeing"
    public static let dangerRefusals: Set<String> = ["crisis", "emergency"]

    let policy: SafetyPolicy

    public init(policy: SafetyPolicy) {
        self.policy = policy
    }

    public func isCrisis(_ texts: [String?]) -> Bool {
        texts.contains { text in
            guard let text, !text.isEmpty,
                  let violation = policy.violation(in: text, domain: Self.domain, childAges: [], at: .goal)
            else { return false }
            return Self.dangerRefusals.contains(violation.refusalKey)
        }
    }

    /// The policy's own words for a crisis.
    public var message: String {
        policy.refusals["crisis"] ?? "Please reach out for help now."
    }
}
