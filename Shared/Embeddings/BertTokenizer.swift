import Foundation

/// BERT uncased WordPiece tokenizer, written to produce exactly the ids of the Hugging Face
/// `tokenizers` pipeline described by the model's tokenizer.json:
///
/// 1. added (special) tokens such as `[SEP]` are matched verbatim in the raw text first;
/// 2. `BertNormalizer`: drop NUL, U+FFFD and control characters (Cc/Cf/Co/Cs except tab/LF/CR),
///    map whitespace to a space, pad CJK ideographs with spaces, strip accents (NFD, then drop
///    non-spacing marks), lower-case (per-scalar full mapping);
/// 3. `BertPreTokenizer`: split on whitespace, isolate every punctuation character;
/// 4. `WordPiece`: greedy longest match with `##` continuations; words longer than 100 scalars,
///    or with an unmatchable remainder, become `[UNK]`;
/// 5. truncation to `maxLength - 2` pieces, then `[CLS] … [SEP]`.
///
/// The Rust implementation takes its general categories (control, non-spacing mark, punctuation)
/// from tables of Unicode 8.0: characters assigned later are not controls, marks or punctuation
/// there, and we reproduce that with `Unicode.Scalar.Properties.age` plus the seven code points
/// whose category changed since (found by comparing every code point against `tokenizers`).
public struct BertWordPieceTokenizer: Sendable {
    public let clsID: Int32
    public let sepID: Int32
    public let unkID: Int32
    public let padID: Int32
    public let vocabularySize: Int

    /// Word-initial pieces by UTF-8 bytes.
    private let initialPieces: [ArraySlice<UInt8>: Int32]
    /// Continuation pieces by UTF-8 bytes, without the `##` prefix.
    private let continuationPieces: [ArraySlice<UInt8>: Int32]
    /// Special tokens matched verbatim in the raw text (content scalars, id), longest first.
    private let specialTokens: [([Unicode.Scalar], Int32)]
    private let lowercase: Bool
    private let stripAccents: Bool
    private let cleanText: Bool
    private let handleChineseChars: Bool
    private let maxInputCharsPerWord: Int
    private let continuingPrefix: [UInt8]

    /// Loads `vocab.txt` (one token a line, the line number is the id) and, when present,
    /// the normalizer / model settings and added tokens of `tokenizer.json`.
    public init(modelDirectory: URL) throws {
        let vocabURL = modelDirectory.appendingPathComponent("vocab.txt")
        guard let vocabData = FileManager.default.contents(atPath: vocabURL.path) else {
            throw EmbeddingError.invalidModelFile(path: vocabURL.path, reason: "cannot read vocabulary")
        }
        var tokens: [[UInt8]] = []
        tokens.reserveCapacity(32_000)
        vocabData.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            var line: [UInt8] = []
            for byte in raw {
                if byte == 0x0A {
                    if line.last == 0x0D { line.removeLast() }
                    tokens.append(line)
                    line.removeAll(keepingCapacity: true)
                } else {
                    line.append(byte)
                }
            }
            if !line.isEmpty { tokens.append(line) }
        }

