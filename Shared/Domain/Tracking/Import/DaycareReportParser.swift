import Foundation

/// One log read off a daycare's daily sheet, for the parent to keep, edit or drop before anything
/// is written. Times are local times of the sheet's day in minutes since midnight: the sheet names
/// neither its date nor its zone, so the caller (which knows both) turns them into instants.
public struct SuggestedLog: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Equatable, Codable, CaseIterable {
        case nap, feed, diaper, solids, medication, note
    }

    public var kind: Kind
    /// Minutes since local midnight of the sheet's day (0 ..< 1440).
    public var start: Int
    /// Minutes since local midnight, after `start`; only when the sheet gives an end (a nap's wake-up).
    public var end: Int?
    /// A bottle's volume or a liquid medicine's dose, in millilitres. Ounces are converted and
    /// rounded to whole millilitres; millilitres are kept as written (a 2.5 ml dose stays 2.5).
    public var amountMl: Double?
    /// The sheet's own words without the times. For a diaper it is exactly `wet`, `dirty` or `both`
    /// (the values a diaper log takes) when the sheet says which, so a commit can use it unchanged.
    public var details: String
    /// The 1-based line of the source the suggestion came from (a CSV record's or a JSON object's
    /// first line), so the app can show the parent what it was read from.
    public var line: Int

    public init(kind: Kind, start: Int, end: Int? = nil, amountMl: Double? = nil, details: String, line: Int) {
        self.kind = kind
        self.start = start
        self.end = end
        self.amountMl = amountMl
        self.details = details
        self.line = line
    }

    enum CodingKeys: String, CodingKey {
        case kind, start, end
        case amountMl = "amount_ml"
        case details, line
    }

    /// "14:05" for 845: how the app and the eval report show a sheet time.
    public static func clock(_ minutes: Int) -> String {
        let hours = minutes / 60, rest = minutes % 60
        return (hours < 10 ? "0" : "") + String(hours) + ":" + (rest < 10 ? "0" : "") + String(rest)
    }
}

/// How the uploaded sheet's content is laid out. PDFs and photos arrive here as `.text`, after
/// pdftotext or OCR has read them.
public enum DaycareReportFormat: String, Sendable, Equatable, CaseIterable {
    case text, csv, json
}

/// What the rules read from a sheet.
public struct DaycareParse: Sendable, Equatable {
    public var suggestions: [SuggestedLog]
    /// Lines that looked like entries (a time that is not a time, a line starting with "Bottle" but
    /// giving no time, a CSV row without a readable time) but gave no suggestion. They are reported
    /// so the app can show the parent what was skipped, rather than losing a feed without a word.
    public var unreadLines: [Int]

    public init(suggestions: [SuggestedLog] = [], unreadLines: [Int] = []) {
        self.suggestions = suggestions
        self.unreadLines = unreadLines
    }
}

/// How well a parse found a sheet's logs. A suggestion matches an expected log of the same kind
/// starting within five minutes (a sheet's "about 10:15" and the parent's 10:12 are the same
/// bottle); each log is matched at most once.
public struct ImportScore: Sendable, Equatable {
    /// Matched suggestions over all suggestions: 1 when nothing was suggested (nothing was wrong).
    public let precision: Double
    /// Matched expected logs over all expected logs: 1 when nothing was expected.
    public let recall: Double
    public let matched: Int

    public init(precision: Double, recall: Double, matched: Int) {
        self.precision = precision
        self.recall = recall
        self.matched = matched
    }

    public static let startTolerance = 5

    public static func score(expected: [SuggestedLog], actual: [SuggestedLog]) -> ImportScore {
        var matched = 0
        for kind in SuggestedLog.Kind.allCases {
            // Per kind, both sides in time order, each expected log taking the earliest unmatched
            // suggestion within the tolerance: for a fixed window this greedy pass finds the
            // largest matching, so the score does not depend on the sheet's order.
            let wanted = expected.filter { $0.kind == kind }.map(\.start).sorted()
            let found = actual.filter { $0.kind == kind }.map(\.start).sorted()
            var next = 0
            for start in wanted {
                while next < found.count, found[next] < start - startTolerance { next += 1 }
                if next < found.count, found[next] <= start + startTolerance {
                    matched += 1
                    next += 1
                }
            }
        }
        let precision = actual.isEmpty ? 1 : Double(matched) / Double(actual.count)
        let recall = expected.isEmpty ? 1 : Double(matched) / Double(expected.count)
        return ImportScore(precision: precision, recall: recall, matched: matched)
    }
}

/// Turns a daycare's daily sheet into suggested logs by rules: the fallback when no model provider
/// is configured, and the baseline the model is scored against.
///
/// Text: every line with a time is a log; its kind comes from the first kind word on the line
/// ("Nap", "Bottle", "Diaper", "Lunch", "Tylenol", ...), else from the section heading above it
/// ("NAPS" alone on a line, until the next heading or blank line), else it is a note. Times may be
/// 12- or 24-hour, with or without am/pm, joined into ranges by dashes or "to"; a line can hold
/// several entries separated by commas ("Diapers: 9:15 wet, 11:00 BM"). OCR's usual digit
/// confusions inside a time ("1O:l5") are read through.
///
/// CSV: a header row naming the columns (time or start, end, type or activity, amount, notes, and
/// their usual synonyms), quoted fields allowed. JSON: an array of entry objects with the same
/// keys, or an object holding one (`{"entries": [...]}`).
public struct DaycareReportParser: Sendable {
    /// The daycare day used to read a time without am/pm: "2:05" is 14:05 and "7:30" is 07:30,
    /// because nobody is at daycare at 02:05 or 19:30. Hours 6 to 11 are read as morning, 12 as
    /// noon, 1 to 5 as afternoon; a 24-hour time ("14:05") or a zero-padded one ("05:30") is taken
    /// as written. A range's end without am/pm is the first reading after its start ("11:30-1:15" ends
    /// at 13:15), and a start without am/pm takes the reading just before a marked end.
    public static let dayStartHour = 6
    public static let dayEndHour = 19
    public static let millilitresPerOunce = 29.5735

    public init() {}

    public func parse(_ content: String, format: DaycareReportFormat) -> DaycareParse {
        // An empty upload has nothing to report, in any format (an empty JSON file is not a
        // broken one worth pointing at).
        guard content.contains(where: { !$0.isWhitespace && $0 != "\u{FEFF}" }) else { return DaycareParse() }
        switch format {
        case .text: return TextSheet.parse(content)
        case .csv: return CSVSheet.parse(content)
        case .json: return JSONSheet.parse(content)
        }
    }
}

