import CEncoderKernels
import Foundation
@testable import HearthEmbeddings
import Testing

/// The AVX-512 kernels of `Shared/CEncoderKernels` against plain references. `Kernels.linear`
/// reads packed weights in place, in slices of rows shared among threads, and falls back to
/// OpenBLAS where the kernel does not run; both must compute C += A · Wᵀ, checked against a
/// double-precision product for row counts on either side of every boundary (12 rows a block,
/// 256 rows a kernel call, 64 rows a thread). The packed weights are halves, so the kernel's
/// product is checked against W rounded to half precision (exactly what it was given), and
/// OpenBLAS's against W itself.
@Suite("Encoder kernels")
struct EncoderKernelTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let rows: Int, outputs: Int, inputs: Int
        var testDescription: String { "\(rows)×\(inputs) · (\(outputs)×\(inputs))ᵀ" }
    }

    static let cases: [Case] = [1, 2, 7, 11, 12, 13, 24, 25, 48, 49, 127, 128, 256, 257, 601].map { Case(rows: $0, outputs: 96, inputs: 384) }
        + [Case(rows: 5, outputs: 32, inputs: 1), Case(rows: 3, outputs: 1536, inputs: 7), Case(rows: 4, outputs: 40, inputs: 16)]

    @Test("C += A · Wᵀ matches a double-precision product", arguments: cases)
    func matchesReference(_ shape: Case) throws {
        _ = try loadEmbedder()  // opens OpenBLAS, which the fallback path needs
        // Deterministic values in [-1, 1], different for each matrix.
        func values(_ count: Int, phase: Float) -> [Float] { (0..<count).map { sin(Float($0) * 0.618 + phase) } }
        let a = values(shape.rows * shape.inputs, phase: 0.1)
        let w = values(shape.outputs * shape.inputs, phase: 1.3)
        let start = values(shape.rows * shape.outputs, phase: 2.7)

        func product(weights: [Float], _ term: (Double, Double) -> Double = (*), start: [Float]? = nil) -> [Double] {
            var expected = [Double](repeating: 0, count: shape.rows * shape.outputs)
            for i in 0..<shape.rows {
                for j in 0..<shape.outputs {
                    var sum = start.map { Double($0[i * shape.outputs + j]) } ?? 0
                    for p in 0..<shape.inputs { sum += term(Double(a[i * shape.inputs + p]), Double(weights[j * shape.inputs + p])) }
                    expected[i * shape.outputs + j] = sum
                }
            }
            return expected
        }
        let exact = product(weights: w, start: start)
        let halves = product(weights: w.map { Float(Float16($0)) }, start: start)
        // Σ |a|·|w|: rounding each weight to a half moves it by at most 2⁻¹¹ of itself, so the
        // kernel's product may differ from the exact one by at most 2⁻¹¹ of this.
        let magnitudes = product(weights: w) { abs($0 * $1) }
        var usedKernel = false

        var a2 = a, c = start
        w.withUnsafeBufferPointer { weights in
            let packed = LinearWeight.packedCopy(of: weights.baseAddress!, outputs: shape.outputs, inputs: shape.inputs)
            defer { packed?.deallocate() }
            // Packed exactly when the CPU runs the kernel and the outputs fill whole 32-column panels.
            #expect((packed != nil) == (hearth_encoder_kernels_supported() != 0 && shape.outputs % 32 == 0))
            usedKernel = packed != nil
            let weight = LinearWeight(matrix: weights.baseAddress!, packed: packed.map { UnsafePointer($0.baseAddress!) },
                                      outputs: shape.outputs, inputs: shape.inputs)
            a2.withUnsafeMutableBufferPointer { a in
                c.withUnsafeMutableBufferPointer { c in
                    Kernels.linear(shape.rows, a: a.baseAddress!, lda: shape.inputs, weight: weight, c: c.baseAddress!, ldc: shape.outputs)
                }
            }
        }
        let worst = zip(c, usedKernel ? halves : exact).map { abs(Double($0) - $1) / max(1, abs($1)) }.max() ?? 0
        #expect(worst < 1e-5, "largest relative error \(worst)")
        let beyondRounding = zip(zip(c, exact), magnitudes).map { pair, magnitude in
            abs(Double(pair.0) - pair.1) - (magnitude * 0x1p-11 + 1e-5 * max(1, abs(pair.1)))
        }.max() ?? 0
        #expect(beyondRounding <= 0, "the product strays \(beyondRounding) beyond what rounding the weights explains")
    }

    @Test("the kernel refuses shapes it cannot compute instead of computing them wrongly")
    func refusesOddShapes() {
        var packed = [UInt16](repeating: 0, count: 40 * 3)
        let w = [Float](repeating: 1, count: 40 * 3)
        #expect(hearth_linear_pack(40, 3, w, &packed) == 0)
        var c = [Float](repeating: 0, count: 2 * 40)
        #expect(hearth_linear_accumulate(2, 40, 3, w, 3, packed, &c, 40) == 0)
        #expect(c.allSatisfy { $0 == 0 })
    }

    @Test("vectorised GELU agrees with the portable one, tail lanes and both erf branches included")
    func geluMatchesPortable() {
        // -12…12 in steps of 0.01 (both sides of |x| = 1 and of the clamp at 4·√2), plus 0 and
        // extremes; 2,407 values, so the last 7 take the masked tail.
        var values = (-1200...1200).map { Float($0) / 100 }
        values += [0, -0, 1e-30, -1e-30, 88, -88, 1e4, -1e4]
        var vectorised = values, portable = values
        let ran = vectorised.withUnsafeMutableBufferPointer { hearth_gelu($0.baseAddress!, $0.count) }
        #expect(ran == hearth_encoder_kernels_supported())
        portable.withUnsafeMutableBufferPointer { Kernels.portableGELU($0.baseAddress!, count: $0.count) }
        guard ran != 0 else { return }
        let worst = zip(vectorised, portable).map { abs(Double($0) - Double($1)) / max(1, abs(Double($1))) }.max() ?? 0
        #expect(worst < 1e-6, "largest relative difference \(worst)")
        // Exact GELU at a few points (x · Φ(x)): the approximations, not only their agreement.
        for (x, expected) in [(1.0, 0.8413447460685429), (-1.0, -0.15865525393145707), (2.5, 2.4844758366855597), (-3.0, -0.00404969409489031)] as [(Float, Double)] {
            var one = [x]
            _ = one.withUnsafeMutableBufferPointer { hearth_gelu($0.baseAddress!, 1) }
            #expect(abs(Double(one[0]) - expected) < 1e-6, "gelu(\(x)) = \(one[0])")
        }
    }
}
