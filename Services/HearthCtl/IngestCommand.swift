import ArgumentParser
import Foundation
import HearthEvents
import HearthKafka
import HearthKnowledge
import HearthStore

/// `hearthctl ingest`: publishes documents to the `content` topic for the embedding-worker.
///
///     hearthctl ingest                          # the built-in knowledge base and recipe catalogue
///     hearthctl ingest notes/ extra.md          # Markdown files with front matter, folders of them, recipes.json files
///     hearthctl ingest --delete kb-old-article  # publishes content.document_deleted
///
/// Upserting unchanged content is harmless: the worker compares content hashes and skips it.
struct IngestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Publish knowledge documents and recipes (content.document_upserted) or deletions to the content topic.")

    @Argument(help: "Files or folders to ingest (default: the built-in knowledge base and recipe catalogue).")
    var paths: [String] = []

    @Option(name: .customLong("delete"), help: "Delete the document with this id (repeatable); nothing is upserted then.")
    var deletions: [String] = []

    @Flag(help: "Print what would be published without publishing.")
    var dryRun = false

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let correlationId = "ingest-\(UUID().uuidString.lowercased())"
        let publisher = try connection.publisher(clientId: "hearthctl-ingest", keys: nil)

        if !deletions.isEmpty {
            guard paths.isEmpty else { throw CLIFailure("--delete and paths cannot be combined") }
            for id in deletions where !DocumentKind.isValidId(id) { throw CLIFailure("not a document id: \(id)") }
            if dryRun {
                for id in deletions { print("would delete \(id)") }
                return
            }
            let positions = try await publisher.publish(batch: deletions.map { publisher.envelope(DocumentDeleted(documentId: $0), correlationId: correlationId) })
            await publisher.producer.close()
            for (id, position) in zip(deletions, positions) { print("deleted \(id) -> \(position)") }
            return
        }

        let documents: [SourceDocument]
        do {
            documents = paths.isEmpty ? try ContentLibrary.builtIn() : try paths.flatMap { try ContentLibrary.load(URL(fileURLWithPath: $0)) }
        } catch {
            throw CLIFailure("cannot read the documents: \(error)")
        }
        var seen: Set<String> = []
        for document in documents where !seen.insert(document.id).inserted { throw CLIFailure("document id \(document.id) appears twice") }
        if dryRun {
            for document in documents { print("would upsert \(document.id) (\(document.kind), \(document.contentHash.prefix(12)))") }
            return
        }
        let positions = try await publisher.publish(batch: documents.map { publisher.envelope($0.upsertEvent, correlationId: correlationId) })
        await publisher.producer.close()
        let kinds = Dictionary(grouping: documents, by: \.kind).map { "\($0.key) \($0.value.count)" }.sorted().joined(separator: ", ")
        print("published \(positions.count) documents (\(kinds)) to \(Topic.content.name); correlation \(correlationId)")
    }
}
