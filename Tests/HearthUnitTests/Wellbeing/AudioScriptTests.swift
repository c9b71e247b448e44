import Foundation
import HearthDomain
import Testing

/// The guided audio scripts: the bundled file's lengths, the checks on load, the canonical text
/// recordings are keyed by, and the SSML handed to espeak-ng.
@Suite struct AudioScriptTests {
    static let bundled = Result { try AudioScriptLibrary.bundled() }

    /// A theme of `segments` segments, each `wordsPerSegment` words long, with the given pauses.
    static func theme(
        id: String = "calm-down", wordsPerSegment: Int = 110, pauses: [Any] = [5, 5, 5], extra: [String: Any] = [:]
    ) -> [String: Any] {
        let text = (1...wordsPerSegment).map { "word\($0)" }.joined(separator: " ")
        var theme: [String: Any] = [
            "id": id, "title": "Calm down",
            "segments": pauses.map { ["text": text, "pause_sec": $0] },
        ]
        theme.merge(extra) { $1 }
        return theme
    }

    static func data(_ themes: [[String: Any]]) -> Data {
        try! JSONSerialization.data(withJSONObject: ["source": "fixture", "themes": themes], options: [.sortedKeys])
    }

    static func refusal(_ themes: [[String: Any]]) -> (theme: String, field: String, reason: String)? {
        do {
            _ = try AudioScriptLibrary(data: data(themes))
            return nil
        } catch {
            guard case .invalidTheme(let theme, let field, let reason) = error else { return nil }
            return (theme, field, reason)
        }
    }

    // MARK: - The bundled file

    @Test func theBundledScriptsLoad() throws {
        let library = try Self.bundled.get()
        #expect(library.themes.count >= 6)
        #expect(library.source.contains("Hearth"))
        for theme in AudioScriptLibrary.requiredThemes {
            #expect(library.script(theme: theme)?.theme == theme)
        }
        let ids = library.themes.map(\.theme)
        #expect(Set(ids).count == ids.count)
        #expect(library.script(theme: "no-such-theme") == nil)
    }

    @Test func everyBundledScriptRunsTwoToThreeMinutes() throws {
        for script in try Self.bundled.get().themes {
            let seconds = script.estimatedDurationSeconds()
            #expect((125.0...175.0).contains(seconds), "\(script.theme): \(seconds) s")
            #expect((300...420).contains(script.wordCount), "\(script.theme): \(script.wordCount) words")
            for segment in script.segments {
                #expect((0...8).contains(segment.pauseSeconds), "\(script.theme)")
            }
        }
    }

    @Test func everyBundledScriptProducesSSML() throws {
        for script in try Self.bundled.get().themes {
            let ssml = SpeechMarkup.ssml(for: script)
            #expect(ssml.hasPrefix("<speak>"))
            #expect(ssml.hasSuffix("</speak>\n"))
            let breaks = ssml.components(separatedBy: "<break ").count - 1
            #expect(breaks == script.segments.filter { $0.pauseSeconds > 0 }.count)
        }
    }

    // MARK: - One script

    static let sample = AudioScript(
        theme: "sample", title: "Sample",
        segments: [.init(text: "Breathe in — and out.", pauseSeconds: 3), .init(text: "Fish & chips < 5 > 3", pauseSeconds: 0)])

    @Test func textAndWordCount() {
        #expect(Self.sample.text == "Breathe in — and out. Fish & chips < 5 > 3")
        // The lone dash, "&", "<" and ">" are not words; "5" and "3" are.
        #expect(Self.sample.wordCount == 8)
        #expect(AudioScript.wordCount(of: "  one\ttwo\nthree  ") == 3)
        #expect(AudioScript.wordCount(of: "") == 0)
    }

    @Test func theEstimateIsSpeakingTimePlusPauses() {
        let words = (1...150).map { "w\($0)" }.joined(separator: " ")
        let script = AudioScript(
            theme: "t", title: "T", segments: [.init(text: words, pauseSeconds: 4), .init(text: words, pauseSeconds: 6)])
        #expect(script.wordCount == 300)
        #expect(script.totalPauseSeconds == 10)
        #expect(script.estimatedDurationSeconds() == 130)
        #expect(script.estimatedDurationSeconds(wordsPerMinute: 200) == 100)
        #expect(script.estimatedDurationSeconds(wordsPerMinute: 0) == 18_010)
    }

