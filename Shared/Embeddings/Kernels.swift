import CEncoderKernels
import COpenBLAS
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Raw-pointer numeric kernels for the encoder. Row-major matrices throughout.
enum Kernels {
    /// C = alpha · A · op(B) + beta · C with A `[m, k]`, op(B) `[k, n]`, C `[m, n]`.
    @inline(__always)
    static func sgemm(_ m: Int, _ n: Int, _ k: Int, alpha: Float = 1,
                      a: UnsafePointer<Float>, lda: Int,
                      b: UnsafePointer<Float>, ldb: Int, transB: Bool,
                      c: UnsafeMutablePointer<Float>, ldc: Int, beta: Float) {
        OpenBLASLibrary.loaded.sgemm(
            CblasRowMajor, CblasNoTrans, transB ? CblasTrans : CblasNoTrans,
            blasint(m), blasint(n), blasint(k), alpha, a, blasint(lda), b, blasint(ldb), beta, c, blasint(ldc))
    }

    @inline(__always)
    static func sgemm(_ m: Int, _ n: Int, _ k: Int, alpha: Float = 1,
                      a: UnsafeMutablePointer<Float>, lda: Int,
                      b: UnsafeMutablePointer<Float>, ldb: Int, transB: Bool,
                      c: UnsafeMutablePointer<Float>, ldc: Int, beta: Float) {
        sgemm(m, n, k, alpha: alpha, a: UnsafePointer(a), lda: lda, b: UnsafePointer(b), ldb: ldb, transB: transB, c: c, ldc: ldc, beta: beta)
    }

    @inline(__always)
    static func sgemm(_ m: Int, _ n: Int, _ k: Int, alpha: Float = 1,
                      a: UnsafeMutablePointer<Float>, lda: Int,
                      b: UnsafePointer<Float>, ldb: Int, transB: Bool,
                      c: UnsafeMutablePointer<Float>, ldc: Int, beta: Float) {
        sgemm(m, n, k, alpha: alpha, a: UnsafePointer(a), lda: lda, b: b, ldb: ldb, transB: transB, c: c, ldc: ldc, beta: beta)
    }

    /// Rows (tokens) one call of `hearth_linear_accumulate` takes. It walks the weight panels
    /// once per call and serves every row of the call from each panel while it is in cache, so
    /// more rows would push A out of L2; measured on one thread, 256 rows per call keep pace with
    /// OpenBLAS (a 60-token sentence 1.37× faster, ~440 rows 5 % slower).
    static let rowsPerKernelCall = 256
    /// Fewer rows than this are not split across threads: the second thread's start would cost
    /// more than its share of the product.
    static let minimumRowsPerThread = 64

    /// Threads one product may use: OpenBLAS's pool (set in `OpenBLASLibrary.useThreads`) or,
    /// with packed weights, the row slices run through `DispatchQueue.concurrentPerform`.
    static let productThreads = Atomic<Int>(1)

    /// C[m, outputs] += A[m, inputs] · Wᵀ.
    ///
    /// With packed weights every row count takes the kernel, in slices of rows, because each row
    /// of C is then computed by the same instructions in the same order whatever the other rows
    /// are: a text embeds to the same bits alone or in a batch of any size, so a replay of the
    /// embedding read model, which batches its chunks differently from the live worker, writes
    /// the same vectors. OpenBLAS, which picks its blocking from the matrix sizes, is only the
    /// fallback for CPUs without the kernel.
    @inline(__always)
    static func linear(_ m: Int, a: UnsafeMutablePointer<Float>, lda: Int, weight: LinearWeight,
                       c: UnsafeMutablePointer<Float>, ldc: Int) {
        if let packed = weight.packed {
            packedLinear(m, a: a, lda: lda, weight: weight, packed: packed, c: c, ldc: ldc)
            return
        }
        sgemm(m, weight.outputs, weight.inputs, a: a, lda: lda, b: weight.matrix, ldb: weight.inputs, transB: true, c: c, ldc: ldc, beta: 1)
    }