// MARK: - Vocabulary

/// The words that give an entry its kind. Kept small and plain: a word here that also occurs in
/// ordinary notes turns that note into a log, which the parent then has to drop.
enum SheetVocabulary {
    static let kinds: [String: SuggestedLog.Kind] = {
        var table: [String: SuggestedLog.Kind] = [:]
        let lists: [(SuggestedLog.Kind, [String])] = [
            (.nap, ["nap", "naps", "napped", "napping", "naptime", "slept", "sleep", "sleeping", "asleep", "snooze"]),
            (.feed, [
                "bottle", "bottles", "formula", "breastmilk", "milk", "nursed", "nursing", "feed", "feeds", "feeding",
                "feedings", "fed",
            ]),
            (.diaper, [
                "diaper", "diapers", "nappy", "nappies", "diapering", "bm", "bms", "poo", "poop", "poopy", "pooped", "pee",
                "peed", "wet", "dirty", "soiled",
            ]),
            (.solids, [
                "breakfast", "lunch", "snack", "snacks", "dinner", "supper", "solids", "puree", "purees", "ate", "meal",
                "meals", "cereal", "food",
            ]),
            (.medication, [
                "medication", "medications", "medicine", "meds", "med", "tylenol", "motrin", "advil", "ibuprofen",
                "acetaminophen", "paracetamol", "calpol", "nurofen", "antibiotic", "antibiotics", "amoxicillin", "dose",
                "benadryl", "zyrtec", "inhaler",
            ]),
        ]
        for (kind, words) in lists { for word in words { table[word] = kind } }
        return table
    }()

    /// Words that, next to kind words, make a line a section heading ("Diaper changes", "Meals &
    /// snacks") rather than an entry missing its time.
    static let headingWords: Set<String> = [
        "and", "times", "time", "log", "logs", "change", "changes", "changed", "schedule", "record", "records", "toileting",
        "the", "of", "drink", "drinks", "given", "sheet", "today", "todays", "s",
    ]
    /// Headings that end a section without starting one of a kind.
    static let noteHeadings: Set<String> = ["notes", "note", "activities", "activity", "comments", "other", "reminders", "mood"]

    static let wet: Set<String> = ["wet", "pee", "peed", "urine", "wee"]
    static let dirty: Set<String> = ["bm", "bms", "poo", "poop", "poopy", "pooped", "dirty", "soiled", "stool", "messy"]
    /// Between a nap's two times, these make them its start and end ("12:30, woke 2:05").
    static let wake: Set<String> = ["woke", "wake", "awake", "up", "until", "till", "til", "end", "ended"]
    /// Words before a time that belong to the time ("at 1:00", "@ 10:15"), dropped with it.
    static let connectors: Set<String> = ["at", "@", "from", "around", "about", "approx", "approx.", "~", "by"]

    /// Lower-case words of letters, with "b.m." read as "bm" and "#2" as a dirty diaper.
    static func words(_ text: some StringProtocol) -> [String] {
        var lowered = text.lowercased()
        lowered = lowered.replacingOccurrences(of: "b.m.", with: "bm ").replacingOccurrences(of: "#2", with: " bm ")
        // Tesseract reads "BM" as "8M".
        let spaced = lowered.split(separator: " ").map { $0.trimmingCharacters(in: .punctuationCharacters) == "8m" ? "bm" : String($0) }
        return spaced.joined(separator: " ").split(whereSeparator: { !$0.isLetter }).map(String.init)
    }

    /// The kind of the first kind word, so "Lunch 11:45, drank some milk" is solids.
    static func kind(of text: some StringProtocol) -> SuggestedLog.Kind? {
        for word in words(text) { if let kind = kinds[word] { return kind } }
        return nil
    }

    static func diaperContents(_ text: some StringProtocol, allowLetter: Bool) -> String? {
        let list = words(text)
        if list.contains("both") { return "both" }
        // "W" on its own is the sheets' shorthand for a wet diaper; only read inside a diaper entry.
        let isWet = list.contains { wet.contains($0) || (allowLetter && $0 == "w") }
        let isDirty = list.contains { dirty.contains($0) }
        switch (isWet, isDirty) {
        case (true, true): return "both"
        case (true, false): return "wet"
        case (false, true): return "dirty"
        case (false, false): return nil
        }
    }

    /// Lower-case letters and digits only: "Start Time", "start_time" and "startTime" are one key.
    static func key(_ name: String) -> String {
        String(name.lowercased().filter { $0.isLetter || $0.isNumber })
    }

    enum Column { case time, end, type, amount, unit, notes, duration, contents }

    static let columns: [String: Column] = {
        var table: [String: Column] = [:]
        let lists: [(Column, [String])] = [
            (.time, [
                "time", "start", "starttime", "startat", "startedat", "started", "from", "begin", "begins", "timein", "at",
                "when", "clock", "timestart",
            ]),
            (.end, ["end", "endtime", "endat", "endedat", "ended", "to", "until", "finish", "finished", "stop", "woke", "wokeat", "timeout", "timeend"]),
            (.type, ["type", "activity", "kind", "category", "event", "entry", "what", "item", "log", "logtype", "activitytype"]),
            (.amount, [
                "amount", "qty", "quantity", "volume", "amt", "dose", "amountoz", "amountml", "oz", "ml", "ounces", "ounce",
                "millilitres", "milliliters", "volumeoz", "volumeml",
            ]),
            (.unit, ["unit", "units", "amountunit"]),
            (.notes, ["notes", "note", "details", "detail", "comments", "comment", "description", "remarks", "observations", "memo", "text"]),
            (.duration, ["duration", "minutes", "mins", "durationminutes", "durationmin", "durationmins"]),
            (.contents, ["contents", "condition", "diapertype", "diaper"]),
        ]
        for (column, names) in lists { for name in names { table[name] = column } }
        return table
    }()
}

// MARK: - Times and amounts

enum SheetMeridiem { case am, pm }

/// A time as written, before the daycare day decides what an unmarked hour means.
struct SheetClockToken {
    var span: Range<Int>
    var hour: Int
    var minute: Int
    var meridiem: SheetMeridiem?
    /// "05:30": a leading zero says the writer means the 24-hour clock.
    var zeroPadded: Bool

