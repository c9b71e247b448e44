import Foundation
import HearthConfiguration
import HearthEvents
import HearthPrivacy
import HearthStore
import Logging
import PostgresNIO
import Synchronization
import Testing

extension BackboneSuite {
    /// A rebuild reads a projection's topics one after another in the order it lists them, from
    /// Kafka as from the archive: a projection that lists the users topic last sees `user.erased`
    /// after every row it must remove, even when the erasure was published first.
    @Suite struct ReplayTopicOrder {
        /// Records which topic each applied event came from, in the order the replayer applied them.
        struct TopicOrderProbe: Projection {
            let name = "replay_topic_order_probe"
            let topics: [Topic] = [.activityHistory, .users]
            let tables: [String] = []
            let eventTypes: Set<String>? = [ActivityFavouriteSet.eventType, UserErased.eventType]
            let recorder = Recorder()

            func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
                recorder.seen.withLock { $0.append(contentsOf: events.map(\.position.topic)) }
            }
        }

        final class Recorder: Sendable {
            let seen = Mutex<[String]>([])
        }

        @Test func theUsersTopicIsReadAfterTheOthersWhateverWasPublishedFirst() async throws {
            // The gateway only migrates the store the replayer reads (dead letters, offsets).
            try await ServiceProcess.with("gateway") { _ in
                let publisher = EventPublisher(producer: try KafkaTestEnvironment.producer(clientId: "hearth-tests-topic-order"), source: "tests", keys: nil)
                // An erasure of nobody, then a favourite cleared for nobody: harmless to every
                // projection, and in the opposite order to the one the probe lists.
                for _ in 0..<5 {
                    try await publisher.publish(UserErased(userId: UUID(), householdIds: [], runIds: []), correlationId: "topic-order")
                    try await publisher.publish(ActivityFavouriteSet(userId: UUID(), activityId: "probe-\(UUID().uuidString)", favourite: false), correlationId: "topic-order")
                }
                try await TestEnvironment.withPostgres { client in
                    let master = try MasterKey.load(environment: EnvironmentReader(), runDirectory: ".run", allowGenerated: true)
                    let keys = DataKeyRing(client: client, wrapping: master, logger: TestEnvironment.logger, unknownKeyPatience: .zero)
                    let probe = TopicOrderProbe()
                    let replayer = ProjectionReplayer(client: client, keys: keys, bootstrapServers: try KafkaTestEnvironment.bootstrap(), logger: TestEnvironment.logger)
                    let report = try await replayer.rebuild(probe, dryRun: true)
                    let seen = probe.recorder.seen.withLock { $0 }
                    #expect(report.events == seen.count)
                    #expect(seen.filter { $0 == Topic.users.name }.count >= 5 && seen.filter { $0 == Topic.activityHistory.name }.count >= 5, "\(seen.count)")
                    let lastHistory = try #require(seen.lastIndex(of: Topic.activityHistory.name))
                    let firstUsers = try #require(seen.firstIndex(of: Topic.users.name))
                    #expect(lastHistory < firstUsers, "a users event was applied before an activity-history one (at \(firstUsers) of \(seen.count))")
                }
            }
        }
    }
}