    /// The kernel over row slices of at most `rowsPerKernelCall`, on up to `productThreads`
    /// threads. The weights were packed only if `hearth_linear_pack` took their shape on this
    /// CPU, and the kernel takes exactly the shapes the packer takes.
    static func packedLinear(_ m: Int, a: UnsafeMutablePointer<Float>, lda: Int, weight: LinearWeight, packed: UnsafePointer<UInt16>,
                             c: UnsafeMutablePointer<Float>, ldc: Int) {
        let product = RowSlicedProduct(a: a, lda: lda, packed: packed, outputs: weight.outputs, inputs: weight.inputs, c: c, ldc: ldc)
        let threads = min(productThreads.load(ordering: .relaxed), m / minimumRowsPerThread)
        let slices = max((m + rowsPerKernelCall - 1) / rowsPerKernelCall, threads, 1)
        let rowsPerSlice = (m + slices - 1) / slices
        @Sendable func slice(_ index: Int) -> Range<Int> { min(m, index * rowsPerSlice)..<min(m, (index + 1) * rowsPerSlice) }
        if threads > 1 {
            DispatchQueue.concurrentPerform(iterations: slices) { product.accumulate(rows: slice($0)) }
        } else {
            for index in 0..<slices { product.accumulate(rows: slice(index)) }
        }
    }

    /// One `Kernels.packedLinear` product, handed to the threads that compute its row slices.
    ///
    /// `@unchecked Sendable`: during the product A and the packed weights are only read, and each
    /// slice writes its own rows of C; the caller holds all three until every slice is done.
    private struct RowSlicedProduct: @unchecked Sendable {
        let a: UnsafeMutablePointer<Float>
        let lda: Int
        let packed: UnsafePointer<UInt16>
        let outputs: Int
        let inputs: Int
        let c: UnsafeMutablePointer<Float>
        let ldc: Int

        func accumulate(rows range: Range<Int>) {
            let accepted = hearth_linear_accumulate(Int32(range.count), Int32(outputs), Int32(inputs), a + range.lowerBound * lda, Int32(lda),
                                                    packed, c + range.lowerBound * ldc, Int32(ldc))
            assert(accepted != 0, "the kernel refused a shape its packer took")
        }
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

    static func addRows(_ x: UnsafeMutablePointer<Float>, bias: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, rows: Int, width: Int) {
        addRows(UnsafePointer(x), bias: bias, into: out, rows: rows, width: width)
    }

