import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// OpenBLAS picks its kernels by CPU model when it is opened, and on a model newer than it knows
/// (Debian 12's 0.3.21 predates Sapphire and Emerald Rapids) it falls back to its generic SSE3
/// kernels ("Prescott"): here that made a MiniLM query 2–3× slower than the AVX-512 kernels the
/// CPU can run. Naming the kernels from the instruction sets the kernel reports fixes that;
/// an operator's own `OPENBLAS_CORETYPE` is left alone.
public enum OpenBLASEnvironment {
    /// Sets `OPENBLAS_CORETYPE` for this process when the CPU's flags name a kernel family. Call
    /// first thing in `main`, before the process starts threads: `setenv` is not safe while
    /// another thread reads the environment.
    public static func prepare() {
        guard getenv("OPENBLAS_CORETYPE") == nil,
              let cpuInfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let core = coreType(cpuFlags: flags(inCPUInfo: cpuInfo))
        else { return }
        setenv("OPENBLAS_CORETYPE", core, 0)
    }

    /// The flags of the first processor in `/proc/cpuinfo` text (x86's `flags : ...` line).
    static func flags(inCPUInfo text: String) -> Set<String> {
        for line in text.split(separator: "\n") where line.hasPrefix("flags") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            return Set(line[line.index(after: colon)...].split(separator: " ").map(String.init))
        }
        return []
    }

    /// The OpenBLAS kernel family for these x86 flags: nil when OpenBLAS's own detection should decide.
    static func coreType(cpuFlags: Set<String>) -> String? {
        if cpuFlags.isSuperset(of: ["avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"]) { return "SkylakeX" }
        if cpuFlags.isSuperset(of: ["avx2", "fma"]) { return "Haswell" }
        return nil
    }
}
