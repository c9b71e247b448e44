import CEncoderKernels
import Dispatch
import Foundation
import Synchronization

/// The encoder's numeric steps over raw pointers, row-major throughout. The arithmetic is in
/// `Shared/CEncoderKernels`, built optimised in every configuration and the same bits on every
/// path (see `encoder_kernels.h`); here are the row slicing across threads and the element-wise
/// steps that need no reduction.
enum Kernels {
    /// Rows (tokens) one call of `hearth_linear_accumulate` takes. It walks the weight panels
    /// once per call and serves every row of the call from each panel while it is in cache, so
    /// more rows would push A out of L2.
    static let rowsPerKernelCall = 256
    /// Fewer rows than this are not split across threads: the second thread's start would cost
    /// more than its share of the product.
    static let minimumRowsPerThread = 64

    /// Threads one product may use: the row slices run through `DispatchQueue.concurrentPerform`.
    /// One per core (at most 8) unless `MiniLMEmbedder.useThreads` says otherwise.
    static let productThreads = Atomic<Int>(defaultProductThreads)

    static var defaultProductThreads: Int { usableThreads(ProcessInfo.processInfo.activeProcessorCount) }

    /// 1 to 8: more threads than that only wait on each other for one product.
    static func usableThreads(_ count: Int) -> Int { max(1, min(count, 8)) }

    /// A product of fewer rows than two threads' worth is split across threads by columns instead
    /// when it has at least this many multiply-adds (~20 µs on one core): a short query's products
    /// then use every core, and the split costs a few microseconds.
    static let minimumMultiplyAddsForColumnSplit = 8_000_000

    /// C[m, outputs] += A[m, inputs] · Wᵀ on up to `productThreads` threads: in slices of at most
    /// `rowsPerKernelCall` rows, or, for a few rows, in ranges of 32-column panels. Each element
    /// of C is computed by the same operations in the same order whatever the other rows and
    /// columns are, so a text embeds to the same bits alone or in a batch of any size, on any
    /// number of threads.
    static func linear(_ m: Int, a: UnsafeMutablePointer<Float>, lda: Int, weight: LinearWeight, path: EncoderKernelPath,
                       c: UnsafeMutablePointer<Float>, ldc: Int) {
        let product = SlicedProduct(path: path, a: a, lda: lda, packed: weight.packed, outputs: weight.outputs, inputs: weight.inputs, c: c, ldc: ldc)
        let available = productThreads.load(ordering: .relaxed)
        let outputs = weight.outputs
        let threads = min(available, m / minimumRowsPerThread)
        if threads <= 1, available > 1, m * outputs * weight.inputs >= minimumMultiplyAddsForColumnSplit {
            let panels = outputs / 32
            let parts = min(available, panels)
            let panelsPerPart = (panels + parts - 1) / parts
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                let first = min(panels, part * panelsPerPart), end = min(panels, (part + 1) * panelsPerPart)
                product.accumulate(rows: 0..<m, columns: first * 32..<end * 32)
            }
            return
        }
        let slices = max((m + rowsPerKernelCall - 1) / rowsPerKernelCall, threads, 1)
        let rowsPerSlice = (m + slices - 1) / slices
        @Sendable func slice(_ index: Int) -> Range<Int> { min(m, index * rowsPerSlice)..<min(m, (index + 1) * rowsPerSlice) }
        if threads > 1 {
            DispatchQueue.concurrentPerform(iterations: slices) { product.accumulate(rows: slice($0), columns: 0..<outputs) }
        } else {
            for index in 0..<slices { product.accumulate(rows: slice(index), columns: 0..<outputs) }
        }
    }

    /// One `Kernels.linear` product, handed to the threads that compute its parts.
    ///
    /// `@unchecked Sendable`: during the product A and the packed weights are only read, and each
    /// part writes its own rows or columns of C; the caller holds all three until every part is done.
    private struct SlicedProduct: @unchecked Sendable {
        let path: EncoderKernelPath
        let a: UnsafeMutablePointer<Float>
        let lda: Int
        let packed: UnsafePointer<UInt16>
        let outputs: Int
        let inputs: Int
        let c: UnsafeMutablePointer<Float>
        let ldc: Int

        /// `columns` starts and ends on a 32-column panel: the packed panels of those columns are
        /// contiguous, `columns.lowerBound · inputs` halves in.
        func accumulate(rows: Range<Int>, columns: Range<Int>) {
            guard !rows.isEmpty, !columns.isEmpty else { return }
            let accepted = hearth_linear_accumulate(
                path.code, Int32(rows.count), Int32(columns.count), Int32(inputs), a + rows.lowerBound * lda, Int32(lda),
                packed + columns.lowerBound * inputs, c + rows.lowerBound * ldc + columns.lowerBound, Int32(ldc))
            precondition(accepted != 0, "the \(path) kernel refused a \(outputs)×\(inputs) product its packer took")
        }
    }

    /// Attention of one head over one sequence (see `hearth_attention`); `scratch` holds
    /// `attentionScratchCount(length:headDimension:)` floats.
    static func attention(length: Int, headDimension: Int, scale: Float, q: UnsafePointer<Float>, k: UnsafePointer<Float>, v: UnsafePointer<Float>,
                          ld: Int, context: UnsafeMutablePointer<Float>, ldc: Int, scratch: UnsafeMutablePointer<Float>, path: EncoderKernelPath) {
        let accepted = hearth_attention(path.code, Int32(length), Int32(headDimension), scale, q, k, v, Int32(ld), context, Int32(ldc), scratch)
        precondition(accepted != 0, "the \(path) attention kernel refused head dimension \(headDimension)")
    }

    static func attentionScratchCount(length: Int, headDimension: Int) -> Int {
        hearth_attention_scratch_floats(Int32(length), Int32(headDimension))
    }

    static func gelu(_ x: UnsafeMutablePointer<Float>, count: Int, path: EncoderKernelPath) {
        precondition(hearth_gelu(path.code, x, count) != 0, "the \(path) GELU kernel does not run here")
    }

    static func layerNorm(_ x: UnsafeMutablePointer<Float>, rows: Int, width: Int, gamma: UnsafePointer<Float>, beta: UnsafePointer<Float>, eps: Float) {
        hearth_layer_norm(x, Int32(rows), Int32(width), gamma, beta, eps)
    }

    static func meanPoolNormalized(_ x: UnsafePointer<Float>, rows: Int, width: Int, into out: UnsafeMutablePointer<Float>) {
        hearth_mean_pool_normalized(x, Int32(rows), Int32(width), out)
    }

    /// Every row of `out` := `bias`.
    static func broadcastRows(_ bias: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, rows: Int, width: Int) {
        for r in 0..<rows { (out + r * width).update(from: bias, count: width) }
    }

    /// out[r] := x[r] + bias.
    static func addRows(_ x: UnsafePointer<Float>, bias: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, rows: Int, width: Int) {
        for r in 0..<rows {
            let src = x + r * width, dst = out + r * width
            for j in 0..<width { dst[j] = src[j] + bias[j] }
        }
    }
}
