import Foundation

/// all-MiniLM-L6-v2 sentence embeddings (384 floats, L2-normalised), computed by the kernels of
/// `Shared/CEncoderKernels`: a text's vector depends on that text alone, the same bits in any
/// batch, on any kernel path and CPU (see `encoder_kernels.h`). Load once and share: the weights are immutable and every call allocates its own
/// scratch space, so concurrent calls from several tasks or threads are safe.
///
/// ```swift
/// let embedder = try MiniLMEmbedder(modelDirectory: MiniLMEmbedder.locateModelDirectory())
/// let vector = try embedder.embed("how do I stop my toddler biting")   // 384 floats
/// ```
public final class MiniLMEmbedder: Sendable {
    public static let modelName = "all-MiniLM-L6-v2"
    public static let dimension = 384
    /// sentence-transformers' `max_seq_length` for this model, `[CLS]` and `[SEP]` included.
    public static let maxSequenceLength = 256
    /// Larger batches are run as several forward passes of at most this many tokens each,
    /// which bounds the scratch memory (about 32 × 256 tokens → ~110 MB).
    public static let maxTokensPerPass = 8192

    public let modelDirectory: URL
    /// The instructions the kernels use (`EncoderKernelPath.forThisCPU()` unless given).
    public let kernelPath: EncoderKernelPath
    public let config: BertConfig
    public let tokenizer: BertWordPieceTokenizer
    let weights: MiniLMWeights

    /// Throws `EmbeddingError.unsupportedKernel` when `kernelPath` is nil and this CPU is below
    /// the floor (or `HEARTH_ENCODER_KERNEL` names a path it cannot run), before reading the model.
    public init(modelDirectory: URL, kernelPath: EncoderKernelPath? = nil) throws {
        self.kernelPath = try kernelPath ?? EncoderKernelPath.forThisCPU()
        guard self.kernelPath.isSupported else {
            throw EmbeddingError.unsupportedKernel("this CPU (\(EncoderKernelPath.cpuModel)) cannot run the \(self.kernelPath) kernels")
        }
        self.modelDirectory = modelDirectory
        let config = try BertConfig(contentsOf: modelDirectory.appendingPathComponent("config.json"))
        guard config.hiddenSize == Self.dimension else {
            throw EmbeddingError.invalidModelFile(path: modelDirectory.path, reason: "hidden size \(config.hiddenSize), expected \(Self.dimension)")
        }
        self.config = config
        let file = try SafeTensorsFile(path: modelDirectory.appendingPathComponent("model.safetensors").path)
        self.weights = try MiniLMWeights(file: file, config: config)
        self.tokenizer = try BertWordPieceTokenizer(modelDirectory: modelDirectory)
        guard tokenizer.vocabularySize <= config.vocabSize else {
            throw EmbeddingError.invalidModelFile(path: modelDirectory.path, reason: "vocab.txt has \(tokenizer.vocabularySize) tokens, the model \(config.vocabSize)")
        }
    }

    /// How many threads (1 to 8) one layer product may use, process-wide. One per core by default;
    /// a process embedding short queries concurrently is faster with one thread per product.
    public static func useThreads(_ count: Int) {
        Kernels.productThreads.store(Kernels.usableThreads(count), ordering: .relaxed)
    }

    /// Loads the model found by `locateModelDirectory()`.
    public convenience init() throws {
        try self.init(modelDirectory: Self.locateModelDirectory())
    }

    // MARK: Public API

    /// Token ids including `[CLS]`/`[SEP]`, truncated to 256 in all (sentence-transformers' behaviour).
    public func tokenize(_ text: String) -> [Int32] {
        tokenizer.encode(text, maxLength: Self.maxSequenceLength)
    }

    public func embed(_ text: String) throws -> [Float] {
        try embed(tokenIDs: [tokenize(text)])[0]
    }

    /// Embeds all texts with one forward pass (one product per weight matrix over every token of the
    /// batch), split into several passes only beyond `maxTokensPerPass` tokens.
    public func embed(batch texts: [String]) throws -> [[Float]] {
        try embed(tokenIDs: texts.map(tokenize))
    }

    /// Embeds raw bytes. Invalid UTF-8 is replaced by U+FFFD (which the tokenizer then drops),
    /// or, with `strict`, rejected with `EmbeddingError.invalidUTF8`.
    public func embed(bytes: [UInt8], strict: Bool = false) throws -> [Float] {
        if strict, let offset = Self.firstInvalidUTF8Offset(bytes) {
            throw EmbeddingError.invalidUTF8(byteOffset: offset)
        }
        return try embed(String(decoding: bytes, as: UTF8.self))
    }

    /// Embeds already tokenized sequences (each must start with `[CLS]` and end with `[SEP]` to
    /// match sentence-transformers; ids must be in the vocabulary, at most 512 per sequence).
    public func embed(tokenIDs sequences: [[Int32]]) throws -> [[Float]] {
        for sequence in sequences {
            guard !sequence.isEmpty, sequence.count <= config.maxPositionEmbeddings else {
                throw EmbeddingError.invalidTensor(name: "input_ids", reason: "sequence length \(sequence.count) outside 1...\(config.maxPositionEmbeddings)")
            }
            if let bad = sequence.first(where: { $0 < 0 || Int($0) >= config.vocabSize }) {
                throw EmbeddingError.invalidTensor(name: "input_ids", reason: "token id \(bad) outside the vocabulary")
            }
        }
        var results: [[Float]] = []
        results.reserveCapacity(sequences.count)
        var start = 0
        while start < sequences.count {
            var end = start
            var tokens = 0
            while end < sequences.count, end == start || tokens + sequences[end].count <= Self.maxTokensPerPass {
                tokens += sequences[end].count
                end += 1
            }
            results.append(contentsOf: forward(sequences[start..<end]))
            start = end
        }
        return results
    }

