import HearthAssist

/// The run's view of the safety policy: PII redaction first, then the precheck on the goal; the
/// postcheck on whatever text a model wrote. `domain` is the policy's domain: a plan's mode, or
/// `assistant` (which only the rules for every domain cover).
struct SafetyGate: Sendable {
    let policy: SafetyPolicy

    func redact(_ text: String) -> String { policy.redactor.redact(text) }

    /// The goal with PII removed, or the refusal that ends the run.
    func precheck(goal: String, mode: AssistMode, childAges: [Int]) throws -> String {
        try precheck(goal: goal, domain: mode.rawValue, childAges: childAges)
    }

    func precheck(goal: String, domain: String, childAges: [Int]) throws -> String {
        let redacted = policy.redactor.redact(goal)
        switch policy.precheck(goal: redacted, domain: domain, childAges: childAges) {
        case .allowed:
            return redacted
        case .refused(let key, let text):
            throw RunRefused(key: key, text: text)
        }
    }

    func postcheck(_ text: String, mode: AssistMode, childAges: [Int]) throws -> String {
        try postcheck(text, domain: mode.rawValue, childAges: childAges)
    }

    func postcheck(_ text: String, domain: String, childAges: [Int]) throws -> String {
        switch policy.postcheck(text: text, domain: domain, childAges: childAges) {
        case .allowed:
            return policy.redactor.redact(text)
        case .refused(let key, let text):
            throw RunRefused(key: key, text: text)
        }
    }
}