    /// In-place LayerNorm of each row (biased variance, like PyTorch).
    static func layerNorm(_ x: UnsafeMutablePointer<Float>, rows: Int, width: Int,
                          gamma: UnsafePointer<Float>, beta: UnsafePointer<Float>, eps: Float) {
        let n = Float(width)
        for r in 0..<rows {
            let row = x + r * width
            let mean = sum(row, width) / n
            var variance: Float = 0
            var acc = SIMD8<Float>()
            var j = 0
            let m8 = SIMD8<Float>(repeating: mean)
            while j + 8 <= width {
                let d = load8(row + j) - m8
                acc += d * d
                j += 8
            }
            variance = acc.sum()
            while j < width { let d = row[j] - mean; variance += d * d; j += 1 }
            variance /= n
            let inv = 1 / (variance + eps).squareRoot()
            let inv8 = SIMD8<Float>(repeating: inv)
            j = 0
            while j + 8 <= width {
                let g = UnsafeRawPointer(gamma + j).loadUnaligned(as: SIMD8<Float>.self)
                let b = UnsafeRawPointer(beta + j).loadUnaligned(as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(row + j).storeBytes(of: (load8(row + j) - m8) * inv8 * g + b, as: SIMD8<Float>.self)
                j += 8
            }
            while j < width { row[j] = (row[j] - mean) * inv * gamma[j] + beta[j]; j += 1 }
        }
    }

    @inline(__always)
    static func load8(_ p: UnsafeMutablePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }

    @inline(__always)
    static func sum(_ p: UnsafeMutablePointer<Float>, _ count: Int) -> Float {
        var acc = SIMD8<Float>()
        var j = 0
        while j + 8 <= count { acc += load8(p + j); j += 8 }
        var total = acc.sum()
        while j < count { total += p[j]; j += 1 }
        return total
    }

    /// Row-wise numerically stable softmax, in place.
    static func softmaxRows(_ x: UnsafeMutablePointer<Float>, rows: Int, width: Int) {
        for r in 0..<rows {
            let row = x + r * width
            var maxValue = -Float.infinity
            for j in 0..<width { maxValue = row[j] > maxValue ? row[j] : maxValue }
            for j in 0..<width { row[j] = fastExp(row[j] - maxValue) }
            let inv = 1 / sum(row, width)
            for j in 0..<width { row[j] *= inv }
        }
    }

    /// Exact GELU, x · ½ · (1 + erf(x / √2)), in place — with `fastErf`, which agrees with the
    /// true erf to 1.5e-7 and, unlike glibc's erff, vectorises.
    /// With AVX-512 the same arithmetic runs 16 lanes at a time in `hearth_gelu`.
    static func gelu(_ x: UnsafeMutablePointer<Float>, count: Int) {
        if hearth_gelu(x, count) != 0 { return }
        portableGELU(x, count: count)
    }

    static func portableGELU(_ x: UnsafeMutablePointer<Float>, count: Int) {
        let invSqrt2: Float = 0.707_106_781_186_547_524_4
        for i in 0..<count {
            let v = x[i]
            x[i] = 0.5 * v * (1 + fastErf(v * invSqrt2))
        }
    }

    /// e^y, relative error ≤ 1.2e-7: y = n·ln2 + r with |r| ≤ ln2/2 (ln2 split in two for an exact
    /// reduction), e^r by its degree-7 Taylor polynomial, 2^n assembled in the exponent bits.
    /// Inputs are clamped to [-87, 88], so results stay normal floats. Branch-free so that loops
    /// calling it vectorise.
    @inline(__always)
    static func fastExp(_ value: Float) -> Float {
        let y = value < -87 ? -87 : (value > 88 ? 88 : value)
        let shifter: Float = 12_582_912  // 1.5 · 2^23: adding it rounds to an integer …
        let shifted = y * 1.442_695_040_888_963_4 + shifter  // … kept in the low mantissa bits
        let n = shifted - shifter
        let r = (y - n * 0.693_145_751_953_125) - n * 1.428_606_765_330_187e-6
        var p: Float = 1.0 / 5040
        p = p * r + 1.0 / 720
        p = p * r + 1.0 / 120
        p = p * r + 1.0 / 24
        p = p * r + 1.0 / 6
        p = p * r + 0.5
        p = p * r + 1
        p = p * r + 1
        let scale = Float(bitPattern: (shifted.bitPattern &+ 0xB4C0_007F) &<< 23)  // (n + 127) << 23
        return p * scale
    }

    /// erf with absolute error ≤ 1.5e-7 over all floats (coefficients fitted for this file by least
    /// squares on Chebyshev nodes): |x| < 1: x · P(x²), P of degree 6; 1 ≤ |x| ≤ 4:
    /// 1 − e^(−x²) · Q(1/x), Q of degree 9; beyond 4, erf is ±1 to float precision.
    @inline(__always)
    static func fastErf(_ x: Float) -> Float {
        let absolute = Float(bitPattern: x.bitPattern & 0x7FFF_FFFF)
        let ax = absolute > 4 ? 4 : absolute
        let t = ax * ax
        var p: Float = 7.8824971062e-05
        p = p * t - 8.0188549917e-04
        p = p * t + 5.1893119426e-03
        p = p * t - 2.6854328796e-02
        p = p * t + 1.1283597463e-01
        p = p * t - 3.7612626904e-01
        p = p * t + 1.1283791659e+00
        let small = ax * p
        let s = 1 / (ax < 1 ? 1 : ax)
        var q: Float = 2.8223217469e-02
        q = q * s - 1.6586221705e-01
        q = q * s + 4.0480200740e-01
        q = q * s - 4.9102227590e-01
        q = q * s + 1.9884866688e-01
        q = q * s + 2.5239911727e-01
        q = q * s - 3.8380051463e-01
        q = q * s + 2.2321134458e-02
        q = q * s + 5.6154093274e-01
        q = q * s + 1.3351183100e-04
        let large = 1 - fastExp(-t) * q
        let magnitude = ax < 1 ? small : large
        return Float(bitPattern: magnitude.bitPattern | (x.bitPattern & 0x8000_0000))
    }

    /// Mean of `rows` rows, L2-normalised (norm clamped at 1e-12 like torch's F.normalize).
    static func meanPoolNormalized(_ x: UnsafeMutablePointer<Float>, rows: Int, width: Int, into out: UnsafeMutablePointer<Float>) {
        for j in 0..<width { out[j] = 0 }
        for r in 0..<rows {
            let row = x + r * width
            for j in 0..<width { out[j] += row[j] }
        }
        let invRows = 1 / Float(max(rows, 1))
        var norm: Float = 0
        for j in 0..<width { out[j] *= invRows; norm += out[j] * out[j] }
        let inv = 1 / max(norm.squareRoot(), 1e-12)
        for j in 0..<width { out[j] *= inv }
    }
}