    /// Could be morning or afternoon: no marker, 1 to 12, not zero-padded.
    var ambiguous: Bool { meridiem == nil && !zeroPadded && (1...12).contains(hour) }

    /// Minutes since midnight by the marker, the 24-hour clock or the daycare day.
    var minutes: Int {
        if let meridiem {
            if hour > 12 { return hour * 60 + minute }
            return (hour % 12 + (meridiem == .pm ? 12 : 0)) * 60 + minute
        }
        guard ambiguous else { return hour * 60 + minute }
        if hour == 12 || hour >= DaycareReportParser.dayStartHour { return hour * 60 + minute }
        return (hour + 12) * 60 + minute
    }

    /// The morning and afternoon readings of an ambiguous time.
    var readings: [Int] { [(hour % 12) * 60 + minute, (hour % 12 + 12) * 60 + minute] }
}

/// A start and, for a range, an end, in minutes since midnight.
struct SheetTimeSpan {
    var start: Int
    var end: Int?
}

enum SheetClock {
    /// What OCR puts for a digit; only trusted inside something shaped like a time.
    static let misreadDigits: [Character: Int] = ["O": 0, "o": 0, "l": 1, "I": 1, "|": 1]

    static func digit(_ character: Character) -> Int? {
        if character.isASCII, let value = character.wholeNumberValue { return value }
        return misreadDigits[character]
    }

    static func isRealDigit(_ character: Character) -> Bool { character.isASCII && character.isNumber }

    static func isWordCharacter(_ character: Character) -> Bool { character.isLetter || character.isNumber }

    /// The times on a line, and whether something on it was shaped like a time but is not one
    /// ("12:75", "1:3"): such a line is reported rather than half-read.
    static func scan(_ c: [Character]) -> (tokens: [SheetClockToken], unreadable: Bool) {
        var tokens: [SheetClockToken] = []
        var unreadable = false
        var i = 0
        while i < c.count {
            let boundary = i == 0 || !isWordCharacter(c[i - 1])
            if boundary, c[i].isLetter {
                var j = i
                while j < c.count, c[j].isLetter { j += 1 }
                let word = String(c[i..<j]).lowercased()
                if word == "noon" || word == "midday" {
                    tokens.append(SheetClockToken(span: i..<j, hour: 12, minute: 0, meridiem: .pm, zeroPadded: false))
                    i = j
                    continue
                }
            }
            guard boundary, digit(c[i]) != nil else {
                i += 1
                continue
            }
            var j = i
            while j < c.count, digit(c[j]) != nil { j += 1 }
            let hourCharacters = Array(c[i..<j])
            if hourCharacters.count > 2 {
                i = j
                continue
            }
            if let (token, next, valid) = clock(c, hourCharacters: hourCharacters, from: i, after: j) {
                if valid { tokens.append(token) } else { unreadable = true }
                i = next
                continue
            }
            if hourCharacters.allSatisfy(isRealDigit), let (meridiem, next) = marker(c, at: j, attached: false) {
                let hour = Int(String(hourCharacters))!
                if (1...12).contains(hour) {
                    tokens.append(SheetClockToken(span: i..<next, hour: hour, minute: 0, meridiem: meridiem, zeroPadded: false))
                } else {
                    unreadable = true
                }
                i = next
                continue
            }
            i = j
        }
        return (tokens, unreadable)
    }

    /// "H:MM" at `start` (hour characters already read up to `after`), with an optional marker.
    /// Nil when nothing time-shaped is there; `valid` false when it is time-shaped but impossible.
    private static func clock(_ c: [Character], hourCharacters: [Character], from start: Int, after: Int)
        -> (SheetClockToken, Int, Bool)?
    {
        // One space either side of the separator at most: OCR adds them ("10 :15"), and more would
        // join unrelated numbers.
        var k = after
        var spaces = 0
        if k < c.count, c[k] == " " {
            k += 1
            spaces += 1
        }
        guard k < c.count, c[k] == ":" || c[k] == ";" || c[k] == "." else { return nil }
        let separator = c[k]
        k += 1
        if spaces == 0, k < c.count, c[k] == " " { k += 1 }
        var m = k
        while m < c.count, digit(c[m]) != nil, m - k < 3 { m += 1 }
        let minuteCharacters = Array(c[k..<m])
        let all = hourCharacters + minuteCharacters
        guard all.contains(where: isRealDigit) else { return nil }
        guard minuteCharacters.count == 2, m == c.count || !isRealDigit(c[m]) else {
            // "12:3" or "12:345" after a colon is a time gone wrong; after a dot it is a decimal.
            return separator == ":" && !minuteCharacters.isEmpty && hourCharacters.allSatisfy(isRealDigit)
                ? (SheetClockToken(span: start..<m, hour: 0, minute: 0, meridiem: nil, zeroPadded: false), m, false) : nil
        }
        var hour = hourCharacters.reduce(0) { $0 * 10 + digit($1)! }
        var minute = minuteCharacters.reduce(0) { $0 * 10 + digit($1)! }
        let (meridiem, end) = marker(c, at: m, attached: true) ?? (nil, m)
        // Tesseract on a blurred sheet reads a 0 as 6, 8 or 9 ("12:65", "16:20 am"). Only where the
        // written digit is impossible is it taken back to 0: a minute's tens, or an hour's units
        // when the hour cannot be in the morning.
        if minute >= 60, [6, 8, 9].contains(minute / 10) { minute %= 10 }
        if meridiem == .am, (13...19).contains(hour), [6, 8, 9].contains(hour % 10) { hour = 10 }
        // "2.50" is a price or a dose; a dot is a time's separator only with am/pm ("1.30pm").
        if separator == ".", meridiem == nil { return nil }
        let token = SheetClockToken(
            span: start..<end, hour: hour, minute: minute, meridiem: meridiem,
            zeroPadded: hourCharacters.count == 2 && digit(hourCharacters[0]) == 0)
        let valid = minute < 60 && hour <= 23 && (meridiem == nil || hour <= 12 || meridiem == .pm)
        return (token, end, valid)
    }

