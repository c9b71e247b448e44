import Foundation
import HearthEvents

/// A recognised intent as the tool call the gateway will execute on confirmation: the tool's
/// arguments (the contract with `AssistantActionExecutor` in the gateway) and the line the user
/// confirms. The one writer of an action's arguments: the orchestrator when it proposes, the
/// gateway when a member edits one.
public struct ProposedAction: Sendable {
    public var tool: String
    public var arguments: JSONValue
    public var summary: String

    /// Nil for an intent no tool can carry out: a message to someone who does not sign in.
    public init?(_ intent: AssistantIntent, members: [AssistantMember], timeZone: TimeZone) {
        let zoneName = timeZone.identifier
        tool = intent.tool
        switch intent {
        case .setReminder(let reminder):
            var arguments: [String: JSONValue] = [
                "title": .string(reminder.title), "at": .string(Timestamp.format(reminder.at)), "time_zone": .string(zoneName),
            ]
            if let member = reminder.member {
                arguments["member_id"] = .string(member.memberId.uuidString.lowercased())
                arguments["member_name"] = .string(member.name)
            }
            self.arguments = .object(arguments)
            summary = "Remind you \(Self.describe(reminder.at, in: timeZone)): \(reminder.title)"
        case .createCalendarEvent(let event):
            arguments = .object([
                "title": .string(event.title), "start": .string(Timestamp.format(event.start)), "end": .string(Timestamp.format(event.end)),
                "all_day": .bool(event.allDay), "time_zone": .string(zoneName),
            ])
            let when = event.allDay ? Self.describeDay(event.start, in: timeZone) : Self.describe(event.start, in: timeZone)
            summary = "Add “\(event.title)” to the household calendar \(when)"
        case .addChore(let chore):
            let hour = chore.secondsOfDay / 3600, minute = chore.secondsOfDay % 3600 / 60
            let local = String(format: "%@T%02d:%02d:00", chore.day.isoDate, hour, minute)
            var arguments: [String: JSONValue] = [
                "chore": .string(chore.chore), "date": .string(chore.day.isoDate), "at": .string(local),
                "minutes": .number(Double(chore.minutes)), "time_zone": .string(zoneName),
            ]
            if let assignee = chore.assignee {
                arguments["member_id"] = .string(assignee.memberId.uuidString.lowercased())
                arguments["assignee"] = .string(assignee.name)
            }
            self.arguments = .object(arguments)
            let start = LocalTime.instant(day: chore.day, secondsOfDay: chore.secondsOfDay, in: timeZone)
            summary = "Add the chore “\(chore.chore)”\(chore.assignee.map { " for \($0.name)" } ?? "") \(Self.describe(start, in: timeZone))"
        case .sendMessage(let message):
            guard let recipient = members.first(where: { $0.memberId == message.recipient.memberId }), let userId = recipient.userId else {
                return nil
            }
            arguments = .object([
                "recipient_member_id": .string(recipient.memberId.uuidString.lowercased()),
                "recipient_user_id": .string(userId.uuidString.lowercased()),
                "recipient_name": .string(recipient.name), "text": .string(message.text),
            ])
            summary = "Send \(recipient.name) a message: “\(message.text)”"
        }
    }

    /// "on Tue 24 Nov at 07:00" in the user's zone.
    static func describe(_ date: Date, in zone: TimeZone) -> String {
        "on \(format(date, "EEE d MMM", zone)) at \(format(date, "HH:mm", zone))"
    }

    static func describeDay(_ date: Date, in zone: TimeZone) -> String {
        "on \(format(date, "EEE d MMM", zone))"
    }

    private static func format(_ date: Date, _ pattern: String, _ zone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = pattern
        return formatter.string(from: date)
    }
}
