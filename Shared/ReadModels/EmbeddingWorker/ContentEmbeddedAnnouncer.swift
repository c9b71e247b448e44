import Foundation
import HearthEvents
import HearthStore
import Synchronization

/// Publishes `content.embedded` for the document-chunks projection. The publisher is attached
/// once the embedding-worker's host exists; without one (replays run by `hearthctl`) nothing is
/// announced, because a rebuild re-creates state that was announced when it first happened.
///
/// Announcements go out inside the projection's transaction, before its commit: a batch that
/// then fails is retried and announced again, so consumers see `content.embedded` at least once.
public final class ContentEmbeddedAnnouncer: Sendable {
    private let publisher = Mutex<EventPublisher?>(nil)

    public init() {}

    public func attach(_ publisher: EventPublisher) {
        self.publisher.withLock { $0 = publisher }
    }

    func announce(_ embedded: ContentEmbedded, correlationId: String, causationId: String) async throws {
        guard let publisher = publisher.withLock({ $0 }) else { return }
        _ = try await publisher.publish(embedded, correlationId: correlationId, causationId: causationId)
    }
}