    /// am/pm after a time: "am", "p.m.", " PM"; a lone "a" or "p" only when attached ("10:15a"),
    /// since "10:15 a bottle" is not a morning.
    static func marker(_ c: [Character], at position: Int, attached: Bool) -> (SheetMeridiem, Int)? {
        var q = position
        if q < c.count, c[q] == " " { q += 1 }
        let forms: [(String, SheetMeridiem)] = [("a.m.", .am), ("p.m.", .pm), ("a.m", .am), ("p.m", .pm), ("am", .am), ("pm", .pm)]
        let letters: [(String, SheetMeridiem)] = attached && q == position ? [("a", .am), ("p", .pm)] : []
        for (form, meridiem) in forms + letters {
            let end = q + form.count
            guard end <= c.count, String(c[q..<end]).lowercased() == form else { continue }
            if end < c.count, c[end].isLetter { continue }
            return (meridiem, end)
        }
        return nil
    }

    /// Between two times, what makes them a range.
    static let rangeJoiners: Set<String> = ["-", "to", "till", "til", "until", "thru", "through", "->", "~", "- to", "--"]

    static func joined(_ c: [Character], _ first: SheetClockToken, _ second: SheetClockToken) -> Bool {
        let between = String(c[first.span.upperBound..<second.span.lowerBound]).trimmingCharacters(in: .whitespaces).lowercased()
        return rangeJoiners.contains(between)
    }

    /// A range's times, each ambiguous one read against the other (see `DaycareReportParser`). Nil
    /// when the end is not after the start: the line is then reported, not guessed at.
    static func span(_ start: SheetClockToken, _ end: SheetClockToken?) -> SheetTimeSpan? {
        guard let end else { return SheetTimeSpan(start: start.minutes, end: nil) }
        var from = start.minutes
        if start.ambiguous, !end.ambiguous {
            let to = end.minutes
            if let before = start.readings.filter({ $0 < to }).max() { from = before }
        }
        var to = end.minutes
        if end.ambiguous, let after = end.readings.filter({ $0 > from }).min() { to = after }
        guard to > from else { return nil }
        return SheetTimeSpan(start: from, end: to)
    }
}

enum SheetVolumeUnit { case ounce, millilitre }

struct SheetAmountToken {
    var span: Range<Int>
    var value: Double
    var unit: SheetVolumeUnit

    var millilitres: Double {
        switch unit {
        case .ounce: return (value * DaycareReportParser.millilitresPerOunce).rounded()
        case .millilitre: return value
        }
    }
}

enum SheetAmounts {
    static let units: [(String, SheetVolumeUnit)] = [
        ("fl. oz", .ounce), ("fl oz", .ounce), ("floz", .ounce), ("ounces", .ounce), ("ounce", .ounce), ("oz", .ounce),
        ("millilitres", .millilitre), ("milliliters", .millilitre), ("mls", .millilitre), ("ml", .millilitre), ("cc", .millilitre),
        // Tesseract's readings of the units on a blurred sheet: "0z", "02" and "07" for oz, "mi",
        // "m1" and "rnl" for ml. The digit forms count only after a space ("4 02"), never inside
        // a number ("402").
        ("0z", .ounce), ("02", .ounce), ("07", .ounce), ("mi", .millilitre), ("m1", .millilitre), ("rnl", .millilitre),
    ]
    static let spacedOnly: Set<String> = ["02", "07"]

    /// Volumes on a line: a number (decimal point or comma, or a half) and a unit. OCR's misread
    /// digits are read through when a unit follows ("l20ml" is 120 ml) and a real digit is there.
    static func scan(_ c: [Character]) -> [SheetAmountToken] {
        var found: [SheetAmountToken] = []
        var i = 0
        while i < c.count {
            guard SheetClock.digit(c[i]) != nil || c[i] == "½", i == 0 || !SheetClock.isWordCharacter(c[i - 1]) else {
                i += 1
                continue
            }
            var run = i
            while run < c.count, SheetClock.digit(c[run]) != nil { run += 1 }
            // The longest run of digit-like characters that a unit follows: in "5oz" the "o" is the
            // unit's, not a zero.
            var j = run
            while j > i, !(c[i..<j].contains(where: SheetClock.isRealDigit) && followedByUnit(c, j)) { j -= 1 }
            if j == i, c[i] != "½" {
                i = max(run, i + 1)
                continue
            }
            var text = ""
            for character in c[i..<j] { text.append(String(SheetClock.digit(character)!)) }
            if j + 1 < c.count, c[j] == "." || c[j] == ",", SheetClock.isRealDigit(c[j + 1]) {
                text.append(".")
                j += 1
                while j < c.count, SheetClock.isRealDigit(c[j]) {
                    text.append(c[j])
                    j += 1
                }
            }
            var value = Double(text) ?? 0
            if j < c.count, c[j] == "½" {
                value += 0.5
                j += 1
            } else if j + 3 < c.count, c[j] == " ", String(c[j + 1...j + 3]) == "1/2" {
                value += 0.5
                j += 4
            }
            var k = j
            if k < c.count, c[k] == " " { k += 1 }
            if value > 0, let (unit, end) = unit(c, at: k) {
                found.append(SheetAmountToken(span: i..<end, value: value, unit: unit))
                i = end
            } else {
                i = max(j, i + 1)
            }
        }
        return found
    }

    /// A unit (or a decimal part) starts at `position`, after at most one space.
    private static func followedByUnit(_ c: [Character], _ position: Int) -> Bool {
        if position < c.count, c[position] == "." || c[position] == "," || c[position] == "½" { return true }
        if position + 3 < c.count, c[position] == " ", String(c[position + 1...position + 3]) == "1/2" { return true }
        let start = position < c.count && c[position] == " " ? position + 1 : position
        return unit(c, at: start) != nil
    }

    private static func unit(_ c: [Character], at position: Int) -> (SheetVolumeUnit, Int)? {
        for (name, unit) in units {
            let end = position + name.count
            guard end <= c.count, String(c[position..<end]).lowercased() == name else { continue }
            if spacedOnly.contains(name), position == 0 || c[position - 1] != " " { continue }
            var after = end
            if after < c.count, c[after] == "." { after += 1 }
            if after < c.count, SheetClock.isWordCharacter(c[after]) { continue }
            return (unit, end)
        }
        return nil
    }

