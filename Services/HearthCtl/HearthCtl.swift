import ArgumentParser

public struct HearthCtl: AsyncParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "hearthctl",
        abstract: "Hearth's developer and operator CLI: topics, events, traces, replays, dead letters, embeddings.",
        subcommands: [
            CatalogueCommand.self, TopicsCommand.self, TailCommand.self, TraceCommand.self, ReplayCommand.self,
            DeadLetterCommand.self, EmbedCommand.self, IngestCommand.self, PublishCommand.self, EvalCommand.self,
            PrivacyCommand.self, AdminCommand.self,
        ])

    /// Parses the command line and runs the command; errors end the process the way
    /// ArgumentParser reports them (usage text or one line, and a non-zero status).
    public static func runFromCommandLine() async {
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
