import CEncoderKernels
import Foundation

/// Hyper-parameters read from the model's `config.json`.
public struct BertConfig: Sendable, Equatable {
    public var hiddenSize = 384
    public var numHeads = 12
    public var numLayers = 6
    public var intermediateSize = 1536
    public var layerNormEps: Float = 1e-12
    public var maxPositionEmbeddings = 512
    public var vocabSize = 30522

    public init() {}

    public init(contentsOf url: URL) throws {
        guard let data = FileManager.default.contents(atPath: url.path),
              let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else { throw EmbeddingError.invalidModelFile(path: url.path, reason: "cannot read JSON") }
        func int(_ key: String, _ fallback: Int) -> Int { (json[key] as? NSNumber)?.intValue ?? fallback }
        hiddenSize = int("hidden_size", hiddenSize)
        numHeads = int("num_attention_heads", numHeads)
        numLayers = int("num_hidden_layers", numLayers)
        intermediateSize = int("intermediate_size", intermediateSize)
        maxPositionEmbeddings = int("max_position_embeddings", maxPositionEmbeddings)
        vocabSize = int("vocab_size", vocabSize)
        layerNormEps = (json["layer_norm_eps"] as? NSNumber)?.floatValue ?? layerNormEps
        if let act = json["hidden_act"] as? String, act != "gelu" {
            throw EmbeddingError.invalidModelFile(path: url.path, reason: "hidden_act \(act) is not supported (only exact gelu)")
        }
        if let kind = json["position_embedding_type"] as? String, kind != "absolute" {
            throw EmbeddingError.invalidModelFile(path: url.path, reason: "position_embedding_type \(kind) is not supported")
        }
        // The kernels take heads of whole 8-float vectors (see `hearth_attention`).
        guard hiddenSize > 0, numHeads > 0, hiddenSize % numHeads == 0, (hiddenSize / numHeads) % 8 == 0, numLayers > 0, intermediateSize > 0 else {
            throw EmbeddingError.invalidModelFile(path: url.path, reason: "inconsistent sizes")
        }
    }

    public var headDim: Int { hiddenSize / numHeads }
}

/// A layer's weight `[outputs, inputs]` (PyTorch `Linear` layout), packed for
/// `hearth_linear_accumulate`: panels of 32 output columns in half precision (see `Kernels.linear`).
struct LinearWeight {
    let packed: UnsafePointer<UInt16>
    let outputs: Int
    let inputs: Int
}

/// The BERT weights as raw float pointers: zero-copy into the memory-mapped safetensors file
/// where possible (F32, aligned), otherwise converted copies owned by this object. Query, key and
/// value projections are concatenated (one `[3H, H]` matrix per layer) so a single product
/// computes all three. The packed copies of the layer weights (`LinearWeight.packed`, in half
/// precision, ~21 MB) are owned here too; the mapped pages they were copied from are handed back
/// to the kernel (`releaseResidentPages`), so a process does not keep both resident.
///
/// `@unchecked Sendable`: every pointer is set in `init` and only read afterwards; the memory
/// behind it is either the read-only mapping held by `file` or buffers owned (and freed in
/// `deinit`) by this object, so sharing it across threads is safe.
final class MiniLMWeights: @unchecked Sendable {
    struct Layer {
        let qkvWeight: LinearWeight  // [3H, H]
        let qkvBias: UnsafePointer<Float>  // [3H]
        let attentionOutWeight: LinearWeight  // [H, H]
        let attentionOutBias: UnsafePointer<Float>
        let attentionNormGamma: UnsafePointer<Float>
        let attentionNormBeta: UnsafePointer<Float>
        let intermediateWeight: LinearWeight  // [I, H]
        let intermediateBias: UnsafePointer<Float>  // [I]
        let outputWeight: LinearWeight  // [H, I]
        let outputBias: UnsafePointer<Float>
        let outputNormGamma: UnsafePointer<Float>
        let outputNormBeta: UnsafePointer<Float>
    }

    let config: BertConfig
    let file: SafeTensorsFile
    let wordEmbeddings: UnsafePointer<Float>  // [V, H]
    let positionEmbeddings: UnsafePointer<Float>  // [P, H]
    let tokenTypeEmbedding: UnsafePointer<Float>  // row 0 of [2, H]
    let embeddingNormGamma: UnsafePointer<Float>
    let embeddingNormBeta: UnsafePointer<Float>
    let layers: [Layer]
    /// Float copies and half-precision panels alike: all that is left to do with them is to free
    /// them in `deinit`.
    private let ownedBuffers: [UnsafeMutableRawBufferPointer]