    /// A CSV or JSON amount: "4 oz", "120ml", or a bare number read with the column's unit. A bare
    /// bottle volume without one is ounces up to 12 and millilitres above (no bottle is 12 ml,
    /// none is 13 oz); a bare dose without a unit is left to the parent.
    static func cell(_ text: String, unit named: SheetVolumeUnit?, kind: SuggestedLog.Kind) -> Double? {
        let characters = Array(text.trimmingCharacters(in: .whitespaces))
        // A dose is only an amount in millilitres: "1 oz" of medicine is more likely a misreading.
        if let token = scan(characters).first { return kind == .medication && token.unit == .ounce ? nil : token.millilitres }
        guard let value = Double(String(characters).replacingOccurrences(of: ",", with: ".")), value > 0 else { return nil }
        if let named {
            return kind == .medication && named == .ounce ? nil : SheetAmountToken(span: 0..<0, value: value, unit: named).millilitres
        }
        guard kind == .feed else { return nil }
        return SheetAmountToken(span: 0..<0, value: value, unit: value <= 12 ? .ounce : .millilitre).millilitres
    }

    static func unitName(_ text: String) -> SheetVolumeUnit? {
        let key = SheetVocabulary.key(text)
        if key.contains("oz") || key.contains("ounce") { return .ounce }
        if key.hasSuffix("ml") || key.contains("milli") || key == "cc" { return .millilitre }
        return nil
    }
}

// MARK: - Text

enum TextSheet {
    static func parse(_ content: String) -> DaycareParse {
        var result = DaycareParse()
        // A heading alone on a line ("NAPS") gives its kind to the untyped lines under it, until a
        // blank line or the next heading.
        var section: SuggestedLog.Kind?
        let lines = content.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (index, raw) in lines.enumerated() {
            let number = index + 1
            let c = normalize(raw)
            if c.isEmpty {
                section = nil
                continue
            }
            let (scanned, unreadable) = SheetClock.scan(c)
            let tokens = outsideParentheses(c, scanned)
            if tokens.isEmpty {
                if let heading = heading(c) {
                    section = heading.kind
                } else if unreadable || startsWithKindWord(c) {
                    result.unreadLines.append(number)
                }
                continue
            }
            if unreadable {
                result.unreadLines.append(number)
                continue
            }
            if let entries = entries(c, tokens: tokens, section: section, line: number) {
                result.suggestions += entries
            } else {
                result.unreadLines.append(number)
            }
        }
        return result
    }

    /// One space between words, dashes made "-", bullets, table rules and the stray quote OCR puts
    /// before a line gone: what OCR and word processors vary is made one form before any rule looks.
    static func normalize(_ raw: Substring) -> [Character] {
        var out: [Character] = []
        for character in raw {
            var mapped = character
            switch character {
            case "\u{2010}", "\u{2011}", "\u{2012}", "\u{2013}", "\u{2014}", "\u{2015}", "\u{2212}", "\u{2192}": mapped = "-"
            case "\t", "\u{00A0}", "\u{2007}", "\u{2009}", "\u{202F}": mapped = " "
            case "\u{FF1A}": mapped = ":"
            case "\u{2018}", "\u{2019}": mapped = "'"
            case "\u{201C}", "\u{201D}": mapped = "\""
            default: break
            }
            if mapped == " ", out.last == " " || out.isEmpty { continue }
            out.append(mapped)
        }
        while out.last == " " { out.removeLast() }
        let bullets: Set<Character> = ["•", "*", "·", "▪", "‣", "◦", "●", "○", "□", "☐", "■", "✓", "✔", ">", "|", "¢", "'", "`"]
        while let first = out.first, bullets.contains(first) || (first == "-" && out.count > 1 && out[1] == " ") {
            out.removeFirst()
            while out.first == " " { out.removeFirst() }
        }
        return out
    }

    /// A time in brackets is part of a remark ("Calpol 5ml at 13:00 (temp 38.1 at 12:55)"), not
    /// the entry's time, unless the entry has no other ("Nap (12:30-2:05)").
    static func outsideParentheses(_ c: [Character], _ tokens: [SheetClockToken]) -> [SheetClockToken] {
        var depth = Array(repeating: 0, count: c.count)
        var level = 0
        for (index, character) in c.enumerated() {
            if character == "(" || character == "[" { level += 1 }
            depth[index] = level
            if character == ")" || character == "]" { level = max(0, level - 1) }
        }
        let outside = tokens.filter { depth[$0.span.lowerBound] == 0 }
        return outside.isEmpty ? tokens : outside
    }

    struct Heading { var kind: SuggestedLog.Kind? }

    /// A short line of kind words ("Naps", "Diaper changes", "MEALS & SNACKS") or a short label
    /// ending in a colon or in capitals ("NOTES", "Activities:").
    static func heading(_ c: [Character]) -> Heading? {
        guard !c.contains(where: SheetClock.isRealDigit) else { return nil }
        let words = SheetVocabulary.words(String(c))
        guard !words.isEmpty, words.count <= 4 else { return nil }
        let kinds = words.compactMap { SheetVocabulary.kinds[$0] }
        if !kinds.isEmpty, words.allSatisfy({ SheetVocabulary.kinds[$0] != nil || SheetVocabulary.headingWords.contains($0) }) {
            return Heading(kind: kinds[0])
        }
        let text = String(c)
        if words.allSatisfy(SheetVocabulary.noteHeadings.contains) || text.hasSuffix(":") || (text == text.uppercased() && text != text.lowercased()) {
            return Heading(kind: nil)
        }
        return nil
    }

    static func startsWithKindWord(_ c: [Character]) -> Bool {
        guard let first = SheetVocabulary.words(String(c)).first else { return false }
        return SheetVocabulary.kinds[first] != nil
    }

    /// A time or a range, with where it sits on the line.
    struct Expression {
        var first: SheetClockToken
        var last: SheetClockToken?
        var span: Range<Int> { first.span.lowerBound..<(last ?? first).span.upperBound }
    }

