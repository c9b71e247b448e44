/// The rule that refused a text, for logs, tests and the refusal event.
public struct SafetyViolation: Sendable, Equatable {
    /// The rule's id in the policy file, e.g. `meals.infant_honey`.
    public var ruleId: String
    public var refusalKey: String
    public var refusalText: String

    public var verdict: SafetyVerdict { .refused(key: refusalKey, text: refusalText) }
}
