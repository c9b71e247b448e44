/// Whether text may go on. A refusal carries the refusal key (for events and metrics) and the
/// text to show the family instead.
public enum SafetyVerdict: Sendable, Equatable {
    case allowed
    case refused(key: String, text: String)
}