    /// The suggestions on one line, or nil when it cannot be read as a whole.
    static func entries(_ c: [Character], tokens: [SheetClockToken], section: SuggestedLog.Kind?, line: Int) -> [SuggestedLog]? {
        var expressions: [Expression] = []
        for token in tokens {
            if let previous = expressions.last, previous.last == nil, SheetClock.joined(c, previous.first, token) {
                expressions[expressions.count - 1].last = token
            } else {
                expressions.append(Expression(first: token, last: nil))
            }
        }
        let lineKind = SheetVocabulary.kind(of: String(c)) ?? section
        // "Nap 12:30, woke 2:05": a nap's two times are its start and end when nothing but a wake
        // word (or nothing) stands between them.
        if expressions.count == 2, lineKind == .nap, expressions[0].last == nil, expressions[1].last == nil {
            let text = String(c[expressions[0].span.upperBound..<expressions[1].span.lowerBound])
            let between = SheetVocabulary.words(text)
            // "Naps: 9:30, 12:45" is two naps: a bare comma separates, a wake word joins.
            if between.isEmpty ? !text.contains(where: { $0 == "," || $0 == ";" }) : between.allSatisfy(SheetVocabulary.wake.contains) {
                expressions = [Expression(first: expressions[0].first, last: expressions[1].first)]
            }
        }
        let amounts = SheetAmounts.scan(c)
        if expressions.count == 1 {
            let entry = suggestion(c, range: 0..<c.count, expression: expressions[0], amounts: amounts, kind: lineKind, line: line)
            return entry.map { [$0] }
        }
        // Several entries on one line, one per comma- or semicolon-separated part ("Diapers: 9:15 wet,
        // 11:00 BM"); a part without a time belongs to the entry before it ("11:45 pasta, peas").
        var cuts: [Int] = []
        for (index, character) in c.enumerated() where character == "," || character == ";" {
            if !tokens.contains(where: { $0.span.contains(index) }) { cuts.append(index) }
        }
        var parts: [Range<Int>] = []
        var from = 0
        for cut in cuts {
            parts.append(from..<cut)
            from = cut + 1
        }
        parts.append(from..<c.count)
        var owners: [Int: Int] = [:]
        for (index, expression) in expressions.enumerated() {
            guard let part = parts.firstIndex(where: { $0.contains(expression.span.lowerBound) }),
                parts[part].contains(expression.span.upperBound - 1), owners[part] == nil
            else { return nil }
            owners[part] = index
        }
        let label = SheetVocabulary.kind(of: String(c[0..<expressions[0].span.lowerBound])) ?? section
        var result: [SuggestedLog] = []
        let owning = owners.keys.sorted()
        for (position, part) in owning.enumerated() {
            let upper = position + 1 < owning.count ? parts[owning[position + 1]].lowerBound - 1 : c.count
            let lower = position == 0 ? 0 : parts[part].lowerBound
            let range = lower..<upper
            let kind = SheetVocabulary.kind(of: String(c[range])) ?? label
            guard let entry = suggestion(c, range: range, expression: expressions[owners[part]!], amounts: amounts, kind: kind, line: line)
            else { return nil }
            result.append(entry)
        }
        return result
    }

    static func suggestion(
        _ c: [Character], range: Range<Int>, expression: Expression, amounts: [SheetAmountToken], kind found: SuggestedLog.Kind?, line: Int
    ) -> SuggestedLog? {
        guard let span = SheetClock.span(expression.first, expression.last) else { return nil }
        let kind = found ?? .note
        let text = details(c, range: range, removing: expression.span)
        let inside = amounts.filter { range.contains($0.span.lowerBound) && !$0.span.overlaps(expression.span) }
        var amount: Double?
        switch kind {
        case .feed: amount = inside.first?.millilitres
        case .medication: amount = inside.first { $0.unit == .millilitre }?.millilitres
        default: break
        }
        var words = text
        if kind == .diaper, let contents = SheetVocabulary.diaperContents(String(c[range]), allowLetter: true) { words = contents }
        return SuggestedLog(kind: kind, start: span.start, end: span.end, amountMl: amount, details: words, line: line)
    }

    /// The entry's words without its time, the words that went with the time ("at", "@") and the
    /// punctuation left dangling ("Arrival: 7:45 - with Dad" is "Arrival: with Dad").
    static func details(_ c: [Character], range: Range<Int>, removing time: Range<Int>) -> String {
        var before = Array(c[range.lowerBound..<max(range.lowerBound, time.lowerBound)])
        let after = Array(c[min(range.upperBound, time.upperBound)..<range.upperBound])
        var beforeWords = String(before).split(separator: " ").map(String.init)
        if let last = beforeWords.last, SheetVocabulary.connectors.contains(last.lowercased()) { beforeWords.removeLast() }
        before = Array(beforeWords.joined(separator: " "))
        // A time between a kind word and its description stood for a colon ("Lunch 11:45 ate well"
        // is "Lunch: ate well"; "Arrived 7:25 with Mom" is "Arrived with Mom"). Where the sheet put
        // its own punctuation, that is kept instead.
        let afterText = String(after).trimmingCharacters(in: .whitespaces)
        let labelled = !beforeWords.contains { $0.hasSuffix(":") } && beforeWords.last.map { SheetVocabulary.kinds[$0.lowercased()] != nil } ?? false
        let joiner = labelled && afterText.first?.isLetter == true ? ": " : " "
        let words = (String(before) + joiner + afterText).split(separator: " ").map(String.init)
        let dangling = CharacterSet(charactersIn: "-:;,@~/")
        var kept: [String] = []
        for word in words {
            let isPunctuation = word.unicodeScalars.allSatisfy(dangling.contains)
            if word == "()" || word == "[]" { continue }
            if isPunctuation {
                if kept.isEmpty { continue }
                if let previous = kept.last?.unicodeScalars.last, dangling.contains(previous) { continue }
            }
            kept.append(word)
        }
        while let last = kept.last, last.unicodeScalars.allSatisfy(dangling.contains) { kept.removeLast() }
        let joined = kept.joined(separator: " ").replacingOccurrences(of: " ,", with: ",")
        return joined.trimmingCharacters(in: CharacterSet(charactersIn: " -:;,@~"))
    }
}

// MARK: - Rows (CSV and JSON)

/// One CSV record or JSON object, its values looked up by what they mean.
struct SheetRow {
    var line: Int
    var values: [SheetVocabulary.Column: String]
    /// The unit a column's name gives its amounts ("Amount (oz)").
    var amountUnit: SheetVolumeUnit?

    enum Reading {
        /// Nothing in it: a spacer row, skipped.
        case empty
        /// Words but no readable time: reported.
        case unread
        case log(SuggestedLog)
    }

