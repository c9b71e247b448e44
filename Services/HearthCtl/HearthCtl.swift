import ArgumentParser
import HearthEmbeddings

@main
struct HearthCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearthctl",
        abstract: "Hearth's developer and operator CLI: topics, events, traces, replays, dead letters, embeddings.",
        subcommands: [
            CatalogueCommand.self, TopicsCommand.self, TailCommand.self, TraceCommand.self, ReplayCommand.self,
            DeadLetterCommand.self, EmbedCommand.self, IngestCommand.self, EvalCommand.self,
        ])

    /// Every command that may embed (embed, eval, replay of the embedding tables) must compute with
    /// the same OpenBLAS kernels as the services, or its vectors differ in the last bits: naming them
    /// here, before any thread starts, covers every command at once.
    static func main() async {
        OpenBLASEnvironment.prepare()
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
