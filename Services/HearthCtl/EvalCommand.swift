import ArgumentParser
import EmbeddingWorkerService
import Foundation
import HearthContent
import HearthEmbeddings
import HearthKnowledge
import HearthStore
import Logging
import PostgresNIO

/// `hearthctl eval search`: recall@5, MRR and nDCG@10 of the vector, text and hybrid searches over
/// the labelled queries (`Shared/Content/eval/queries.json`). Indexes the built-in content first
/// with the embedding-worker's own chunker and embedder (only what is missing or changed), so it
/// needs only Postgres. `deploy/eval/run.sh` (`make eval`) runs it on a throwaway database.
struct EvalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Evaluate Hearth's retrieval against its labelled sets.",
        subcommands: [SearchEval.self, ExtractionEval.self, ImportEval.self, ModerationEval.self])

    struct SearchEval: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search", abstract: "recall@5, MRR and nDCG@10 for vector, text and hybrid search.")

        @Option(help: "Candidates per list before fusion.") var depth = 40
        @Option(name: .customLong("rrf-k"), help: "Reciprocal rank fusion k.") var rrfK = 60.0
        @Option(name: .customLong("text-weight"), help: "The text list's weight in the fusion.") var textWeight = 1.0
        @Option(name: .customLong("text-coverage"), help: "Hybrid: least share of the query's words a text candidate holds.") var textCoverage = 0.5
        @Flag(help: "Search what is indexed; do not index the built-in content first.") var noIndex = false
        @Flag(help: "Print each query's ranking.") var verbose = false
        @Flag(help: "Exit 1 unless hybrid beats vector and text on nDCG@10.") var check = false
        @OptionGroup var connection: ConnectionOptions

        struct LabelledQuery: Decodable {
            struct Filters: Decodable {
                var kind: String?
                var age: Int?
                var exclude_allergens: [String]?
            }
            var query: String
            var relevant: [String]
            var type: String
            var filters: Filters?
        }

        func run() async throws {
            let logger = CLILogging.logger()
            let queries = try JSONDecoder().decode([LabelledQuery].self, from: HearthContent.data(of: .searchQueries))
            let provider = try EmbeddingSettings.provider()
            let (depth, rrfK, noIndex, verbose) = (self.depth, self.rrfK, self.noIndex, self.verbose)
            let (textWeight, textCoverage) = (self.textWeight, self.textCoverage)
            let failed = try await connection.withPostgres(logger: logger) { client -> Bool in
                if !noIndex {
                    try await MigrationRunner(client: client, logger: logger).apply(ReadModelCatalogue.migrations(of: .embeddingWorker))
                    let indexed = try await Self.index(ContentLibrary.builtIn(), writer: DocumentChunkWriter(provider: provider), client: client, logger: logger)
                    if indexed > 0 { print("indexed \(indexed) documents with \(provider.model)") }
                }
                let search = KnowledgeSearch(
                    client: client, provider: provider, logger: logger, candidateDepth: depth, rrfK: rrfK, textWeight: textWeight,
                    hybridTextCoverage: textCoverage)
                let documents = try await client.query("SELECT count(*) FROM content_documents WHERE model = \(provider.model.name)", logger: logger)
                    .collect().first?.decode(Int.self) ?? 0
                print("search eval: \(queries.count) labelled queries over \(documents) documents; model \(provider.model); depth \(depth), rrf k \(rrfK), text weight \(textWeight), hybrid text coverage \(textCoverage)")

                var scores: [SearchMode: [(type: String, recall: Double, rr: Double, ndcg: Double)]] = [:]
                for labelled in queries {
                    let filters = SearchFilters(
                        kind: labelled.filters?.kind, excludeAllergens: labelled.filters?.exclude_allergens ?? [], age: labelled.filters?.age)
                    let relevant = Set(labelled.relevant)
                    // One embedding per query, shared by the vector and hybrid runs.
                    for mode in [SearchMode.vector, .text, .hybrid] {
                        let ranked = try await search.search(SearchQuery(text: labelled.query, scope: .all, mode: mode, limit: 10, filters: filters))
                            .map(\.documentId)
                        scores[mode, default: []].append((
                            labelled.type,
                            RetrievalMetrics.recall(at: 5, ranked: ranked, relevant: relevant),
                            RetrievalMetrics.reciprocalRank(ranked: ranked, relevant: relevant),
                            RetrievalMetrics.ndcg(at: 10, ranked: ranked, relevant: relevant)))
                        if verbose { print("  [\(mode.rawValue)] \(labelled.query) -> \(ranked.prefix(5).joined(separator: " "))") }
                    }
                }
                func mean(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count) }
                func cell(_ value: Double) -> String { String(format: "%8.3f", value) }
                print("mode      recall@5       MRR   nDCG@10")
                for mode in [SearchMode.vector, .text, .hybrid] {
                    let rows = scores[mode] ?? []
                    print(mode.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
                        + cell(mean(rows.map(\.recall))) + "  " + cell(mean(rows.map(\.rr))) + "  " + cell(mean(rows.map(\.ndcg))))
                }
                let types = Array(Set(queries.map(\.type))).sorted()
                print("nDCG@10 by query type: " + types.joined(separator: " / "))
                for mode in [SearchMode.vector, .text, .hybrid] {
                    let rows = scores[mode] ?? []
                    print(mode.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
                        + types.map { type in cell(mean(rows.filter { $0.type == type }.map(\.ndcg))) }.joined(separator: "  "))
                }
                let ndcg = scores.mapValues { mean($0.map(\.ndcg)) }
                let wins = ndcg[.hybrid, default: 0] > ndcg[.vector, default: 0] && ndcg[.hybrid, default: 0] > ndcg[.text, default: 0]
                print(wins ? "hybrid beats vector and text on nDCG@10" : "hybrid does NOT beat both vector and text on nDCG@10")
                return !wins
            }
            if check && failed { throw ExitCode(1) }
        }

        /// Writes the documents whose hash or model differs from what is stored, a few at a time.
        static func index(_ documents: [SourceDocument], writer: DocumentChunkWriter, client: PostgresClient, logger: Logger) async throws -> Int {
            var stored: [String: (String, String?)] = [:]
            let rows = try await client.query("SELECT document_id, content_hash, model FROM content_documents", logger: logger)
            for try await (id, hash, model) in rows.decode((String, String, String?).self) { stored[id] = (hash, model) }
            let stale = documents.filter { stored[$0.id]?.0 != $0.contentHash || stored[$0.id]?.1 != writer.provider.model.name }
            var start = 0
            while start < stale.count {
                let slice = stale[start..<min(start + 16, stale.count)].map {
                    StoredDocument(
                        id: $0.id, kind: $0.kind, title: $0.title, ageMin: $0.ageMin, ageMax: $0.ageMax, allergens: $0.allergens.sorted(),
                        body: $0.body, contentHash: $0.contentHash, eventId: UUID(), at: Date())
                }
                _ = try await client.withTransaction(logger: logger) { connection in
                    try await writer.write(slice, on: connection, logger: logger)
                }
                start += 16
            }
            return stale.count
        }
    }
}
