/// Where a rule applies: to the family's goal before any model call, to the model's output
/// before anyone reads it, or both. Some rules only make sense at one point — an emergency is
/// something a parent says, a dosage is something a model might write.
public enum SafetyCheckpoint: String, Sendable, Codable, CaseIterable {
    case goal
    case output
}
