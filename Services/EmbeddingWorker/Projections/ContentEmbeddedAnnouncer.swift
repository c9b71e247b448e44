import Foundation
import HearthEvents
import HearthStore

/// Publishes `content.embedded` for the document-chunks projection. Replays (run by `hearthctl`)
/// build the projection without one, so nothing is announced: a rebuild re-creates state that
/// was announced when it first happened.
///
/// Announcements go out inside the projection's transaction, before its commit: a batch that
/// then fails is retried and announced again, so consumers see `content.embedded` at least once.
public struct ContentEmbeddedAnnouncer: Sendable {
    let publisher: EventPublisher

    public init(publisher: EventPublisher) {
        self.publisher = publisher
    }

    func announce(_ embedded: ContentEmbedded, correlationId: String, causationId: String) async throws {
        _ = try await publisher.publish(embedded, correlationId: correlationId, causationId: causationId)
    }
}
