import Foundation
import HearthEvents

/// What the assistant can do with one chat message (`POST /v1/chats/{id}/messages/{mid}/assist`).
public enum MessageAction: String, Sendable, CaseIterable, Codable {
    /// Summarise the thread the message is in.
    case summarize
    /// Surface messages of the user's chats about the same thing.
    case related
    /// Suggest a reminder the message calls for (proposed, confirmed like any action).
    case remind

    /// The turn's question as the conversation lists it.
    public var question: String {
        switch self {
        case .summarize: "Summarise this thread"
        case .related: "Find messages related to this one"
        case .remind: "Suggest a reminder for this message"
        }
    }
}

extension AssistantIntentParser {
    /// A reminder a chat message calls for ("Swimming moves to Thursday at 5"): the first sentence
    /// naming a time says when, and the rest of it what. A message naming no time gets the next
    /// 9:00 and `timed == false`: it is a suggestion, edited (`PATCH /v1/assistant/actions/{id}`)
    /// before it is confirmed, so a default does not put words in anyone's mouth.
    public func suggestedReminder(from message: String) -> (reminder: AssistantIntent.SetReminder, timed: Bool) {
        let sentences = Self.sentences(of: message).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        for sentence in sentences {
            let when = When.extract(from: sentence)
            guard let at = resolve(when, defaultTime: nil) else { continue }
            let title = Self.title(Self.phrase(when.remainder, droppingLeading: Self.reminderFillers))
            return (.init(title: title.isEmpty ? Self.title(sentence) : title, at: at, member: nil), true)
        }
        let (day, seconds) = localDayAndTime(When(remainder: message), defaultTime: Self.defaultTime)
        let title = Self.title(Self.phrase(sentences.first ?? message, droppingLeading: Self.reminderFillers))
        return (.init(title: title.isEmpty ? "Reminder" : title, at: LocalTime.instant(day: day, secondsOfDay: seconds, in: timeZone), member: nil), false)
    }

    static let reminderFillers: Set<String> = ["to", "that", "about", "remember", "reminder:", "please", "don't", "dont", "forget"]
    static let maxReminderTitle = 120

    /// At most `maxReminderTitle` characters, cut at a word.
    static func title(_ text: String) -> String {
        Excerpt.atWord(text, to: maxReminderTitle)
    }
}

/// One message of a thread as a summary reads it.
public struct ThreadLine: Sendable, Equatable {
    public var author: String
    public var text: String

    public init(author: String, text: String) {
        self.author = author
        self.text = text
    }
}

/// A thread's summary without a model, deterministic: who took part, how many messages, then the
/// first sentence of the messages that say something new (short acknowledgements like "ok!" and
/// repeats are left out), most recent last, at most `maxPoints`.
public enum ThreadDigest {
    public static let maxPoints = 5
    static let pointLength = 140
    /// Replies that carry no content of their own.
    static let acknowledgements: Set<String> = [
        "ok", "okay", "k", "yes", "yep", "yeah", "no", "nope", "thanks", "thank you", "thx", "ta", "great", "cool", "sure", "fine",
        "sounds good", "perfect", "lol", "haha", "👍", "ok thanks", "will do", "done", "got it", "nice",
    ]

    public static func summary(of thread: [ThreadLine]) -> String {
        guard !thread.isEmpty else { return "There are no messages to summarise." }
        var authors: [String] = []
        for line in thread where !authors.contains(line.author) { authors.append(line.author) }
        var points: [String] = []
        var seen = Set<String>()
        for line in thread {
            let first = AssistantIntentParser.sentences(of: line.text).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.first { !$0.isEmpty } ?? ""
            let key = first.lowercased().trimmingCharacters(in: .punctuationCharacters.union(.whitespaces))
            guard !key.isEmpty, !acknowledgements.contains(key), seen.insert(key).inserted else { continue }
            points.append("\(line.author): \(Excerpt.atWord(first, to: pointLength))")
        }
        let count = thread.count == 1 ? "1 message" : "\(thread.count) messages"
        var summary = "\(count) from \(list(authors))."
        if points.isEmpty { return summary + " Nothing in them beyond short replies." }
        // The latest points matter most when the thread is long: what was decided comes last.
        if points.count > maxPoints { points = Array(points.suffix(maxPoints)) }
        summary += " " + points.map { $0.hasSuffix(".") || $0.hasSuffix("?") || $0.hasSuffix("!") ? $0 : $0 + "." }.joined(separator: " ")
        return summary
    }

    /// "Ana", "Ana and Ben", "Ana, Ben and Cy".
    static func list(_ names: [String]) -> String {
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " and " + names.last!
    }
}
