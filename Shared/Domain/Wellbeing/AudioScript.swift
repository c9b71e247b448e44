import Foundation
import HearthContent
import HearthEvents

/// A guided audio exercise from `wellbeing/audio_scripts.json`: spoken segments, each followed by
/// a silence, rendered to speech by the caller (espeak-ng via `SpeechMarkup`).
public struct AudioScript: Codable, Sendable, Equatable {
    public struct Segment: Codable, Sendable, Equatable {
        public let text: String
        /// Whole seconds of silence after the text: room to actually take the breath the text
        /// asks for. Whole seconds because that is what the SSML break carries.
        public let pauseSeconds: Int

        public init(text: String, pauseSeconds: Int) {
            self.text = text
            self.pauseSeconds = pauseSeconds
        }

        enum CodingKeys: String, CodingKey {
            case text
            case pauseSeconds = "pause_sec"
        }
    }

    /// Kebab-case key ("urge-surfing"); `id` in the file.
    public let theme: String
    public let title: String
    public let segments: [Segment]

    public init(theme: String, title: String, segments: [Segment]) {
        self.theme = theme
        self.title = title
        self.segments = segments
    }

    enum CodingKeys: String, CodingKey {
        case theme = "id"
        case title, segments
    }

    /// All the spoken text, segments joined by a space. The title is not spoken.
    public var text: String {
        segments.map(\.text).joined(separator: " ")
    }

    public var wordCount: Int {
        Self.wordCount(of: text)
    }

    public var totalPauseSeconds: Int {
        segments.reduce(0) { $0 + $1.pauseSeconds }
    }

    /// Speaking time at `wordsPerMinute` plus every pause. espeak-ng's `-s` is words per minute, so
    /// this is close to the length of the file it writes; real speech runs a little long on long
    /// words and short on short ones. A rate below 1 is read as 1.
    public func estimatedDurationSeconds(wordsPerMinute: Int = 150) -> Double {
        Double(wordCount) / Double(max(wordsPerMinute, 1)) * 60 + Double(totalPauseSeconds)
    }