    func reading() -> Reading {
        let value = { (column: SheetVocabulary.Column) in (values[column] ?? "").trimmingCharacters(in: .whitespacesAndNewlines) }
        let type = value(.type), notes = value(.notes), contents = value(.contents)
        guard !values.values.allSatisfy({ $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }) else { return .empty }
        // A type cell is the sheet's own word for the kind: one the rules do not know is a note
        // rather than a guess from the notes. Only an empty type lets the notes decide.
        let kind: SuggestedLog.Kind = type.isEmpty ? (SheetVocabulary.kind(of: notes + " " + contents) ?? .note) : (SheetVocabulary.kind(of: type) ?? .note)
        guard let span = times(value(.time), end: value(.end), duration: value(.duration)) else { return .unread }
        var amount: Double?
        if kind == .feed || kind == .medication {
            amount = SheetAmounts.cell(value(.amount), unit: SheetAmounts.unitName(value(.unit)) ?? amountUnit, kind: kind)
            // Sheets often write the dose in the notes ("Infant Tylenol 2.5 mL"); only a number with
            // its unit is taken from there.
            if amount == nil, value(.amount).isEmpty, let token = SheetAmounts.scan(Array(notes)).first,
                kind == .feed || token.unit == .millilitre
            {
                amount = token.millilitres
            }
        }
        var details = (notes.isEmpty ? type : notes).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        if kind == .diaper, let found = SheetVocabulary.diaperContents([type, contents, notes].joined(separator: " "), allowLetter: true) {
            details = found
        }
        return .log(SuggestedLog(kind: kind, start: span.start, end: span.end, amountMl: amount, details: details, line: line))
    }

    private func times(_ start: String, end: String, duration: String) -> SheetTimeSpan? {
        let first = SheetClock.scan(Array(timeOfDay(start)))
        guard !first.unreadable, let from = first.tokens.first else { return nil }
        var until: SheetClockToken?
        if !end.isEmpty {
            let second = SheetClock.scan(Array(timeOfDay(end)))
            guard !second.unreadable, let token = second.tokens.first else { return nil }
            until = token
        } else if first.tokens.count >= 2, SheetClock.joined(Array(timeOfDay(start)), from, first.tokens[1]) {
            until = first.tokens[1]
        }
        guard var span = SheetClock.span(from, until) else { return nil }
        if until == nil, let minutes = Double(duration), minutes > 0, span.start + Int(minutes) < 24 * 60 {
            span.end = span.start + Int(minutes)
        }
        return span
    }

    /// "2026-03-14T12:30:00" is read at its time of day: the sheet's date is the caller's business.
    private func timeOfDay(_ text: String) -> String {
        guard let t = text.firstIndex(where: { $0 == "T" || $0 == "t" }), t > text.startIndex,
            text[text.index(before: t)].isNumber, text.index(after: t) < text.endIndex, text[text.index(after: t)].isNumber
        else { return text }
        return String(text[text.index(after: t)...])
    }
}

enum CSVSheet {
    static func parse(_ content: String) -> DaycareParse {
        let records = CSVSheet.records(content)
        // The header is the first record naming a time column; a title row above it is skipped.
        guard let headerIndex = records.prefix(5).firstIndex(where: { $0.fields.contains { SheetVocabulary.columns[SheetVocabulary.key($0)] == .time } })
        else {
            // No header at all: the rows are still lines with times in them.
            return TextSheet.parse(content)
        }
        var columns: [Int: SheetVocabulary.Column] = [:]
        var amountUnit: SheetVolumeUnit?
        for (index, name) in records[headerIndex].fields.enumerated() {
            guard let column = SheetVocabulary.columns[SheetVocabulary.key(name)], !columns.values.contains(column) else { continue }
            columns[index] = column
            if column == .amount { amountUnit = SheetAmounts.unitName(name) }
        }
        var result = DaycareParse()
        for record in records[(headerIndex + 1)...] {
            var values: [SheetVocabulary.Column: String] = [:]
            for (index, field) in record.fields.enumerated() {
                if let column = columns[index] { values[column] = field }
            }
            switch SheetRow(line: record.line, values: values, amountUnit: amountUnit).reading() {
            case .empty: continue
            case .unread: result.unreadLines.append(record.line)
            case .log(let log): result.suggestions.append(log)
            }
        }
        return result
    }

    struct Record {
        var line: Int
        var fields: [String]
    }

    /// Records with the line each starts on. Quoted fields may hold the delimiter, doubled quotes
    /// and line breaks. The delimiter is whichever of comma, semicolon and tab the first line
    /// uses most (spreadsheets in comma-decimal locales write semicolons).
    static func records(_ content: String) -> [Record] {
        var text = Substring(content)
        if text.first == "\u{FEFF}" { text = text.dropFirst() }
        let firstLine = text.prefix { !$0.isNewline }
        let delimiter: Character = [",", ";", "\t"].max { a, b in firstLine.filter { $0 == a }.count < firstLine.filter { $0 == b }.count }!
        var records: [Record] = []
        var fields: [String] = []
        var field = ""
        var quoted = false
        var fieldStarted = false
        var line = 1
        var recordLine = 1
        var characters = Array(text)
        characters.append("\n")
        var i = 0
        func endRecord() {
            fields.append(field)
            if !fields.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
                records.append(Record(line: recordLine, fields: fields))
            }
            fields = []
            field = ""
            fieldStarted = false
        }
        while i < characters.count {
            let character = characters[i]
            if quoted {
                if character == "\"" {
                    if i + 1 < characters.count, characters[i + 1] == "\"" {
                        field.append("\"")
                        i += 1
                    } else {
                        quoted = false
                    }
                } else {
                    if character.isNewline { line += 1 }
                    field.append(character)
                }
            } else if character == "\"", !fieldStarted || field.allSatisfy({ $0 == " " }) {
                field = ""
                quoted = true
                fieldStarted = true
            } else if character == delimiter {
                fields.append(field)
                field = ""
                fieldStarted = false
            } else if character.isNewline {
                endRecord()
                line += 1
                recordLine = line
            } else {
                field.append(character)
                fieldStarted = true
            }
            i += 1
        }
        return records
    }
}

// MARK: - JSON

enum JSONSheet {
    static func parse(_ content: String) -> DaycareParse {
        var reader = SheetJSONReader(content)
        let root: SheetJSONReader.Node
        do {
            root = try reader.document()
        } catch {
            // Not JSON after all: nothing to suggest, and the line where reading stopped.
            return DaycareParse(suggestions: [], unreadLines: [error.line])
        }
        var result = DaycareParse()
        for element in entries(root) {
            guard case .object(let members) = element.value else {
                result.unreadLines.append(element.line)
                continue
            }
            var values: [SheetVocabulary.Column: String] = [:]
            var amountUnit: SheetVolumeUnit?
            for (name, value) in members {
                guard let column = SheetVocabulary.columns[SheetVocabulary.key(name)], values[column] == nil, let text = value.text else { continue }
                values[column] = text
                if column == .amount { amountUnit = SheetAmounts.unitName(name) }
            }
            switch SheetRow(line: element.line, values: values, amountUnit: amountUnit).reading() {
            case .empty: continue
            case .unread: result.unreadLines.append(element.line)
            case .log(let log): result.suggestions.append(log)
            }
        }
        return result
    }

