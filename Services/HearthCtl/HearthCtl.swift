import ArgumentParser

@main
struct HearthCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearthctl",
        abstract: "Hearth's developer and operator CLI: topics, events, traces, replays, dead letters, embeddings.",
        subcommands: [
            CatalogueCommand.self, TopicsCommand.self, TailCommand.self, TraceCommand.self, ReplayCommand.self,
            DeadLetterCommand.self, EmbedCommand.self, IngestCommand.self, EvalCommand.self,
        ])

    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
