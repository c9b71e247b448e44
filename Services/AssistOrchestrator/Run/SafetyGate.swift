import HearthAssist

/// The run's view of the safety policy: PII redaction first, then the precheck on the goal; the
/// postcheck on whatever text a model wrote.
struct SafetyGate: Sendable {
    let policy: SafetyPolicy

    func redact(_ text: String) -> String { policy.redactor.redact(text) }

    /// The goal with PII removed, or the refusal that ends the run.
    func precheck(goal: String, mode: AssistMode, childAges: [Int]) throws -> String {
        let redacted = policy.redactor.redact(goal)
        switch policy.precheck(goal: redacted, domain: mode.rawValue, childAges: childAges) {
        case .allowed:
            return redacted
        case .refused(let key, let text):
            throw RunRefused(key: key, text: text)
        }
    }

    func postcheck(_ text: String, mode: AssistMode, childAges: [Int]) throws -> String {
        switch policy.postcheck(text: text, domain: mode.rawValue, childAges: childAges) {
        case .allowed:
            return policy.redactor.redact(text)
        case .refused(let key, let text):
            throw RunRefused(key: key, text: text)
        }
    }
}
