import Foundation

/// Recognises the assistant's tool intents in plain English, offline and deterministically:
/// "remind me tomorrow at 7am to pack swim bags", "add swimming to the calendar on Saturday at
/// 10", "add a chore: water the plants for Sam", "tell Alex that dinner is at 6".
///
/// One intent per sentence at most. A reminder or calendar entry with no recognisable time is not
/// proposed (the answer asks for one instead): guessing a time would put words in the user's mouth.
public struct AssistantIntentParser: Sendable {
    public let now: Date
    public let timeZone: TimeZone
    public let members: [NamedMember]

    /// Where a chore without a time goes, and how long a timed calendar entry lasts.
    static let defaultChoreTime = 18 * 3600
    static let defaultChoreMinutes = 15
    static let defaultEventMinutes = 60
    /// A day named without a time of day ("remind me on Friday to ...").
    static let defaultTime = 9 * 3600

    public init(now: Date, timeZone: TimeZone, members: [NamedMember]) {
        self.now = now
        self.timeZone = timeZone
        self.members = members
    }

    public func intents(in text: String) -> [AssistantIntent] {
        Self.sentences(of: text).compactMap(intent(in:))
    }

    func intent(in sentence: String) -> AssistantIntent? {
        reminder(in: sentence) ?? chore(in: sentence) ?? calendarEvent(in: sentence) ?? message(in: sentence)
    }

    // MARK: Tools

    func reminder(in sentence: String) -> AssistantIntent? {
        guard let match = Patterns.reminder.groups(in: sentence), let who = match[1], let rest = match[2] else { return nil }
        let member: NamedMember?
        switch who.lowercased() {
        case "me", "us": member = nil
        default:
            guard let named = self.member(named: who) else { return nil }
            member = named
        }
        let when = When.extract(from: rest)
        guard let at = resolve(when, defaultTime: nil) else { return nil }
        let title = Self.phrase(when.remainder, droppingLeading: ["to", "that", "about"])
        return .setReminder(.init(title: title.isEmpty ? "Reminder" : title, at: at, member: member))
    }

    func chore(in sentence: String) -> AssistantIntent? {
        var body: String
        var assignee: NamedMember?
        if let match = Patterns.choreForMember.groups(in: sentence), let chore = match[1], let name = match[2] {
            guard let named = member(named: name) else { return nil }
            assignee = named
            body = chore + " " + (match[3] ?? "")
        } else if let match = Patterns.chore.groups(in: sentence), let rest = match[1] {
            body = rest
        } else {
            return nil
        }
        let when = When.extract(from: body)
        body = when.remainder
        if assignee == nil, let match = Patterns.forMember.groups(in: body), let name = match[1], let named = member(named: name),
           let range = Patterns.forMember.firstRange(in: body) {
            assignee = named
            body.replaceSubrange(range, with: " ")
        }
        let chore = Self.phrase(body, droppingLeading: ["to"])
        guard !chore.isEmpty else { return nil }
        let (day, seconds) = localDayAndTime(when, defaultTime: Self.defaultChoreTime)
        return .addChore(.init(chore: chore, assignee: assignee, day: day, secondsOfDay: seconds, minutes: Self.defaultChoreMinutes))
    }

    func calendarEvent(in sentence: String) -> AssistantIntent? {
        guard let match = Patterns.calendarVerb.groups(in: sentence), let verb = match[1], var rest = match[2] else { return nil }
        let namesCalendar = Patterns.calendarPhrase.firstRange(in: rest)
        let schedules = ["schedule", "book"].contains(verb.lowercased())
        guard namesCalendar != nil || schedules else { return nil }
        if let range = namesCalendar { rest.replaceSubrange(range, with: " ") }
        let when = When.extract(from: rest)
        guard when.day != nil || when.secondsOfDay != nil || when.relative != nil else { return nil }
        let title = Self.phrase(when.remainder, droppingLeading: ["a", "an", "the"])
        guard !title.isEmpty else { return nil }
        if when.secondsOfDay == nil && when.relative == nil, let day = when.day.map({ $0(today) }) {
            let start = LocalTime.instant(day: day, secondsOfDay: 0, in: timeZone)
            let end = LocalTime.instant(day: day.adding(days: 1), secondsOfDay: 0, in: timeZone)
            return .createCalendarEvent(.init(title: title, start: start, end: end, allDay: true))
        }
        guard let start = resolve(when, defaultTime: nil) else { return nil }
        return .createCalendarEvent(.init(
            title: title, start: start, end: start.addingTimeInterval(TimeInterval(Self.defaultEventMinutes * 60)), allDay: false))
    }

    func message(in sentence: String) -> AssistantIntent? {
        guard let match = Patterns.message.groups(in: sentence), let name = match[1], let rest = match[2],
              let recipient = member(named: name)
        else { return nil }
        let text = Self.phrase(rest, droppingLeading: ["that"])
        guard !text.isEmpty else { return nil }
        return .sendMessage(.init(recipient: recipient, text: text))
    }

    // MARK: Time