    /// Everything that changes the audio, one fact per line: a format tag, the theme, the title, then
    /// one line per segment as pause seconds, a tab, and the text. Texts hold no tabs or line
    /// breaks (the library refuses them), so the lines cannot be confused. Hash this, together
    /// with the voice and rate used, to name a cached recording: an edit to any word or pause
    /// gives a new name, while re-saving the file unchanged keeps the old one.
    public var canonicalText: String {
        var lines = ["hearth-audio-script/1", "theme\t\(theme)", "title\t\(title)"]
        for segment in segments {
            lines.append("\(segment.pauseSeconds)\t\(segment.text)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Whitespace-separated tokens that hold a letter or a digit, so a lone dash is not a word.
    public static func wordCount(of text: String) -> Int {
        text.split(whereSeparator: \.isWhitespace).filter { token in token.contains { $0.isLetter || $0.isNumber } }.count
    }
}

/// Why an audio scripts file was refused. A script that runs far too long or short would be
/// recorded and cached as it is, so the file is refused whole, naming the theme and field.
public enum AudioScriptLibraryError: Error, Equatable, Sendable, CustomStringConvertible {
    case unreadable(reason: String)
    /// A file-level field (`source`, `themes`) is missing or malformed.
    case invalidFile(field: String, reason: String)
    /// `theme` is the theme's id, or its position ("themes[2]") when it has no usable id. A
    /// segment's fields are named by position ("segments[3].pause_sec").
    case invalidTheme(theme: String, field: String, reason: String)
    /// The bundled file lacks one of `AudioScriptLibrary.requiredThemes`.
    case missingTheme(String)

    public var description: String {
        let file = AudioScriptLibrary.fileName
        switch self {
        case .unreadable(let reason):
            return "\(file): cannot read: \(reason)"
        case .invalidFile(let field, let reason):
            return "\(file): field \"\(field)\": \(reason)"
        case .invalidTheme(let theme, let field, let reason):
            return "\(file): theme \"\(theme)\", field \"\(field)\": \(reason)"
        case .missingTheme(let theme):
            return "\(file): the theme \"\(theme)\" is missing"
        }
    }
}

/// The guided audio scripts, checked on load. Pure and immutable: load once, share freely.
public struct AudioScriptLibrary: Sendable {
    public static let fileName = "audio_scripts.json"
    /// The app promises two-to-three-minute exercises; 300–420 words at 150 words a minute is
    /// two to not quite three minutes of speech before the pauses.
    public static let wordsPerScript = 300...420
    public static let estimatedSeconds: ClosedRange<Double> = 125...175
    /// Long enough for a slow breath, short enough that a listener does not think playback stopped.
    public static let pauseSeconds = 0...8
    /// The exercises the app links to by name.
    public static let requiredThemes = [
        "urge-surfing", "box-breathing", "body-scan", "cold-water-reset", "grounding-5-4-3-2-1", "self-compassion",
    ]

    /// Provenance of the file (its `source`).
    public let source: String
    /// In the file's order.
    public let themes: [AudioScript]
    private let positionByTheme: [String: Int]

    /// Parsed once per process: the file ships with the binary, so a second read could not differ.
    private static let bundledResult = Result { () throws(AudioScriptLibraryError) -> AudioScriptLibrary in
        let data: Data
        do {
            data = try HearthContent.wellbeing(fileName)
        } catch {
            throw .unreadable(reason: "\(error)")
        }
        let library = try AudioScriptLibrary(data: data)
        if let missing = requiredThemes.first(where: { library.script(theme: $0) == nil }) {
            throw .missingTheme(missing)
        }
        return library
    }

    /// The bundled `wellbeing/audio_scripts.json`, which must also hold every one of `requiredThemes`.
    public static func bundled() throws(AudioScriptLibraryError) -> AudioScriptLibrary {
        try bundledResult.get()
    }

    /// Reads and checks an audio scripts file `{"source": …, "themes": [{"id", "title", "segments"}]}`.
    public init(data: Data) throws(AudioScriptLibraryError) {
        let source: String, entries: [JSONValue]
        do {
            (source, entries) = try WellbeingContentFile.entries(of: data, list: "themes")
        } catch {
            switch error {
            case .unreadable(let reason): throw .unreadable(reason: reason)
            case .invalidFile(let field, let reason): throw .invalidFile(field: field, reason: reason)
            }
        }
        var themes: [AudioScript] = []
        var positionByTheme: [String: Int] = [:]
        for (position, entry) in entries.enumerated() {
            let script = try Self.parseTheme(entry, position: position)
            if let other = positionByTheme[script.theme] {
                throw .invalidTheme(theme: script.theme, field: "id", reason: "repeats the id of themes[\(other)]")
            }
            positionByTheme[script.theme] = position
            themes.append(script)
        }
        self.source = source
        self.themes = themes
        self.positionByTheme = positionByTheme
    }

    public func script(theme: String) -> AudioScript? {
        positionByTheme[theme].map { themes[$0] }
    }

    // MARK: - Checking

    /// The rules every script meets, whether read from the file or written by a model: a
    /// kebab-case theme, one-line title and texts, pauses of `pauseSeconds`, `wordsPerScript`
    /// words and an estimate at 150 words a minute within `estimatedSeconds`.
    public static func validate(_ script: AudioScript) throws(AudioScriptLibraryError) {
        try validate(script, label: script.theme)
    }

    /// `label` names the theme in refusals until its id is known to be usable.
    private static func validate(_ script: AudioScript, label: String) throws(AudioScriptLibraryError) {
        var label = label
        func refuse(_ field: String, _ reason: String) -> AudioScriptLibraryError {
            .invalidTheme(theme: label, field: field, reason: reason)
        }
        // One line each: line breaks and tabs would break `canonicalText`.
        func checkLine(_ text: String, _ field: String) throws(AudioScriptLibraryError) {
            guard !text.isEmpty, text == text.trimmingCharacters(in: .whitespacesAndNewlines) else {
                throw refuse(field, "must be non-empty without surrounding spaces")
            }
            guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == "\u{2028}" || $0 == "\u{2029}" })
            else {
                throw refuse(field, "must be one line, without tabs or control characters")
            }
        }

        let id = script.theme
        guard ScenarioLibrary.isKebabCase(id) else {
            throw refuse("id", "\"\(id)\" must be lower-case letters and digits joined by single hyphens")
        }
        label = id
        try checkLine(script.title, "title")
        guard !script.segments.isEmpty else { throw refuse("segments", "must be a non-empty list of segments") }
        for (index, segment) in script.segments.enumerated() {
            try checkLine(segment.text, "segments[\(index)].text")
            guard pauseSeconds.contains(segment.pauseSeconds) else {
                throw refuse(
                    "segments[\(index)].pause_sec",
                    "must be a whole number of seconds from \(pauseSeconds.lowerBound) to \(pauseSeconds.upperBound)")
            }
        }

        let words = script.wordCount
        guard wordsPerScript.contains(words) else {
            throw refuse(
                "segments", "the spoken text has \(words) words; a script needs \(wordsPerScript.lowerBound) to \(wordsPerScript.upperBound)")
        }
        let seconds = script.estimatedDurationSeconds()
        guard estimatedSeconds.contains(seconds) else {
            let shown = (seconds * 10).rounded() / 10
            throw refuse(
                "segments",
                "runs an estimated \(shown) s (\(words) words at 150 a minute plus \(script.totalPauseSeconds) s of pauses); a script needs \(Int(estimatedSeconds.lowerBound)) to \(Int(estimatedSeconds.upperBound)) s")
        }
    }

    /// Reads one theme's fields, refusing wrong types and unknown keys, then applies `validate`.
    private static func parseTheme(_ value: JSONValue, position: Int) throws(AudioScriptLibraryError) -> AudioScript {
        var label = "themes[\(position)]"
        guard case .object(let fields) = value else {
            throw .invalidTheme(theme: label, field: "-", reason: "must be a JSON object")
        }
        func refuse(_ field: String, _ reason: String) -> AudioScriptLibraryError {
            .invalidTheme(theme: label, field: field, reason: reason)
        }
        func string(_ value: JSONValue?, _ field: String) throws(AudioScriptLibraryError) -> String {
            guard let value else { throw refuse(field, "is missing") }
            guard case .string(let text) = value else { throw refuse(field, "must be a string") }
            return text
        }

        let id = try string(fields["id"], "id")
        // A usable id names the theme in every later refusal; `validate` has the final say on it.
        if ScenarioLibrary.isKebabCase(id) { label = id }
        if let unknown = fields.keys.filter({ !["id", "title", "segments"].contains($0) }).sorted().first {
            throw refuse(unknown, "is not a known field")
        }
        let title = try string(fields["title"], "title")
        guard case .array(let rawSegments)? = fields["segments"] else {
            throw refuse("segments", fields["segments"] == nil ? "is missing" : "must be a list of segments")
        }

        var segments: [AudioScript.Segment] = []
        for (index, raw) in rawSegments.enumerated() {
            let at = "segments[\(index)]"
            guard case .object(let segmentFields) = raw else { throw refuse(at, "must be a JSON object") }
            if let unknown = segmentFields.keys.filter({ !["text", "pause_sec"].contains($0) }).sorted().first {
                throw refuse("\(at).\(unknown)", "is not a known field")
            }
            let text = try string(segmentFields["text"], "\(at).text")
            guard let rawPause = segmentFields["pause_sec"] else { throw refuse("\(at).pause_sec", "is missing") }
            guard case .number(let number) = rawPause, let pause = Int(exactly: number) else {
                throw refuse(
                    "\(at).pause_sec", "must be a whole number of seconds from \(pauseSeconds.lowerBound) to \(pauseSeconds.upperBound)")
            }
            segments.append(AudioScript.Segment(text: text, pauseSeconds: pause))
        }

        let script = AudioScript(theme: id, title: title, segments: segments)
        try validate(script, label: label)
        return script
    }
}

/// Markup for the speech synthesiser.
public enum SpeechMarkup {
    /// SSML for `espeak-ng -m`: the segments in order, each followed by its pause as a
    /// `<break time="Ns"/>` (none for a pause of 0, as the sentence end already gives a short
    /// gap). The last segment's pause is kept, so the recording's length matches
    /// `estimatedDurationSeconds`. The title is not spoken.
    public static func ssml(for script: AudioScript) -> String {
        var markup = "<speak>\n"
        for segment in script.segments {
            markup += escaped(segment.text) + "\n"
            if segment.pauseSeconds > 0 {
                markup += "<break time=\"\(segment.pauseSeconds)s\"/>\n"
            }
        }
        return markup + "</speak>\n"
    }

    /// Text made safe as XML element content. Quotes need no escaping outside attributes, and
    /// leaving them keeps apostrophes ("you're") as the synthesiser expects them.
    public static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            default: result.append(character)
            }
        }
        return result
    }
}
