import Crypto
import Foundation
import HearthDomain
import HearthRuntime
import Logging
import PostgresNIO
import HearthEvents

/// Guided audio: a script spoken by espeak-ng (Debian, installed by `make setup`) into a WAV
/// recording, kept in `wellbeing_audio` by the script's hash so the same script is spoken once,
/// whoever asks and however often.
struct GuidedAudio: Sendable {
    let client: PostgresClient
    let tools: ToolRunner
    let logger: Logger

    /// The voice's words per minute, part of the hash: a change of speed is a new recording.
    static let wordsPerMinute = 150
    static let voice = "en-us"

    struct Recording: Sendable {
        var audio: Data
        var durationSec: Double
    }

    /// SHA-256 of what decides the sound: the script, the voice and the speed.
    static func hash(of script: AudioScript) -> String {
        let canonical = "\(script.canonicalText)\nvoice=\(voice) wpm=\(wordsPerMinute)\n"
        return Hex.encode(SHA256.hash(data: Data(canonical.utf8)))
    }

    /// The stored recording of `hash`, else the script spoken now and stored.
    func recording(of script: AudioScript, hash: String) async throws -> Recording {
        let rows = try await client.query("SELECT audio, duration_sec FROM wellbeing_audio WHERE script_hash = \(hash)", logger: logger)
        for try await (audio, duration) in rows.decode((Data, Double).self) { return Recording(audio: audio, durationSec: duration) }
        let spoken = try await tools.run(
            "espeak-ng", ["-m", "-v", Self.voice, "-s", String(Self.wordsPerMinute), "-f", "{in}", "-w", "{out}"],
            input: Data(SpeechMarkup.ssml(for: script).utf8), inputExtension: "xml", outputExtension: "wav")
        guard let audio = spoken.output, let duration = Self.wavDuration(audio) else {
            throw APIError(.serviceUnavailable, code: "speech_unavailable", message: "the recording could not be made; try again shortly")
        }
        try await client.query(
            """
            INSERT INTO wellbeing_audio (script_hash, audio, duration_sec) VALUES (\(hash), \(audio), \(duration))
            ON CONFLICT (script_hash) DO NOTHING
            """, logger: logger)
        return Recording(audio: audio, durationSec: duration)
    }

    /// Seconds of sound in a PCM WAV file: the `data` chunk's size over the `fmt` chunk's byte
    /// rate. Nil for anything else. espeak-ng writes its streaming size (0x7FFFFFFF) into the
    /// header, so a size past the end of the file is read as "to the end of the file".
    static func wavDuration(_ data: Data) -> Double? {
        let bytes = [UInt8](data)
        guard bytes.count >= 44, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46], bytes[8..<12] == [0x57, 0x41, 0x56, 0x45] else { return nil }
        func uint32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        var offset = 12
        var byteRate: Int?
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = uint32(offset + 4)
            if id == "fmt ", offset + 20 <= bytes.count { byteRate = uint32(offset + 16) }
            if id == "data" {
                guard let byteRate, byteRate > 0 else { return nil }
                let available = bytes.count - offset - 8
                return Double(min(size, available)) / Double(byteRate)
            }
            offset += 8 + size + (size & 1)
        }
        return nil
    }
}