    var today: CalendarDay { CalendarDay(now, in: timeZone) }

    /// The instant meant, or nil when the text gave no time at all. A time of day alone that has
    /// already passed today means tomorrow.
    func resolve(_ when: When, defaultTime: Int?) -> Date? {
        if let relative = when.relative { return now.addingTimeInterval(relative) }
        guard when.day != nil || when.secondsOfDay != nil else { return nil }
        let (day, seconds) = localDayAndTime(when, defaultTime: defaultTime ?? when.partOfDay ?? Self.defaultTime)
        return LocalTime.instant(day: day, secondsOfDay: seconds, in: timeZone)
    }

    func localDayAndTime(_ when: When, defaultTime: Int) -> (CalendarDay, Int) {
        if let relative = when.relative {
            let parts = LocalTime.components(of: now.addingTimeInterval(relative), in: timeZone)
            return (parts.day, parts.secondsOfDay)
        }
        let seconds = when.secondsOfDay ?? when.partOfDay ?? defaultTime
        if let day = when.day { return (day(today), seconds) }
        let nowSeconds = LocalTime.components(of: now, in: timeZone).secondsOfDay
        return (seconds > nowSeconds ? today : today.adding(days: 1), seconds)
    }

    // MARK: Text

    func member(named name: String) -> NamedMember? {
        let wanted = name.lowercased()
        return members.first { $0.name.lowercased() == wanted }
            ?? members.first { $0.name.lowercased().split(separator: " ").first.map(String.init) == wanted }
    }

    static func sentences(of text: String) -> [String] {
        var sentences: [String] = []
        var current = ""
        let characters = Array(text)
        for (index, character) in characters.enumerated() {
            // "7.30" and "7 a.m. to pack" are not sentence ends: a stop ends one only when a
            // capital (or the end) follows it.
            let following = characters[(index + 1)...].first { !$0.isWhitespace }
            let endsSentence = index + 1 == characters.count
                || (characters[index + 1].isWhitespace && (following == nil || following!.isUppercase))
            if "\n!?".contains(character) || (character == "." && endsSentence) {
                sentences.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        sentences.append(current)
        return sentences.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }

    /// What is left of a sentence once the tool's words and the time are taken out, tidied into a
    /// title: single spaces, no leading filler word, no trailing punctuation or "please", first
    /// letter upper-case.
    static func phrase(_ text: String, droppingLeading fillers: Set<String>) -> String {
        var words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        while let first = words.first, fillers.contains(first.lowercased()) { words.removeFirst() }
        while let last = words.last, ["please", "thanks", "for", "on", "at"].contains(last.lowercased().trimmingCharacters(in: .punctuationCharacters)) {
            words.removeLast()
        }
        var phrase = words.joined(separator: " ").trimmingCharacters(in: CharacterSet(charactersIn: " ,.;:!?"))
        if let first = phrase.first { phrase = first.uppercased() + phrase.dropFirst() }
        return phrase
    }
}

/// The time expressions of one sentence, taken out of its text.
struct When: Sendable {
    /// The local day, from today's.
    var day: (@Sendable (CalendarDay) -> CalendarDay)?
    var secondsOfDay: Int?
    /// "in 20 minutes".
    var relative: TimeInterval?
    /// "tomorrow morning", "tonight": the time when no clock time is given.
    var partOfDay: Int?
    var remainder: String

    static func extract(from text: String) -> When {
        var when = When(remainder: text)
        if let match = Patterns.relative.groups(in: when.remainder), let count = match[1], let unit = match[2],
           let amount = Patterns.number(count) {
            when.relative = TimeInterval(amount * (unit.lowercased().hasPrefix("h") ? 3600 : 60))
            when.cut(Patterns.relative)
        }
        if let match = Patterns.isoDate.groups(in: when.remainder), let text = match[1], let day = CalendarDay(isoDate: text) {
            when.day = { _ in day }
            when.cut(Patterns.isoDate)
        } else if Patterns.dayAfterTomorrow.groups(in: when.remainder) != nil {
            when.day = { $0.adding(days: 2) }
            when.cut(Patterns.dayAfterTomorrow)
        } else if let match = Patterns.tomorrow.groups(in: when.remainder) {
            when.day = { $0.adding(days: 1) }
            when.partOfDay = match[1].flatMap(Patterns.partOfDay)
            when.cut(Patterns.tomorrow)
        } else if let match = Patterns.today.groups(in: when.remainder), let word = match[1] {
            when.day = { $0 }
            when.partOfDay = word.lowercased() == "tonight" ? Patterns.partOfDay("night") : match[2].flatMap(Patterns.partOfDay)
            when.cut(Patterns.today)
        } else if let match = Patterns.weekday.groups(in: when.remainder), let name = match[1],
                  let target = Patterns.weekdays.firstIndex(of: String(name.lowercased().prefix(3))) {
            // The next such day after today: "on Monday" said on a Monday means a week on.
            when.day = { today in
                let ahead = (target - today.weekday.rawValue + 7) % 7
                return today.adding(days: ahead == 0 ? 7 : ahead)
            }
            when.cut(Patterns.weekday)
        }
        if let match = Patterns.clockWithMeridiem.groups(in: when.remainder), let hourText = match[1], let meridiem = match[3],
           let hour = Int(hourText), (1...12).contains(hour) {
            let minute = match[2].flatMap(Int.init) ?? 0
            if minute < 60 {
                let isPM = meridiem.lowercased() == "p"
                when.secondsOfDay = ((hour % 12) + (isPM ? 12 : 0)) * 3600 + minute * 60
                when.cut(Patterns.clockWithMeridiem)
            }
        } else if let match = Patterns.clock24.groups(in: when.remainder), let hourText = match[1], let hour = Int(hourText), hour < 24 {
            let minute = match[2].flatMap(Int.init) ?? 0
            if minute < 60 {
                when.secondsOfDay = hour * 3600 + minute * 60
                when.cut(Patterns.clock24)
            }
        } else if let match = Patterns.namedTime.groups(in: when.remainder), let name = match[1] {
            when.secondsOfDay = name.lowercased() == "midnight" ? 0 : 12 * 3600
            when.cut(Patterns.namedTime)
        }
        return when
    }

    private mutating func cut(_ pattern: Patterns.Compiled) {
        if let range = pattern.firstRange(in: remainder) { remainder.replaceSubrange(range, with: " ") }
    }
}

enum Patterns {
    /// A compiled, case-insensitive pattern whose groups are read as optional strings.
    struct Compiled: Sendable {
        let regex: NSRegularExpression

        init(_ pattern: String) {
            // The patterns are literals of this file, covered by its unit tests.
            regex = try! NSRegularExpression(pattern: pattern, options: [.caseInsensitive, .dotMatchesLineSeparators])
        }

        /// Group 0 (the whole match) and each capture group; nil when there is no match.
        func groups(in text: String) -> [String?]? {
            guard let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else { return nil }
            return (0..<match.numberOfRanges).map { index in Range(match.range(at: index), in: text).map { String(text[$0]) } }
        }

        func firstRange(in text: String) -> Range<String.Index>? {
            regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)).flatMap { Range($0.range, in: text) }
        }
    }

