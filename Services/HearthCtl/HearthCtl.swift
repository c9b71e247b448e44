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
}
