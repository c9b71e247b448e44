import COpenBLAS
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// OpenBLAS, opened when the first embedder is made rather than linked into every executable.
///
/// Linked, its 60 KB of thread-local storage is part of the static TLS block that glibc copies
/// into every thread a process starts, and a Hearth service runs ~90 threads (librdkafka's, NIO's,
/// the pools): ~5 MB of resident memory in a gateway that has not embedded anything. Opened with
/// `dlopen`, its TLS is allocated only for the threads that call into it.
struct OpenBLASLibrary: Sendable {
    typealias Sgemm = @convention(c) (
        CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, blasint, blasint, blasint, Float,
        UnsafePointer<Float>?, blasint, UnsafePointer<Float>?, blasint, Float, UnsafeMutablePointer<Float>?, blasint
    ) -> Void
    typealias SetNumThreads = @convention(c) (Int32) -> Void

    let sgemm: Sgemm
    let setNumThreads: SetNumThreads

    /// Debian's `libopenblas0` (runtime) and `libopenblas-dev` both provide this name.
    static let fileNames = ["libopenblas.so.0", "libopenblas.so"]

    /// The process's one copy, opened on first use; the failure says why it could not be opened.
    static let shared: Result<OpenBLASLibrary, EmbeddingError> = open()

    static func open() -> Result<OpenBLASLibrary, EmbeddingError> {
        var reasons: [String] = []
        for name in fileNames {
            guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
                reasons.append(dlerror().map { String(cString: $0) } ?? "\(name): cannot open")
                continue
            }
            guard let sgemm = dlsym(handle, "cblas_sgemm"), let threads = dlsym(handle, "openblas_set_num_threads") else {
                reasons.append("\(name) has no cblas_sgemm / openblas_set_num_threads")
                continue
            }
            // The handle stays open for the life of the process: the functions are used until exit.
            let library = OpenBLASLibrary(sgemm: unsafeBitCast(sgemm, to: Sgemm.self), setNumThreads: unsafeBitCast(threads, to: SetNumThreads.self))
            // OpenBLAS uses as many threads as cores unless told otherwise; we set that explicitly
            // (the cgroup/affinity-aware count).
            library.useThreads(ProcessInfo.processInfo.activeProcessorCount)
            return .success(library)
        }
        return .failure(.libraryUnavailable("OpenBLAS (install libopenblas0): " + reasons.joined(separator: "; ")))
    }

    /// Sets how many threads (at most 8) one matrix product may use, OpenBLAS's and the packed
    /// kernel's (`Kernels.productThreads`), unless the operator chose via the environment.
    /// Process-wide: OpenBLAS has one thread pool. Calls from several threads at once are
    /// serialised inside a multi-threaded OpenBLAS, so a process embedding short queries
    /// concurrently is faster with one thread per call than with the pool.
    func useThreads(_ count: Int) {
        let environment = ProcessInfo.processInfo.environment
        if let chosen = (environment["OPENBLAS_NUM_THREADS"] ?? environment["OMP_NUM_THREADS"]).flatMap({ Int($0) }) {
            Kernels.productThreads.store(max(1, min(chosen, 8)), ordering: .relaxed)
            return
        }
        let threads = max(1, min(count, 8))
        Kernels.productThreads.store(threads, ordering: .relaxed)
        setNumThreads(Int32(threads))
    }

    /// `useThreads` on the process's copy, once it is open.
    static func useThreads(_ count: Int) {
        if case .success(let library) = shared { library.useThreads(count) }
    }

    /// The loaded library; `MiniLMEmbedder.init` has succeeded only if this did, so the kernels
    /// can rely on it.
    static var loaded: OpenBLASLibrary {
        switch shared {
        case .success(let library): return library
        case .failure(let error): preconditionFailure("OpenBLAS used before an embedder was made: \(error)")
        }
    }
}
