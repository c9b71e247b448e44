/// How long before a chore occurrence its reminder goes out, from the user's notification
/// settings (`chore_reminder_lead_minutes`; 0, the default, is at the occurrence).
public enum ChoreReminderLead {
    /// A day: a longer lead would remind of tomorrow's chore before today's. The gateway rejects
    /// more, and the dispatcher never looks further ahead than this for due chore reminders.
    public static let maximumMinutes = 1440

    public static let allowedMinutes = 0...maximumMinutes
}