    init(file: SafeTensorsFile, config: BertConfig) throws {
        self.config = config
        self.file = file
        var owned: [UnsafeMutableRawBufferPointer] = []
        var succeeded = false
        defer { if !succeeded { owned.forEach { $0.deallocate() } } }

        let prefix = file.tensors["bert.embeddings.word_embeddings.weight"] != nil ? "bert." : ""
        func tensor(_ name: String, _ shape: [Int]) throws -> UnsafePointer<Float> {
            let full = prefix + name
            guard let info = file.tensors[full] else {
                throw EmbeddingError.invalidTensor(name: full, reason: "missing from \(file.path)")
            }
            guard info.shape == shape else {
                throw EmbeddingError.invalidTensor(name: full, reason: "shape \(info.shape), expected \(shape)")
            }
            if let mapped = file.mappedFloats(full) { return mapped }
            let values = try file.floats(full)
            let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: values.count)
            _ = buffer.initialize(from: values)
            owned.append(UnsafeMutableRawBufferPointer(buffer))
            return UnsafePointer(buffer.baseAddress!)
        }
        /// Packs the tensor `name` `[outputs, inputs]` into `destination`. Once packed, the mapped
        /// matrix is never read: the process need not keep both copies resident.
        func pack(_ name: String, outputs: Int, inputs: Int, into destination: UnsafeMutablePointer<UInt16>) throws {
            guard hearth_linear_pack(Int32(outputs), Int32(inputs), try tensor(name, [outputs, inputs]), destination) != 0 else {
                throw EmbeddingError.invalidTensor(name: prefix + name, reason: "\(outputs) outputs, not a multiple of 32")
            }
            file.releaseResidentPages(of: prefix + name)
        }
        /// `parts` `[outputs, inputs]` tensors packed one after another: the packing of their
        /// concatenation (panels of 32 outputs each never straddle two of them).
        func linear(_ parts: [String], outputs: Int, inputs: Int) throws -> LinearWeight {
            let packed = UnsafeMutableBufferPointer<UInt16>.allocate(capacity: parts.count * outputs * inputs)
            owned.append(UnsafeMutableRawBufferPointer(packed))
            for (index, name) in parts.enumerated() {
                try pack(name, outputs: outputs, inputs: inputs, into: packed.baseAddress! + index * outputs * inputs)
            }
            return LinearWeight(packed: UnsafePointer(packed.baseAddress!), outputs: parts.count * outputs, inputs: inputs)
        }
        let h = config.hiddenSize, i = config.intermediateSize
        wordEmbeddings = try tensor("embeddings.word_embeddings.weight", [config.vocabSize, h])
        positionEmbeddings = try tensor("embeddings.position_embeddings.weight", [config.maxPositionEmbeddings, h])
        let typeInfo = file.tensors[prefix + "embeddings.token_type_embeddings.weight"]
        tokenTypeEmbedding = try tensor("embeddings.token_type_embeddings.weight", [typeInfo?.shape.first ?? 2, h])
        embeddingNormGamma = try tensor("embeddings.LayerNorm.weight", [h])
        embeddingNormBeta = try tensor("embeddings.LayerNorm.bias", [h])

        var layers: [Layer] = []
        for l in 0..<config.numLayers {
            let p = "encoder.layer.\(l)."
            let qkvParts = ["query", "key", "value"].map { p + "attention.self.\($0)" }
            let qkvBias = UnsafeMutableBufferPointer<Float>.allocate(capacity: 3 * h)
            owned.append(UnsafeMutableRawBufferPointer(qkvBias))
            for (k, part) in qkvParts.enumerated() {
                (qkvBias.baseAddress! + k * h).initialize(from: try tensor(part + ".bias", [h]), count: h)
            }
            layers.append(Layer(
                qkvWeight: try linear(qkvParts.map { $0 + ".weight" }, outputs: h, inputs: h),
                qkvBias: UnsafePointer(qkvBias.baseAddress!),
                attentionOutWeight: try linear([p + "attention.output.dense.weight"], outputs: h, inputs: h),
                attentionOutBias: try tensor(p + "attention.output.dense.bias", [h]),
                attentionNormGamma: try tensor(p + "attention.output.LayerNorm.weight", [h]),
                attentionNormBeta: try tensor(p + "attention.output.LayerNorm.bias", [h]),
                intermediateWeight: try linear([p + "intermediate.dense.weight"], outputs: i, inputs: h),
                intermediateBias: try tensor(p + "intermediate.dense.bias", [i]),
                outputWeight: try linear([p + "output.dense.weight"], outputs: h, inputs: i),
                outputBias: try tensor(p + "output.dense.bias", [h]),
                outputNormGamma: try tensor(p + "output.LayerNorm.weight", [h]),
                outputNormBeta: try tensor(p + "output.LayerNorm.bias", [h])))
        }
        self.layers = layers
        self.ownedBuffers = owned
        succeeded = true
    }

    deinit {
        ownedBuffers.forEach { $0.deallocate() }
    }
}
