import ArgumentParser
import Foundation
import HearthStore

struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Rebuild a projection's read model from the full event history.",
        discussion: """
            Events are applied into shadow tables, which replace the live ones atomically at the end. \
            Each partition is read from Kafka when the topic still holds its whole history, else from \
            the event archive. The checksum of the tables is printed before and after.
            """)

    @Argument(help: "The projection to rebuild (see --list).")
    var projection: String?

    @Flag(help: "Rebuild every projection that can be rebuilt.")
    var all = false

    @Flag(help: "Build the shadow tables and compare checksums, but do not swap them in.")
    var dryRun = false

    @Flag(help: "List the projections and exit.")
    var list = false

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let projections = ReadModelCatalogue.allProjections
        if list {
            for projection in projections {
                print("\(projection.name)\t\(projection.topics.map(\.name).joined(separator: ","))\t\(projection.tables.joined(separator: ","))")
            }
            return
        }
        let selected: [any Projection]
        if all {
            selected = projections.filter(\.decodesPayloads)
        } else if let name = projection {
            guard let found = ReadModelCatalogue.projection(named: name) else {
                throw CLIFailure("unknown projection \(name); known: \(projections.map(\.name).joined(separator: ", "))")
            }
            selected = [found]
        } else {
            throw ValidationError("name a projection or pass --all")
        }
        let logger = CLILogging.logger()
        let bootstrap = connection.kafkaBootstrap
        let dryRun = dryRun
        let mismatched = try await connection.withPostgres(logger: logger) { client in
            var mismatched = 0
            for projection in selected {
                let replayer = ProjectionReplayer(client: client, keys: try connection.keys(client: client, logger: logger), bootstrapServers: bootstrap, logger: logger)
                let bar = ProgressBar(label: projection.name)
                let report = try await replayer.rebuild(projection, dryRun: dryRun) { bar.update($0) }
                bar.finish()
                print("projection: \(report.projection)\(report.dryRun ? " (dry run)" : "")")
                for (partition, source) in report.sources.sorted(by: { $0.key < $1.key }) { print("  \(partition): read from \(source)") }
                print("  events applied: \(report.events) in \(report.duration.formatted(.units(allowed: [.seconds, .milliseconds], width: .narrow)))")
                if report.skipped > 0 { print("  events skipped (undecodable or failing, parked in the DLQ by the live projection): \(report.skipped)") }
                print("  checksum before: \(report.checksumBefore)")
                print("  checksum after:  \(report.checksumAfter)")
                print("  \(report.checksumBefore == report.checksumAfter ? "identical" : "DIFFERENT")")
                if report.checksumBefore != report.checksumAfter { mismatched += 1 }
            }
            return mismatched
        }
        if mismatched > 0 { throw ExitCode(3) }
    }
}

/// A one-line progress bar on stderr, redrawn in place (`ReplayProgress.line`).
final class ProgressBar: Sendable {
    let label: String
    init(label: String) { self.label = label }

    func update(_ progress: ReplayProgress) {
        FileHandle.standardError.write(Data(("\r" + progress.line(label: label)).utf8))
    }

    func finish() {
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
