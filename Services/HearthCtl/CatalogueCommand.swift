import ArgumentParser
import Foundation
import HearthEvents

struct CatalogueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalogue",
        abstract: "List every topic (with partitions) and every event type (with version and topic).")

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    struct Output: Encodable {
        struct TopicEntry: Encodable { let name: String; let partitions: Int }
        struct EventEntry: Encodable { let type: String; let version: Int; let topic: String }
        let topics: [TopicEntry]
        let events: [EventEntry]
    }

    func run() throws {
        let catalogue = EventCatalogue.hearth
        let output = Output(
            topics: Topic.all.map { .init(name: $0.name, partitions: $0.partitions) },
            events: catalogue.eventTypes.map { .init(type: $0, version: catalogue.currentVersion(of: $0)!, topic: catalogue.topic(of: $0)!.name) })
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            print(String(decoding: try encoder.encode(output), as: UTF8.self))
            return
        }
        print("TOPIC".padding(toLength: 24, withPad: " ", startingAt: 0) + "PARTITIONS")
        for topic in output.topics { print(topic.name.padding(toLength: 24, withPad: " ", startingAt: 0) + "\(topic.partitions)") }
        print("")
        print("EVENT".padding(toLength: 36, withPad: " ", startingAt: 0) + "VERSION  TOPIC")
        for event in output.events {
            print(event.type.padding(toLength: 36, withPad: " ", startingAt: 0) + "\(event.version)".padding(toLength: 9, withPad: " ", startingAt: 0) + event.topic)
        }
    }
}
