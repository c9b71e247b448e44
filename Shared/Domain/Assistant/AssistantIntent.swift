import Foundation

/// A tool call the assistant recognised in what the user wrote. It is only ever proposed: the
/// gateway executes it once a household member confirms.
public enum AssistantIntent: Sendable, Equatable {
    /// A reminder for the asker; `member` names whom it is about when that is someone else.
    case setReminder(SetReminder)
    case createCalendarEvent(CreateCalendarEvent)
    case addChore(AddChore)
    case sendMessage(SendMessage)

    public struct SetReminder: Sendable, Equatable {
        public var title: String
        public var at: Date
        public var member: NamedMember?
    }

    public struct CreateCalendarEvent: Sendable, Equatable {
        public var title: String
        public var start: Date
        public var end: Date
        public var allDay: Bool
    }

    public struct AddChore: Sendable, Equatable {
        public var chore: String
        public var assignee: NamedMember?
        public var day: CalendarDay
        /// Seconds after local midnight.
        public var secondsOfDay: Int
        public var minutes: Int
    }

    public struct SendMessage: Sendable, Equatable {
        public var recipient: NamedMember
        public var text: String
    }

    /// The tool's name, as the proposed action records it.
    public var tool: String {
        switch self {
        case .setReminder: "set_reminder"
        case .createCalendarEvent: "create_calendar_event"
        case .addChore: "add_chore"
        case .sendMessage: "send_message"
        }
    }
}

/// A household member the text named, matched against the members the request carries.
public struct NamedMember: Sendable, Equatable, Hashable {
    public var memberId: UUID
    public var name: String

    public init(memberId: UUID, name: String) {
        self.memberId = memberId
        self.name = name
    }
}