    static let politeness = #"(?:(?:please|hey|ok|okay|also|and|can you|could you|would you|will you)[, ]+)*"#
    static let reminder = Compiled(#"^\s*\#(politeness)remind\s+(me|us|\p{L}+)\b(.*)$"#)
    static let chore = Compiled(#"^\s*\#(politeness)add\s+(?:a\s+|the\s+|another\s+)?chore\b\s*:?\s*(.+)$"#)
    static let choreForMember = Compiled(#"^\s*\#(politeness)add\s+(.+?)\s+to\s+(\p{L}+)['’]s\s+chores\b(.*)$"#)
    static let forMember = Compiled(#"\bfor\s+(\p{L}+)\b"#)
    static let calendarVerb = Compiled(#"^\s*\#(politeness)(add|put|schedule|create|book)\s+(.+)$"#)
    static let calendarPhrase = Compiled(#"\b(?:to|on|in|into)\s+(?:the|our|my)\s+(?:family\s+|shared\s+|household\s+)?calendar\b"#)
    static let message = Compiled(#"^\s*\#(politeness)(?:tell|message|text)\s+(\p{L}+)\s+(.+)$"#)

    static let relative = Compiled(#"\bin\s+(\d{1,3}|an?|one|two|three|four|five|six|ten|fifteen|twenty|thirty|forty|forty-five)\s+(minutes?|mins?|hours?|hrs?)\b"#)
    static let isoDate = Compiled(#"\b(?:on\s+)?(\d{4}-\d{2}-\d{2})\b"#)
    static let dayAfterTomorrow = Compiled(#"\b(?:the\s+)?day\s+after\s+tomorrow\b"#)
    static let tomorrow = Compiled(#"\btomorrow(?:\s+(morning|afternoon|evening|night))?\b"#)
    static let today = Compiled(#"\b(today|tonight|this\s+(morning|afternoon|evening))\b"#)
    static let weekday = Compiled(#"\b(?:on\s+|next\s+|this\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"#)
    static let clockWithMeridiem = Compiled(#"\b(?:at\s+)?(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?\s?m\b\.?"#)
    static let clock24 = Compiled(#"\bat\s+(\d{1,2})(?:[:.](\d{2}))?\b"#)
    static let namedTime = Compiled(#"\b(?:at\s+)?(noon|midday|midnight)\b"#)

    static let weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    static func partOfDay(_ name: String) -> Int? {
        switch name.lowercased() {
        case "morning": 8 * 3600
        case "afternoon": 15 * 3600
        case "evening": 18 * 3600
        case "night": 20 * 3600
        default: nil
        }
    }

    static func number(_ word: String) -> Int? {
        if let value = Int(word) { return value > 0 ? value : nil }
        let words = [
            "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "ten": 10, "fifteen": 15,
            "twenty": 20, "thirty": 30, "forty": 40, "forty-five": 45,
        ]
        return words[word.lowercased()]
    }
}
