/// Where a schedule's chores came from.
public enum ChoreSelectionSource: String, Codable, Sendable {
    /// Named or described in the goal.
    case goal
    /// The household's own chore list.
    case household
    /// Neither gave any, so a starter set of everyday chores was used.
    case starterSet = "starter_set"
}