        var settings = Settings()
        let tokenizerURL = modelDirectory.appendingPathComponent("tokenizer.json")
        if let data = FileManager.default.contents(atPath: tokenizerURL.path) {
            settings = try Settings(tokenizerJSON: data, path: tokenizerURL.path)
        }
        try self.init(vocabulary: tokens, settings: settings)
    }

    struct Settings {
        var lowercase = true
        var stripAccents: Bool?
        var cleanText = true
        var handleChineseChars = true
        var maxInputCharsPerWord = 100
        var unkToken = "[UNK]"
        var continuingPrefix = "##"
        var addedTokens: [(String, Int32)] = []

        init() {}

        init(tokenizerJSON data: Data, path: String) throws {
            guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
                throw EmbeddingError.invalidModelFile(path: path, reason: "not a JSON object")
            }
            if let normalizer = root["normalizer"] as? [String: Any] {
                if let type = normalizer["type"] as? String, type != "BertNormalizer" {
                    throw EmbeddingError.invalidModelFile(path: path, reason: "unsupported normalizer \(type)")
                }
                lowercase = (normalizer["lowercase"] as? Bool) ?? lowercase
                stripAccents = normalizer["strip_accents"] as? Bool
                cleanText = (normalizer["clean_text"] as? Bool) ?? cleanText
                handleChineseChars = (normalizer["handle_chinese_chars"] as? Bool) ?? handleChineseChars
            }
            if let model = root["model"] as? [String: Any] {
                if let type = model["type"] as? String, type != "WordPiece" {
                    throw EmbeddingError.invalidModelFile(path: path, reason: "unsupported model \(type)")
                }
                maxInputCharsPerWord = (model["max_input_chars_per_word"] as? NSNumber)?.intValue ?? maxInputCharsPerWord
                unkToken = (model["unk_token"] as? String) ?? unkToken
                continuingPrefix = (model["continuing_subword_prefix"] as? String) ?? continuingPrefix
            }
            for entry in (root["added_tokens"] as? [[String: Any]]) ?? [] {
                if let content = entry["content"] as? String, let id = (entry["id"] as? NSNumber)?.int32Value, !content.isEmpty {
                    addedTokens.append((content, id))
                }
            }
        }
    }

    init(vocabulary: [[UInt8]], settings: Settings) throws {
        var initial: [ArraySlice<UInt8>: Int32] = [:]
        var continuation: [ArraySlice<UInt8>: Int32] = [:]
        initial.reserveCapacity(vocabulary.count)
        let prefix = Array(settings.continuingPrefix.utf8)
        for (index, token) in vocabulary.enumerated() {
            let id = Int32(index)
            if initial[token[...]] == nil { initial[token[...]] = id }
            if !prefix.isEmpty, token.count > prefix.count, token.starts(with: prefix) {
                let rest = token[prefix.count...]
                if continuation[rest] == nil { continuation[rest] = id }
            }
        }
        func id(of token: String) throws -> Int32 {
            guard let id = initial[Array(token.utf8)[...]] else {
                throw EmbeddingError.invalidModelFile(path: "vocab.txt", reason: "token \(token) missing")
            }
            return id
        }
        clsID = try id(of: "[CLS]")
        sepID = try id(of: "[SEP]")
        unkID = try id(of: settings.unkToken)
        padID = (try? id(of: "[PAD]")) ?? 0
        vocabularySize = vocabulary.count
        initialPieces = initial
        continuationPieces = continuation
        var added = settings.addedTokens
        if added.isEmpty {
            added = try ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"].compactMap { name in
                initial[Array(name.utf8)[...]] == nil ? nil : (name, try id(of: name))
            }
        }
        specialTokens = added.map { (Array($0.0.unicodeScalars), $0.1) }.sorted { $0.0.count > $1.0.count }
        lowercase = settings.lowercase
        stripAccents = settings.stripAccents ?? settings.lowercase
        cleanText = settings.cleanText
        handleChineseChars = settings.handleChineseChars
        maxInputCharsPerWord = settings.maxInputCharsPerWord
        continuingPrefix = prefix
    }

    // MARK: Encoding

    /// Token ids with `[CLS]` first and `[SEP]` last, at most `maxLength` in all.
    public func encode(_ text: String, maxLength: Int = 256) -> [Int32] {
        let budget = max(0, maxLength - 2)
        var ids: [Int32] = [clsID]
        ids.reserveCapacity(min(budget, text.utf8.count + 1) + 2)
        let scalars = Array(text.unicodeScalars)
        var segmentStart = 0
        var i = 0
        // 1. split off special tokens, matched verbatim (leftmost, then longest).
        scan: while i < scalars.count, ids.count - 1 < budget {
            for (content, id) in specialTokens where scalars[i] == content[0] && i + content.count <= scalars.count {
                if scalars[i..<(i + content.count)].elementsEqual(content) {
                    encodeSegment(scalars[segmentStart..<i], into: &ids, budget: budget)
                    if ids.count - 1 < budget { ids.append(id) }
                    i += content.count
                    segmentStart = i
                    continue scan
                }
            }
            i += 1
        }
        if ids.count - 1 < budget { encodeSegment(scalars[segmentStart..<scalars.count], into: &ids, budget: budget) }
        ids.append(sepID)
        return ids
    }

    /// Normalizes, pre-tokenizes and word-pieces one stretch of text without special tokens.
    /// It is processed in chunks separated by whitespace so that a huge input stops being
    /// normalized as soon as the piece budget is spent; chunking at whitespace gives the same
    /// result as normalizing the whole stretch (whitespace is a canonical starter, so NFD never
    /// reorders across it, and it separates words anyway).
    private func encodeSegment(_ scalars: ArraySlice<Unicode.Scalar>, into ids: inout [Int32], budget: Int) {
        var chunkStart = scalars.startIndex
        var index = scalars.startIndex
        while index <= scalars.endIndex {
            if ids.count - 1 >= budget { return }
            let atBoundary = index == scalars.endIndex || isCleanWhitespace(scalars[index])
            if atBoundary {
                if chunkStart < index { encodeChunk(scalars[chunkStart..<index], into: &ids, budget: budget) }
                chunkStart = index + 1
            }
            index += 1
        }
    }

    private func encodeChunk(_ chunk: ArraySlice<Unicode.Scalar>, into ids: inout [Int32], budget: Int) {
        let normalized = normalize(chunk)
        // BertPreTokenizer: whitespace separates, punctuation stands alone.
        var word: [Unicode.Scalar] = []
        func flush() {
            if !word.isEmpty { wordPiece(word, into: &ids, budget: budget); word.removeAll(keepingCapacity: true) }
        }
        for scalar in normalized {
            if ids.count - 1 >= budget { return }
            if scalar.properties.isWhitespace {
                flush()
            } else if Self.isPunctuation(scalar) {
                flush()
                wordPiece([scalar], into: &ids, budget: budget)
            } else {
                word.append(scalar)
            }
        }
        flush()
    }

    /// A scalar that the clean-text step turns into a plain space.
    private func isCleanWhitespace(_ s: Unicode.Scalar) -> Bool {
        if s == " " || s == "\t" || s == "\n" || s == "\r" { return true }
        if s.isASCII { return false }
        return s.properties.isWhitespace && !(cleanText && Self.isControl(s))
    }

    private func normalize(_ chunk: ArraySlice<Unicode.Scalar>) -> [Unicode.Scalar] {
        var out: [Unicode.Scalar] = []
        out.reserveCapacity(chunk.count + 4)
        var allASCII = true
        for s in chunk {
            if cleanText {
                if s.value == 0 || s.value == 0xFFFD || Self.isControl(s) { continue }
                if s.properties.isWhitespace { out.append(" "); continue }
            }
            if handleChineseChars && Self.isChineseChar(s) {
                out.append(" "); out.append(s); out.append(" ")
                allASCII = false
                continue
            }
            if !s.isASCII { allASCII = false }
            out.append(s)
        }
        if allASCII {
            if lowercase {
                for i in out.indices where out[i].value >= 65 && out[i].value <= 90 {
                    out[i] = Unicode.Scalar(out[i].value + 32)!
                }
            }
            return out
        }
        if stripAccents {
            var view = String.UnicodeScalarView()
            view.append(contentsOf: out)
            let decomposed = String(view).decomposedStringWithCanonicalMapping
            out.removeAll(keepingCapacity: true)
            for s in decomposed.unicodeScalars where !Self.isNonSpacingMark(s) { out.append(s) }
        }
        if lowercase {
            var lowered: [Unicode.Scalar] = []
            lowered.reserveCapacity(out.count)
            for s in out {
                if s.isASCII {
                    lowered.append(s.value >= 65 && s.value <= 90 ? Unicode.Scalar(s.value + 32)! : s)
                } else if s.properties.changesWhenLowercased {
                    lowered.append(contentsOf: s.properties.lowercaseMapping.unicodeScalars)
                } else {
                    lowered.append(s)
                }
            }
            return lowered
        }
        return out
    }

    /// Greedy longest-match-first WordPiece over one word.
    private func wordPiece(_ word: [Unicode.Scalar], into ids: inout [Int32], budget: Int) {
        if ids.count - 1 >= budget { return }
        if word.count > maxInputCharsPerWord {
            ids.append(unkID)
            return
        }
        var bytes: [UInt8] = []
        var offsets: [Int] = [0]  // byte offset of each scalar boundary
        bytes.reserveCapacity(word.count * 2)
        offsets.reserveCapacity(word.count + 1)
        for s in word {
            bytes.append(contentsOf: UTF8.encode(s)!)
            offsets.append(bytes.count)
        }
        var pieces: [Int32] = []
        var start = 0
        while start < word.count {
            var end = word.count
            var found: Int32?
            while start < end {
                let key = bytes[offsets[start]..<offsets[end]]
                if let id = start == 0 ? initialPieces[key] : continuationPieces[key] {
                    found = id
                    break
                }
                end -= 1
            }
            guard let id = found else {
                ids.append(unkID)
                return
            }
            pieces.append(id)
            start = end
        }
        let room = budget - (ids.count - 1)
        ids.append(contentsOf: pieces.prefix(room))
    }

    // MARK: Character classes

    /// Unicode ≤ 8.0, the version of the category tables used by Hugging Face `tokenizers`.
    @inline(__always)
    private static func inUnicode8(_ s: Unicode.Scalar) -> Bool {
        guard let age = s.properties.age else { return false }
        return age.major < 8 || (age.major == 8 && age.minor == 0)
    }

    /// Cc, Cf, Co, Cs — except tab, LF and CR, which count as whitespace.
    static func isControl(_ s: Unicode.Scalar) -> Bool {
        if s == "\t" || s == "\n" || s == "\r" { return false }
        if s.value < 0x20 || s.value == 0x7F { return true }
        if s.value < 0x80 { return false }
        switch s.properties.generalCategory {
        case .control, .format, .privateUse, .surrogate: return inUnicode8(s)
        default: return false
        }
    }

    static func isNonSpacingMark(_ s: Unicode.Scalar) -> Bool {
        if s.isASCII { return false }
        switch s.value {
        case 0x1734, 0x1171E: return true  // Mn in Unicode 8.0, Mc today
        case 0x1885, 0x1886, 0xA9BD, 0x111C9: return false  // Lo / Mc / Po in Unicode 8.0, Mn today
        default: return s.properties.generalCategory == .nonspacingMark && inUnicode8(s)
        }
    }

    /// ASCII punctuation (which includes symbols such as `$+<=>^`|~`) or a Unicode P* character.
    static func isPunctuation(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        if v < 0x80 { return (33...47).contains(v) || (58...64).contains(v) || (91...96).contains(v) || (123...126).contains(v) }
        if v == 0x166D || v == 0x111C9 { return true }  // Po in Unicode 8.0, So / Mn today
        switch s.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
             .initialPunctuation, .finalPunctuation, .otherPunctuation:
            return inUnicode8(s)
        default:
            return false
        }
    }

    /// The CJK blocks of the Hugging Face BertNormalizer (note: 0x2B920, not 0x2B820).
    static func isChineseChar(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x4E00...0x9FFF, 0x3400...0x4DBF, 0x20000...0x2A6DF, 0x2A700...0x2B73F,
             0x2B740...0x2B81F, 0x2B920...0x2CEAF, 0xF900...0xFAFF, 0x2F800...0x2FA1F:
            return true
        default:
            return false
        }
    }
}
