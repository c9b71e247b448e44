import CEncoderKernels
import Foundation
import HearthConfiguration

/// Which instructions the encoder's kernels use. Every path gives a text the same vector, bit for
/// bit (see `encoder_kernels.h`); they differ only in speed. The best one this CPU runs is taken
/// unless `HEARTH_ENCODER_KERNEL` names another, so that one machine can compute what another CPU
/// would (the tests do, for every path the CPU runs).
public enum EncoderKernelPath: String, CaseIterable, Sendable {
    /// Plain C with libm's fmaf: the reference, and the path on CPUs that are not x86-64.
    case portable
    /// AVX2 + FMA + F16C: the floor on x86-64.
    case avx2
    /// AVX-512F: wider layer products.
    case avx512

    public static let environmentVariable = "HEARTH_ENCODER_KERNEL"

    var code: Int32 {
        switch self {
        case .portable: Int32(HEARTH_KERNEL_PORTABLE)
        case .avx2: Int32(HEARTH_KERNEL_AVX2)
        case .avx512: Int32(HEARTH_KERNEL_AVX512)
        }
    }

    /// Whether this CPU runs the path.
    public var isSupported: Bool { hearth_kernel_path_supported(code) != 0 }

    /// The paths this CPU runs, slowest first.
    public static var supported: [EncoderKernelPath] { allCases.filter(\.isSupported) }

    /// The path named by `HEARTH_ENCODER_KERNEL` in `environment`, else the fastest this CPU runs.
    /// Throws, with a line an operator can act on, for an unknown or unsupported name and for an
    /// x86-64 CPU below the floor (where the portable path would be hundreds of times slower).
    public static func forThisCPU(environment: EnvironmentReader = EnvironmentReader()) throws -> EncoderKernelPath {
        if let chosen = environment.optionalString(environmentVariable) {
            guard let path = EncoderKernelPath(rawValue: chosen) else {
                throw EmbeddingError.unsupportedKernel(
                    "\(environmentVariable)=\(chosen) is not a kernel path (one of \(allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            guard path.isSupported else {
                throw EmbeddingError.unsupportedKernel("\(environmentVariable)=\(chosen): this CPU (\(cpuModel)) cannot run that path")
            }
            return path
        }
        switch hearth_kernel_best_path() {
        case Int32(HEARTH_KERNEL_AVX512): return .avx512
        case Int32(HEARTH_KERNEL_AVX2): return .avx2
        case Int32(HEARTH_KERNEL_PORTABLE): return .portable
        default:
            throw EmbeddingError.unsupportedKernel(
                "the MiniLM encoder needs an x86-64 CPU with AVX2, FMA and F16C (Haswell, Zen or newer); this CPU (\(cpuModel)) lacks one of them")
        }
    }

    /// The CPU's model name from /proc/cpuinfo, for messages and benchmark reports.
    public static var cpuModel: String {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown CPU" }
        for line in info.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") { return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces) }
        }
        return "unknown CPU"
    }
}
