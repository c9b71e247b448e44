extension SafetyPolicy {
    /// Checks a family's goal before any model sees it. The goal is redacted first, so rules
    /// never see (or echo) personal details, and what is checked is what the model would get.
    public func precheck(goal: String, domain: String, childAges: [Int]) -> SafetyVerdict {
        violation(in: redactor.redact(goal), domain: domain, childAges: childAges, at: .goal)?.verdict ?? .allowed
    }

    /// Checks a model's output before the family reads it.
    public func postcheck(text: String, domain: String, childAges: [Int]) -> SafetyVerdict {
        violation(in: text, domain: domain, childAges: childAges, at: .output)?.verdict ?? .allowed
    }

    /// The first rule that refuses `text` at `checkpoint`: content rules before age gates, rules
    /// for every domain before the domain's own. `nil` when the text may go on.
    public func violation(in text: String, domain: String, childAges: [Int], at checkpoint: SafetyCheckpoint) -> SafetyViolation? {
        for policy in policies(for: domain) {
            if let rule = policy.contentRules.first(where: { $0.refuses(text, at: checkpoint) }) {
                return SafetyViolation(ruleId: rule.id, refusalKey: rule.refusal, refusalText: refusals[rule.refusal] ?? "")
            }
        }
        for policy in policies(for: domain) {
            if let gate = policy.ageGates.first(where: { $0.refuses(text, childAges: childAges, at: checkpoint) }) {
                return SafetyViolation(ruleId: gate.id, refusalKey: gate.refusal, refusalText: refusals[gate.refusal] ?? "")
            }
        }
        return nil
    }
}