    @Test func theCanonicalTextHasOneLinePerSegment() {
        #expect(
            Self.sample.canonicalText
                == "hearth-audio-script/1\ntheme\tsample\ntitle\tSample\n3\tBreathe in — and out.\n0\tFish & chips < 5 > 3\n")
        let slower = AudioScript(
            theme: "sample", title: "Sample",
            segments: [.init(text: "Breathe in — and out.", pauseSeconds: 4), .init(text: "Fish & chips < 5 > 3", pauseSeconds: 0)])
        #expect(slower.canonicalText != Self.sample.canonicalText)
    }

    @Test func ssmlEscapesTextAndMarksPauses() {
        let ssml = SpeechMarkup.ssml(for: Self.sample)
        #expect(ssml == "<speak>\nBreathe in — and out.\n<break time=\"3s\"/>\nFish &amp; chips &lt; 5 &gt; 3\n</speak>\n")
        #expect(SpeechMarkup.escaped("a<b&c>d 'e' \"f\"") == "a&lt;b&amp;c&gt;d 'e' \"f\"")
        #expect(!SpeechMarkup.ssml(for: Self.sample).contains("Sample"), "the title is not spoken")
    }

    @Test func aScriptRoundTripsThroughJSONWithTheFileKeys() throws {
        let data = try JSONEncoder().encode(Self.sample)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["id"] as? String == "sample")
        let segments = try #require(object["segments"] as? [[String: Any]])
        #expect(segments.first?["pause_sec"] as? Int == 3)
        #expect(try JSONDecoder().decode(AudioScript.self, from: data) == Self.sample)
    }

    // MARK: - Refusals

    @Test func aScriptWrittenElsewhereIsCheckedByTheSameRules() throws {
        for script in try Self.bundled.get().themes {
            #expect(throws: Never.self) { try AudioScriptLibrary.validate(script) }
        }
        let short = #expect(throws: AudioScriptLibraryError.self) { try AudioScriptLibrary.validate(Self.sample) }
        guard case .invalidTheme(let theme, let field, _)? = short else {
            Issue.record("expected invalidTheme, got \(String(describing: short))")
            return
        }
        #expect(theme == "sample")
        #expect(field == "segments")
        let badPause = AudioScript(
            theme: "sample", title: "Sample", segments: [.init(text: "Breathe.", pauseSeconds: 12)])
        #expect(throws: AudioScriptLibraryError.invalidTheme(
            theme: "sample", field: "segments[0].pause_sec", reason: "must be a whole number of seconds from 0 to 8")) {
            try AudioScriptLibrary.validate(badPause)
        }
    }

    @Test func theFixtureIsAccepted() throws {
        let library = try AudioScriptLibrary(data: Self.data([Self.theme()]))
        let script = try #require(library.script(theme: "calm-down"))
        #expect(script.wordCount == 330)
        #expect(script.estimatedDurationSeconds() == 147)
    }

    @Test func tooFewOrTooManyWordsAreRefused() throws {
        let short = try #require(Self.refusal([Self.theme(wordsPerSegment: 99)]))
        #expect(short.theme == "calm-down")
        #expect(short.field == "segments")
        #expect(short.reason.contains("297 words"))
        let long = try #require(Self.refusal([Self.theme(wordsPerSegment: 141)]))
        #expect(long.field == "segments")
        #expect(long.reason.contains("423 words"))
    }

    @Test func aDurationOutsideTwoToThreeMinutesIsRefused() throws {
        // 405 words is 162 s of speech; 24 s of pauses takes it past 175 s.
        let long = try #require(Self.refusal([Self.theme(wordsPerSegment: 135, pauses: [8, 8, 8])]))
        #expect(long.field == "segments")
        #expect(long.reason.contains("186"))
        // 300 words and no pauses is 120 s.
        let short = try #require(Self.refusal([Self.theme(wordsPerSegment: 100, pauses: [0, 0, 0])]))
        #expect(short.field == "segments")
        #expect(short.reason.contains("120"))
    }

    @Test func badPausesAreRefusedNamingTheSegment() throws {
        #expect(Self.refusal([Self.theme(pauses: [5, 9, 5])])?.field == "segments[1].pause_sec")
        #expect(Self.refusal([Self.theme(pauses: [5, 5, -1])])?.field == "segments[2].pause_sec")
        #expect(Self.refusal([Self.theme(pauses: [2.5, 5, 5])])?.field == "segments[0].pause_sec")
        #expect(Self.refusal([Self.theme(pauses: ["3", 5, 5])])?.field == "segments[0].pause_sec")
    }

    @Test func otherFaultsAreRefusedNamingThemeAndField() throws {
        let repeated = try #require(Self.refusal([Self.theme(), Self.theme()]))
        #expect(repeated.theme == "calm-down")
        #expect(repeated.field == "id")
        #expect(Self.refusal([Self.theme(id: "Calm Down")])?.field == "id")
        #expect(Self.refusal([Self.theme(id: "Calm Down")])?.theme == "themes[0]")
        #expect(Self.refusal([Self.theme(extra: ["title": "Two\nlines"])])?.field == "title")
        #expect(Self.refusal([Self.theme(extra: ["voice": "en"])])?.field == "voice")
        #expect(Self.refusal([Self.theme(extra: ["segments": [] as [Any]])])?.field == "segments")
        var missingText = Self.theme()
        missingText["segments"] = [["pause_sec": 3]]
        let missing = try #require(Self.refusal([missingText]))
        #expect(missing.field == "segments[0].text")
        #expect(missing.reason == "is missing")
        #expect(throws: AudioScriptLibraryError.self) { try AudioScriptLibrary(data: Data("[]".utf8)) }
    }
}