    static func firstInvalidUTF8Offset(_ bytes: [UInt8]) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): offset += encoded.count
            case .error: return offset
            case .emptyInput: return nil
            }
        }
    }

    // MARK: Forward pass

    /// The BERT encoder over a packed batch: the tokens of all sequences are stacked into one
    /// `[T, H]` matrix (no padding); attention runs per (sequence, head) over that sequence's own
    /// tokens only, which is exactly what the attention mask does in a padded implementation.
    private func forward(_ sequences: ArraySlice<[Int32]>) -> [[Float]] {
        let h = config.hiddenSize, inter = config.intermediateSize
        let heads = config.numHeads, headDim = config.headDim
        let eps = config.layerNormEps
        let lengths = sequences.map(\.count)
        let total = lengths.reduce(0, +)
        let maxLength = lengths.max() ?? 0
        var offsets: [Int] = []
        offsets.reserveCapacity(lengths.count)
        var running = 0
        for length in lengths { offsets.append(running); running += length }

        let x = UnsafeMutablePointer<Float>.allocate(capacity: total * h)  // hidden state
        let qkv = UnsafeMutablePointer<Float>.allocate(capacity: total * 3 * h)
        let context = UnsafeMutablePointer<Float>.allocate(capacity: total * h)
        let attended = UnsafeMutablePointer<Float>.allocate(capacity: total * h)
        let ffn = UnsafeMutablePointer<Float>.allocate(capacity: total * inter)
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: Kernels.attentionScratchCount(length: maxLength, headDimension: headDim))
        defer {
            x.deallocate(); qkv.deallocate(); context.deallocate()
            attended.deallocate(); ffn.deallocate(); scratch.deallocate()
        }

        // Embeddings: word + token type 0 + position, then LayerNorm.
        let w = weights
        var row = 0
        for sequence in sequences {
            for (position, id) in sequence.enumerated() {
                let out = x + row * h
                let word = w.wordEmbeddings + Int(id) * h
                let pos = w.positionEmbeddings + position * h
                let type0 = w.tokenTypeEmbedding
                for j in 0..<h { out[j] = (word[j] + type0[j]) + pos[j] }
                row += 1
            }
        }
        Kernels.layerNorm(x, rows: total, width: h, gamma: w.embeddingNormGamma, beta: w.embeddingNormBeta, eps: eps)

        let scale = 1 / Float(headDim).squareRoot()
        let path = kernelPath
        for layer in w.layers {
            // Q, K, V for all tokens at once: qkv = x · Wqkvᵀ + b.
            Kernels.broadcastRows(layer.qkvBias, into: qkv, rows: total, width: 3 * h)
            Kernels.linear(total, a: x, lda: h, weight: layer.qkvWeight, path: path, c: qkv, ldc: 3 * h)

            // Scaled dot-product attention per (sequence, head).
            for (s, length) in lengths.enumerated() {
                let base = offsets[s]
                for head in 0..<heads {
                    let q = qkv + base * 3 * h + head * headDim
                    let k = q + h
                    let v = q + 2 * h
                    Kernels.attention(length: length, headDimension: headDim, scale: scale, q: q, k: k, v: v, ld: 3 * h,
                                      context: context + base * h + head * headDim, ldc: h, scratch: scratch, path: path)
                }
            }

            // attended = LayerNorm(x + context · Woᵀ + bo)
            Kernels.addRows(x, bias: layer.attentionOutBias, into: attended, rows: total, width: h)
            Kernels.linear(total, a: context, lda: h, weight: layer.attentionOutWeight, path: path, c: attended, ldc: h)
            Kernels.layerNorm(attended, rows: total, width: h, gamma: layer.attentionNormGamma, beta: layer.attentionNormBeta, eps: eps)

            // ffn = gelu(attended · Wiᵀ + bi)
            Kernels.broadcastRows(layer.intermediateBias, into: ffn, rows: total, width: inter)
            Kernels.linear(total, a: attended, lda: h, weight: layer.intermediateWeight, path: path, c: ffn, ldc: inter)
            Kernels.gelu(ffn, count: total * inter, path: path)

            // x = LayerNorm(attended + ffn · Woutᵀ + bout)
            Kernels.addRows(attended, bias: layer.outputBias, into: x, rows: total, width: h)
            Kernels.linear(total, a: ffn, lda: inter, weight: layer.outputWeight, path: path, c: x, ldc: h)
            Kernels.layerNorm(x, rows: total, width: h, gamma: layer.outputNormGamma, beta: layer.outputNormBeta, eps: eps)
        }

        // Mean pooling over each sequence's tokens, then L2 normalisation.
        var result: [[Float]] = []
        result.reserveCapacity(lengths.count)
        for (s, length) in lengths.enumerated() {
            let vector = [Float](unsafeUninitializedCapacity: h) { buffer, count in
                Kernels.meanPoolNormalized(x + offsets[s] * h, rows: length, width: h, into: buffer.baseAddress!)
                count = h
            }
            result.append(vector)
        }
        return result
    }
}