    static let wrappers = ["entries", "logs", "events", "activities", "items", "records", "report", "data"]

    /// The entries: the root array, or the array an object keeps them under ("entries", or the
    /// first array of objects), or a root object that is itself one entry.
    static func entries(_ root: SheetJSONReader.Node) -> [SheetJSONReader.Node] {
        switch root.value {
        case .array(let elements): return elements
        case .object(let members):
            for wrapper in wrappers {
                if let found = members.first(where: { SheetVocabulary.key($0.0) == wrapper }), case .array(let elements) = found.1.value {
                    return elements
                }
            }
            for (_, member) in members {
                if case .array(let elements) = member.value, elements.contains(where: { if case .object = $0.value { true } else { false } }) {
                    return elements
                }
            }
            return [root]
        default: return [root]
        }
    }
}

/// A small JSON reader that keeps the line each value starts on, which Foundation's does not: a
/// suggestion points the parent at the object it was read from.
struct SheetJSONReader {
    struct Node {
        var line: Int
        var value: Value

        /// A value as a cell's text: strings as they are, numbers without a needless ".0".
        var text: String? {
            switch value {
            case .string(let text): return text
            case .number(let number): return number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
            default: return nil
            }
        }
    }

    indirect enum Value {
        case object([(String, Node)])
        case array([Node])
        case string(String)
        case number(Double)
        case bool(Bool)
        case null
    }

    struct Failure: Error {
        var line: Int
    }

    private let scalars: [Unicode.Scalar]
    private var position = 0
    private var line = 1

    init(_ text: String) {
        var scalars = Array(text.unicodeScalars)
        if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
        self.scalars = scalars
    }

    mutating func document() throws(Failure) -> Node {
        let node = try value(depth: 0)
        skipSpace()
        guard position == scalars.count else { throw Failure(line: line) }
        return node
    }

    private mutating func skipSpace() {
        while position < scalars.count, [" ", "\t", "\n", "\r"].contains(scalars[position]) {
            if scalars[position] == "\n" { line += 1 }
            position += 1
        }
    }

    private mutating func value(depth: Int) throws(Failure) -> Node {
        // Sheets are flat; the limit keeps a hostile upload from exhausting the stack.
        guard depth < 64 else { throw Failure(line: line) }
        skipSpace()
        guard position < scalars.count else { throw Failure(line: line) }
        let start = line
        switch scalars[position] {
        case "{":
            position += 1
            var members: [(String, Node)] = []
            skipSpace()
            if position < scalars.count, scalars[position] == "}" {
                position += 1
                return Node(line: start, value: .object(members))
            }
            while true {
                skipSpace()
                let name = try string()
                skipSpace()
                try expect(":")
                members.append((name, try value(depth: depth + 1)))
                skipSpace()
                if try separator(closing: "}") { break }
            }
            return Node(line: start, value: .object(members))
        case "[":
            position += 1
            var elements: [Node] = []
            skipSpace()
            if position < scalars.count, scalars[position] == "]" {
                position += 1
                return Node(line: start, value: .array(elements))
            }
            while true {
                elements.append(try value(depth: depth + 1))
                skipSpace()
                if try separator(closing: "]") { break }
            }
            return Node(line: start, value: .array(elements))
        case "\"":
            return Node(line: start, value: .string(try string()))
        case "t":
            try literal("true")
            return Node(line: start, value: .bool(true))
        case "f":
            try literal("false")
            return Node(line: start, value: .bool(false))
        case "n":
            try literal("null")
            return Node(line: start, value: .null)
        default:
            return Node(line: start, value: .number(try number()))
        }
    }

    /// After a member or element: true at the closing bracket, false after a comma.
    private mutating func separator(closing: Unicode.Scalar) throws(Failure) -> Bool {
        guard position < scalars.count else { throw Failure(line: line) }
        let next = scalars[position]
        position += 1
        if next == closing { return true }
        if next == "," { return false }
        throw Failure(line: line)
    }

    private mutating func expect(_ scalar: Unicode.Scalar) throws(Failure) {
        guard position < scalars.count, scalars[position] == scalar else { throw Failure(line: line) }
        position += 1
    }

    private mutating func literal(_ word: String) throws(Failure) {
        for scalar in word.unicodeScalars { try expect(scalar) }
    }

    private mutating func number() throws(Failure) -> Double {
        let start = position
        while position < scalars.count, "+-0123456789.eE".unicodeScalars.contains(scalars[position]) { position += 1 }
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars[start..<position])
        guard let number = Double(text), number.isFinite else { throw Failure(line: line) }
        return number
    }

    private mutating func string() throws(Failure) -> String {
        try expect("\"")
        var text = String.UnicodeScalarView()
        while true {
            guard position < scalars.count else { throw Failure(line: line) }
            let scalar = scalars[position]
            position += 1
            switch scalar {
            case "\"":
                return String(text)
            case "\\":
                guard position < scalars.count else { throw Failure(line: line) }
                let escape = scalars[position]
                position += 1
                switch escape {
                case "\"", "\\", "/": text.append(escape)
                case "n": text.append("\n")
                case "t": text.append("\t")
                case "r": text.append("\r")
                case "b": text.append("\u{08}")
                case "f": text.append("\u{0C}")
                case "u":
                    var code = try hex()
                    if (0xD800..<0xDC00).contains(code), position + 1 < scalars.count, scalars[position] == "\\", scalars[position + 1] == "u" {
                        position += 2
                        let low = try hex()
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    text.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                default: throw Failure(line: line)
                }
            case "\n":
                throw Failure(line: line)
            default:
                text.append(scalar)
            }
        }
    }

    private mutating func hex() throws(Failure) -> UInt32 {
        guard position + 4 <= scalars.count else { throw Failure(line: line) }
        var code: UInt32 = 0
        for scalar in scalars[position..<(position + 4)] {
            guard let digit = Character(scalar).hexDigitValue else { throw Failure(line: line) }
            code = code * 16 + UInt32(digit)
        }
        position += 4
        return code
    }
}
