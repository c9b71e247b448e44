import Foundation

/// Throughput benchmark used by `hearthctl embed --bench` and `Tests/Bench/embed.sh`; the Python
/// reference (`Tests/Bench/embed_reference.py`) measures the same way: after a warm-up, the corpus
/// is embedded in chunks of `batch` sentences, repeated until at least `minSeconds` have passed.
public enum MiniLMBenchmark {
    public struct Result: Sendable, Codable {
        public let impl: String
        /// The kernel path that ran (`EncoderKernelPath`) and the CPU's model name.
        public let kernel: String
        public let cpu: String
        public let batch: Int
        public let sentences: Int
        public let seconds: Double
        public let sentencesPerSecond: Double
        /// Peak resident set size of the process so far (VmHWM), MiB.
        public let peakRSSMiB: Double?

        enum CodingKeys: String, CodingKey {
            case impl, kernel, cpu, batch, sentences, seconds
            case sentencesPerSecond = "sentences_per_s"
            case peakRSSMiB = "peak_rss_mib"
        }
    }

    /// A small built-in corpus for when no corpus file is given.
    public static let defaultCorpus: [String] = [
        "how do I stop my toddler biting other kids at nursery",
        "remind me to renew the children's passports in March",
        "The twins have swimming at 10:45 every Tuesday, can you add it to the family calendar?",
        "add nappies, oat milk, bananas and birthday candles to the shopping list",
        "is it normal for a two year old to have tantrums every evening",
        "Grandma arrives on Saturday at 10:45 from Manchester.",
        "what should we pack for a week of camping in Wales with a baby",
        String(repeating: "Bedtime used to be the hardest part of our day, with the kids racing around the living room. ", count: 4),
    ]

    public static func run(embedder: MiniLMEmbedder, corpus: [String], batchSizes: [Int], minSeconds: Double = 3,
                           report: (Result) -> Void = { _ in }) throws -> [Result] {
        precondition(!corpus.isEmpty && batchSizes.allSatisfy { $0 > 0 })
        _ = try embedder.embed(batch: Array(corpus.prefix(8)))  // warm-up
        var results: [Result] = []
        for batch in batchSizes {
            var done = 0
            let start = DispatchTime.now().uptimeNanoseconds
            var elapsed = 0.0
            repeat {
                var index = 0
                while index < corpus.count {
                    let chunk = Array(corpus[index..<min(index + batch, corpus.count)])
                    _ = try embedder.embed(batch: chunk)
                    done += chunk.count
                    index += batch
                }
                elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            } while elapsed < minSeconds
            let result = Result(impl: "swift", kernel: embedder.kernelPath.rawValue, cpu: EncoderKernelPath.cpuModel, batch: batch, sentences: done, seconds: (elapsed * 1000).rounded() / 1000,
                                sentencesPerSecond: (Double(done) / elapsed * 10).rounded() / 10, peakRSSMiB: peakRSSMiB())
            report(result)
            results.append(result)
        }
        return results
    }

    /// VmHWM from /proc/self/status, in MiB (nil where that file does not exist).
    public static func peakRSSMiB() -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let digits = line.dropFirst("VmHWM:".count).filter(\.isNumber)
            if let kib = Double(String(digits)) { return (kib / 1024 * 10).rounded() / 10 }
        }
        return nil
    }
}
