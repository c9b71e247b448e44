import CEncoderKernels
import Foundation
@testable import HearthEmbeddings
import Testing

/// The kernels of `Shared/CEncoderKernels` on every path this CPU runs, against plain references:
/// each must compute what its contract says (checked against double precision), and every vector
/// path must give the portable path's bits exactly, which is what makes a text's vector the same
/// on every CPU. A path this CPU cannot run is skipped, and said so.
@Suite("Encoder kernels")
struct EncoderKernelTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let rows: Int, outputs: Int, inputs: Int
        var testDescription: String { "\(rows)×\(inputs) · (\(outputs)×\(inputs))ᵀ" }
    }

    /// Row counts on either side of every boundary: 6 and 12 rows a block (AVX2, AVX-512), 256
    /// rows a kernel call, 64 rows a thread.
    static let cases: [Case] = [1, 2, 5, 6, 7, 11, 12, 13, 24, 25, 48, 49, 127, 128, 256, 257, 601].map { Case(rows: $0, outputs: 96, inputs: 384) }
        + [Case(rows: 5, outputs: 32, inputs: 1), Case(rows: 3, outputs: 1536, inputs: 7), Case(rows: 7, outputs: 64, inputs: 16)]
        // A few rows with at least `Kernels.minimumMultiplyAddsForColumnSplit` multiply-adds: split
        // across threads by column panels (where the machine has more than one core).
        + [Case(rows: 24, outputs: 1152, inputs: 384), Case(rows: 40, outputs: 1536, inputs: 384)]

    /// Deterministic values in [-1, 1], different for each phase.
    static func values(_ count: Int, phase: Float) -> [Float] { (0..<count).map { sin(Float($0) * 0.618 + phase) } }

    static func vectorPaths() -> [EncoderKernelPath] {
        let skipped = EncoderKernelPath.allCases.filter { !$0.isSupported }
        if !skipped.isEmpty { print("encoder kernels: this CPU (\(EncoderKernelPath.cpuModel)) cannot run \(skipped.map(\.rawValue)); skipped") }
        return EncoderKernelPath.supported.filter { $0 != .portable }
    }

    func linear(_ shape: Case, path: EncoderKernelPath, a: [Float], w: [Float], start: [Float]) -> [Float] {
        var a = a, c = start
        var packed = [UInt16](repeating: 0, count: shape.outputs * shape.inputs)
        #expect(hearth_linear_pack(Int32(shape.outputs), Int32(shape.inputs), w, &packed) == 1)
        packed.withUnsafeBufferPointer { packed in
            let weight = LinearWeight(packed: packed.baseAddress!, outputs: shape.outputs, inputs: shape.inputs)
            a.withUnsafeMutableBufferPointer { a in
                c.withUnsafeMutableBufferPointer { c in
                    Kernels.linear(shape.rows, a: a.baseAddress!, lda: shape.inputs, weight: weight, path: path, c: c.baseAddress!, ldc: shape.outputs)
                }
            }
        }
        return c
    }

    @Test("C += A · Wᵀ matches a double-precision product with W in halves, and every path gives the portable bits", arguments: cases)
    func linearMatchesReference(_ shape: Case) throws {
        let a = Self.values(shape.rows * shape.inputs, phase: 0.1)
        let w = Self.values(shape.outputs * shape.inputs, phase: 1.3)
        let start = Self.values(shape.rows * shape.outputs, phase: 2.7)
        let halves = w.map { Float(Float16($0)) }
        var expected = [Double](repeating: 0, count: shape.rows * shape.outputs)
        for i in 0..<shape.rows {
            for j in 0..<shape.outputs {
                var sum = Double(start[i * shape.outputs + j])
                for p in 0..<shape.inputs { sum += Double(a[i * shape.inputs + p]) * Double(halves[j * shape.inputs + p]) }
                expected[i * shape.outputs + j] = sum
            }
        }
        let portable = linear(shape, path: .portable, a: a, w: w, start: start)
        let worst = zip(portable, expected).map { abs(Double($0) - $1) / max(1, abs($1)) }.max() ?? 0
        #expect(worst < 1e-5, "largest relative error \(worst)")
        for path in Self.vectorPaths() {
            let vector = linear(shape, path: path, a: a, w: w, start: start)
            let differing = zip(vector, portable).filter { $0.bitPattern != $1.bitPattern }.count
            #expect(differing == 0, "\(path): \(differing) of \(vector.count) elements differ from the portable path's bits")
        }
    }

    @Test("the kernels refuse shapes and paths they cannot compute instead of computing them wrongly")
    func refusesOddShapes() {
        var packed = [UInt16](repeating: 0, count: 40 * 3)
        let w = [Float](repeating: 1, count: 40 * 3)
        #expect(hearth_linear_pack(40, 3, w, &packed) == 0)
        var c = [Float](repeating: 0, count: 2 * 40)
        for path in EncoderKernelPath.allCases {
            #expect(hearth_linear_accumulate(path.code, 2, 40, 3, w, 3, packed, &c, 40) == 0)
        }
        #expect(hearth_linear_accumulate(7, 1, 32, 1, w, 1, packed, &c, 32) == 0)  // no such path
        #expect(c.allSatisfy { $0 == 0 })
        var x: [Float] = [1, 2]
        #expect(hearth_gelu(7, &x, 2) == 0)
        #expect(x == [1, 2])
    }

    @Test("GELU on every path gives the portable bits (tails and both erf branches included) and the exact GELU to 1e-6")
    func gelu() {
        // -12…12 in steps of 0.01 (both sides of |x| = 1 and of the clamp at 4·√2), plus 0 and
        // extremes; 2,409 values, so the last ones take the tail.
        var values = (-1200...1200).map { Float($0) / 100 }
        values += [0, -0, 1e-30, -1e-30, 88, -88, 1e4, -1e4, .leastNonzeroMagnitude]
        var portable = values
        #expect(portable.withUnsafeMutableBufferPointer { hearth_gelu(EncoderKernelPath.portable.code, $0.baseAddress!, $0.count) } == 1)
        for path in Self.vectorPaths() {
            for count in [values.count, 1, 7, 8, 9] {  // lengths that end inside a vector
                var vector = Array(values.prefix(count))
                _ = vector.withUnsafeMutableBufferPointer { Kernels.gelu($0.baseAddress!, count: $0.count, path: path) }
                let differing = zip(vector, portable).filter { $0.bitPattern != $1.bitPattern }.count
                #expect(differing == 0, "\(path), \(count) values: \(differing) differ from the portable path's bits")
            }
        }
        // Exact GELU at a few points (x · Φ(x)): the approximations, not only their agreement.
        for (x, expected) in [(1.0, 0.8413447460685429), (-1.0, -0.15865525393145707), (2.5, 2.4844758366855597), (-3.0, -0.00404969409489031)] as [(Float, Double)] {
            var one = [x]
            _ = one.withUnsafeMutableBufferPointer { hearth_gelu(EncoderKernelPath.portable.code, $0.baseAddress!, 1) }
            #expect(abs(Double(one[0]) - expected) < 1e-6, "gelu(\(x)) = \(one[0])")
        }
    }

    @Test("attention matches a double-precision softmax(q·kᵀ·scale)·v, and every path gives the portable bits",
          arguments: [1, 2, 7, 8, 9, 31, 32, 33, 100, 256])
    func attention(length: Int) {
        let headDimension = 32, ld = 3 * 384, scale = 1 / Float(headDimension).squareRoot()
        // q, k and v interleaved at a stride of ld, as in the encoder's qkv buffer.
        let qkv = Self.values(length * ld, phase: 0.4).map { $0 * 3 }
        func run(_ path: EncoderKernelPath) -> [Float] {
            var context = [Float](repeating: .nan, count: length * 384)
            var scratch = [Float](repeating: .nan, count: Kernels.attentionScratchCount(length: length, headDimension: headDimension))
            qkv.withUnsafeBufferPointer { qkv in
                let q = qkv.baseAddress! + 64
                Kernels.attention(length: length, headDimension: headDimension, scale: scale, q: q, k: q + 384, v: q + 768, ld: ld,
                                  context: &context, ldc: 384, scratch: &scratch, path: path)
            }
            return (0..<length).flatMap { context[$0 * 384..<$0 * 384 + headDimension] }
        }
        let portable = run(.portable)
        var expected: [Double] = []
        for i in 0..<length {
            let scores = (0..<length).map { j in
                (0..<headDimension).reduce(0.0) { $0 + Double(qkv[i * ld + 64 + $1]) * Double(qkv[j * ld + 64 + 384 + $1]) } * Double(scale)
            }
            let largest = scores.max()!
            let weights = scores.map { exp($0 - largest) }
            let total = weights.reduce(0, +)
            for d in 0..<headDimension {
                expected.append((0..<length).reduce(0.0) { $0 + weights[$1] / total * Double(qkv[$1 * ld + 64 + 768 + d]) })
            }
        }
        let worst = zip(portable, expected).map { abs(Double($0) - $1) }.max() ?? 0
        #expect(worst < 1e-5, "largest absolute error \(worst)")
        for path in Self.vectorPaths() {
            let vector = run(path)
            let differing = zip(vector, portable).filter { $0.bitPattern != $1.bitPattern }.count
            #expect(differing == 0, "\(path): \(differing) of \(vector.count) differ from the portable path's bits")
        }
    }

    @Test("halves: packing rounds to nearest even like Float16, and widening is exact for every half")
    func halfPrecision() {
        var values: [Float] = [0, -0, 1, -1, 0.1, 1.0 / 3, 65504, 65519.99, 65520, -65520, 1e10, .infinity, -.infinity,
                               0x1p-14, 0x1p-15, 0x1p-24, 0x1p-25, 0x1.000002p-25, 0x1p-26, 0x1.8p-24, 0x1.4p-24, 2049, 2051, 4097]
        // 20,000 bit patterns spread over every sign and exponent (a multiplicative hash of
        // 1…20,000); NaNs are left out below.
        for index in 1...20_000 { values.append(Float(bitPattern: UInt32(index) &* 2_654_435_761)) }
        values += Self.values(5_000, phase: 0.3).map { $0 * 1e-5 }
        var wrong: [String] = []
        for value in values where !value.isNaN && hearth_float_to_half(value) != Float16(value).bitPattern {
            wrong.append("\(value): \(hearth_float_to_half(value)) vs \(Float16(value).bitPattern)")
        }
        #expect(wrong.isEmpty, "\(wrong.count) conversions differ: \(wrong.prefix(5))")
        #expect(Float16(bitPattern: hearth_float_to_half(.nan)).isNaN)
        for bits in UInt16.min...UInt16.max {
            let half = Float16(bitPattern: bits)
            let widened = hearth_half_to_float(bits)
            if half.isNaN { #expect(widened.isNaN); continue }
            if widened.bitPattern != Float(half).bitPattern { Issue.record("half \(bits): \(widened) vs \(Float(half))"); break }
        }
    }
}
