import Foundation
import HearthEmbeddings
import Testing

/// Fidelity against the reference implementation.
///
/// `Fixtures/minilm_reference.json` was made by `Fixtures/make_reference.py` (run it with the
/// project's `.run/venv/bin/python`): for 67 fixed inputs — short and long (beyond 256 word
/// pieces) sentences, accents, emoji, punctuation, numbers, mixed case, CJK, Korean, Arabic,
/// Devanagari, whitespace and control-character oddities, special tokens in the text, words of
/// more than 100 characters, characters newer than Unicode 8, and raw invalid UTF-8 bytes — it
/// stores the token ids of the Hugging Face `tokenizers` package (the model's tokenizer.json,
/// truncation at 256) and the embeddings of sentence-transformers (torch, CPU), which the script
/// cross-checks against an independent NumPy forward pass (`Tests/Bench/embed_reference.py`).
/// Token ids must be identical; embeddings must have cosine ≥ 0.9999.
@Suite("MiniLM fidelity")
struct MiniLMFidelityTests {
    struct Reference: Decodable {
        struct Case: Decodable {
            let text: String?
            let hex: String?
            let ids: [Int32]
            let embedding: [Float]

            var input: String { text ?? String(decoding: bytes(fromHex: hex ?? ""), as: UTF8.self) }
            var label: String { text.map { String($0.prefix(60)).debugDescription } ?? "hex \(hex ?? "")" }
        }
        let model: String
        let dimension: Int
        let cases: [Case]
    }

    static func loadReference() throws -> Reference {
        let url = try #require(Bundle.module.url(forResource: "minilm_reference", withExtension: "json", subdirectory: "Fixtures"),
                               "Fixtures/minilm_reference.json missing from the test bundle")
        return try JSONDecoder().decode(Reference.self, from: Data(contentsOf: url))
    }

    @Test("token ids equal the Hugging Face tokenizer's exactly")
    func tokenIDsMatch() throws {
        let embedder = try loadEmbedder()
        let reference = try Self.loadReference()
        #expect(reference.cases.count >= 50)
        var mismatches: [String] = []
        for item in reference.cases {
            let ids = embedder.tokenize(item.input)
            if ids != item.ids {
                mismatches.append("\(item.label): got \(ids.prefix(40)) expected \(item.ids.prefix(40))")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(reference.cases.count) cases differ:\n\(mismatches.joined(separator: "\n"))")
    }

    @Test("embeddings match the reference (cosine ≥ 0.9999), batched and single")
    func embeddingsMatch() throws {
        let embedder = try loadEmbedder()
        let reference = try Self.loadReference()
        #expect(reference.model == MiniLMEmbedder.modelName)
        #expect(reference.dimension == MiniLMEmbedder.dimension)
        let inputs = reference.cases.map(\.input)
        let batched = try embedder.embed(batch: inputs)
        var worst: (Double, String) = (2, "")
        var failures: [String] = []
        var maxDifference: Float = 0
        for (index, item) in reference.cases.enumerated() {
            let single = try embedder.embed(item.input)
            for (kind, vector) in [("batched", batched[index]), ("single", single)] {
                #expect(vector.count == MiniLMEmbedder.dimension)
                let c = cosine(vector, item.embedding)
                maxDifference = zip(vector, item.embedding).reduce(maxDifference) { max($0, abs($1.0 - $1.1)) }
                if c < worst.0 { worst = (c, "\(kind) \(item.label)") }
                if !(c >= 0.9999) { failures.append("\(kind) \(item.label): cosine \(c)") }
            }
        }
        print("MiniLM fidelity: \(reference.cases.count) cases × (batched, single), minimum cosine \(String(format: "%.9f", worst.0)) (1 − cos = \(String(format: "%.1e", 1 - worst.0)), \(worst.1)); largest component difference \(String(format: "%.1e", maxDifference))")
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }
}
