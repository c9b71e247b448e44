import Foundation
import HearthEmbeddings
import Synchronization

/// all-MiniLM-L6-v2 on this machine. The weights (~90 MB) are read on the first `embed`, not at
/// start-up, so a process that never embeds (an idle gateway) stays small.
public final class MiniLMEmbeddingProvider: EmbeddingProvider {
    public let model = EmbeddingModel(name: MiniLMEmbedder.modelName, dimension: MiniLMEmbedder.dimension)
    private let modelDirectory: URL?
    private let loaded = Mutex<MiniLMEmbedder?>(nil)
    /// Threads one matrix product may use once the model is loaded; nil keeps one per core.
    private let threadsPerProduct: Int?
    /// The kernels' instructions; nil: `EncoderKernelPath.forThisCPU()` when the model loads.
    private let kernelPath: EncoderKernelPath?

    /// `modelDirectory` nil: found by `MiniLMEmbedder.locateModelDirectory()` when first needed.
    /// `threadsPerProduct` 1 suits a searcher (short queries, many at once); the embedding-worker's
    /// batches of long chunks gain from one thread per core (nil).
    public init(modelDirectory: URL? = nil, threadsPerProduct: Int? = nil, kernelPath: EncoderKernelPath? = nil) {
        self.modelDirectory = modelDirectory
        self.threadsPerProduct = threadsPerProduct
        self.kernelPath = kernelPath
    }

    public var isLoaded: Bool { loaded.withLock { $0 != nil } }

    func embedder() throws -> MiniLMEmbedder {
        try loaded.withLock { embedder in
            if let embedder { return embedder }
            let created = try MiniLMEmbedder(modelDirectory: modelDirectory ?? MiniLMEmbedder.locateModelDirectory(), kernelPath: kernelPath)
            if let threadsPerProduct { MiniLMEmbedder.useThreads(threadsPerProduct) }
            embedder = created
            return created
        }
    }

    public func embed(_ texts: [String]) async throws -> [[Float]] {
        guard !texts.isEmpty else { return [] }
        // Milliseconds of arithmetic: off an HTTP connection's event loop (see
        // EventLoopPinnedHTTP1Channel), onto the pool that is there for it.
        return try await withTaskExecutorPreference(globalConcurrentExecutor) {
            try embedder().embed(batch: texts)
        }
    }
}
