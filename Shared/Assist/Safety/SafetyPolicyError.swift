/// A policy file that cannot be enforced as written. Loading fails rather than enforcing part
/// of a policy.
public enum SafetyPolicyError: Error, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case invalid(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "safety policy \(path) cannot be read: \(reason)"
        case .invalid(let path, let reason): "safety policy \(path) is invalid: \(reason)"
        }
    }
}
