import ArgumentParser

@main
struct HearthCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearthctl",
        abstract: "Hearth's developer and operator CLI: the event catalogue, replays, embeddings.",
        subcommands: [CatalogueCommand.self, ReplayCommand.self])
}
