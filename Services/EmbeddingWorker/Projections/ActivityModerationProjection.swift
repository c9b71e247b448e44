import Foundation
import HearthAssist
import HearthEvents
import HearthKnowledge
import HearthStore
import Logging
import PostgresNIO

/// The moderation pipeline of the public activity feed: a consumer of its own on the `activities`
/// topic. It embeds every activity of the feed and every submission into `activity_vectors`; a
/// new submission is screened (`ActivitySubmissionScreen`: contact details, the safety policy,
/// spam), compared with everything in play (the feed, and earlier submissions still waiting or
/// held), and decided (`ActivityModerationDecision`): the decision goes out as
/// `activity.moderated`, which the gateway projects (an approval puts it in the feed). An admin's
/// decision on a held submission arrives the same way and updates the row.
///
/// A submission is decided the first time its row is written; redelivered after a crash (the
/// decision published, the offset not yet committed), it is decided again, identically (the same
/// model, policy and rows), and the gateway keeps the first of equal decisions. A replay (no
/// publisher) rebuilds the rows and takes the decisions from the topic.
public struct ActivityModerationProjection: Projection {
    public let name = "activity_moderation"
    /// Each submission's decision reads the rows the earlier ones wrote: batches stay short.
    public let maxBatchSize: Int? = 32
    public let topics: [Topic] = [.activities, .users]
    public let tables = ["activity_vectors"]
    public let eventTypes: Set<String>? = [
        ActivityPublished.eventType, ActivityWithdrawn.eventType, ActivitySubmitted.eventType, ActivityModerated.eventType,
        ActivityAuthorErased.eventType, UserErased.eventType,
    ]

    /// What deciding takes: the screen, the thresholds and where decisions go.
    public struct Moderator: Sendable {
        let screen: ActivitySubmissionScreen
        let thresholds: ActivityModerationDecision.Thresholds
        let publisher: EventPublisher

        public init(screen: ActivitySubmissionScreen, thresholds: ActivityModerationDecision.Thresholds, publisher: EventPublisher) {
            self.screen = screen
            self.thresholds = thresholds
            self.publisher = publisher
        }
    }

    let provider: any EmbeddingProvider
    /// Nil for a replay (run by `hearthctl`): it rebuilds the rows, and the decisions it would
    /// take were published when the submissions first came.
    let moderator: Moderator?

    public init(provider: any EmbeddingProvider, moderator: Moderator?) {
        self.provider = provider
        self.moderator = moderator
    }

    static func submissionKey(_ id: UUID) -> String { "submission:\(id.uuidString.lowercased())" }

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        // One embedding call for the batch's texts, then the events in order.
        let texts: [String] = events.compactMap { event in
            switch event.payload {
            case let published as ActivityPublished: published.content.embeddingText
            case let submitted as ActivitySubmitted: submitted.content?.embeddingText
            default: nil
            }
        }
        var vectors = texts.isEmpty ? [] : try await provider.embed(texts)
        guard vectors.count == texts.count else {
            throw EmbeddingProviderError("the embedder returned \(vectors.count) vectors for \(texts.count) activities", retriable: true)
        }
        vectors.reverse()
        for event in events {
            switch event.payload {
            case let published as ActivityPublished:
                let vector = vectors.removeLast()
                try await connection.query(
                    """
                    INSERT INTO activity_vectors (key, activity_id, submission_id, author_id, title, status, model, embedding)
                    VALUES (\(published.activityId), \(published.activityId), \(published.submissionId), NULL, \(published.content.title), 'live',
                            \(provider.model.name), \(vector.pgvectorLiteral)::vector)
                    ON CONFLICT (key) DO UPDATE SET activity_id = EXCLUDED.activity_id, title = EXCLUDED.title, status = 'live',
                        model = EXCLUDED.model, embedding = EXCLUDED.embedding
                    """, logger: logger)
            case let withdrawn as ActivityWithdrawn:
                try await connection.query("DELETE FROM activity_vectors WHERE activity_id = \(withdrawn.activityId)", logger: logger)
            case let submitted as ActivitySubmitted:
                guard let content = submitted.content else { continue }
                try await moderate(submitted, content: content, vector: vectors.removeLast(), event: event, on: connection, logger: logger)
            case let moderated as ActivityModerated:
                let key = Self.submissionKey(moderated.submissionId)
                let status = moderated.decision == "approved" ? "live" : moderated.decision
                try await connection.query(
                    """
                    UPDATE activity_vectors SET status = \(status),
                        activity_id = CASE WHEN \(moderated.decision) = 'approved' THEN \(moderated.activityId) END
                    WHERE key = \(key) AND status IN ('pending', 'held')
                    """, logger: logger)
            case let erased as ActivityAuthorErased:
                try await connection.query("DELETE FROM activity_vectors WHERE author_id = \(erased.authorId)", logger: logger)
            case let erased as UserErased:
                try await connection.query("DELETE FROM activity_vectors WHERE author_id = \(erased.userId)", logger: logger)
            default:
                continue
            }
        }
    }

    /// Records the submission and, the first time, decides it and publishes the decision.
    private func moderate(
        _ submitted: ActivitySubmitted, content: ActivityContent, vector: [Float], event: ProjectedEvent, on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        let key = Self.submissionKey(submitted.submissionId)
        let nearest = try await Self.nearest(to: vector, model: provider.model.name, excluding: key, on: connection, logger: logger)
        let inserted = try await connection.query(
            """
            INSERT INTO activity_vectors (key, activity_id, submission_id, author_id, title, status, model, embedding)
            VALUES (\(key), NULL, \(submitted.submissionId), \(submitted.authorId), \(content.title), 'pending', \(provider.model.name),
                    \(vector.pgvectorLiteral)::vector)
            ON CONFLICT (key) DO NOTHING RETURNING key
            """, logger: logger)
        var isNew = false
        for try await _ in inserted { isNew = true }
        guard isNew, let moderator else { return }
        let decision = ActivityModerationDecision.decide(finding: moderator.screen.screen(content), nearest: nearest, thresholds: moderator.thresholds)
        let moderated = ActivityModerated(
            submissionId: submitted.submissionId, authorId: submitted.authorId, decision: decision.decision, reason: decision.reason?.rawValue,
            note: decision.note, activityId: decision.decision == "approved" ? ActivityContent.communityId(of: submitted.submissionId) : nil,
            nearestActivityId: decision.nearest.map { $0.inFeed ? $0.id : nil } ?? nil,
            similarity: decision.nearest.map { ($0.similarity * 1000).rounded() / 1000 }, moderator: ActivityModerated.policyModerator)
        logger.info(
            "activity submission moderated",
            metadata: [
                "submission_id": "\(submitted.submissionId)", "decision": "\(decision.decision)", "rule": "\(decision.ruleId ?? "-")",
                "similarity": "\(moderated.similarity.map { String($0) } ?? "-")",
            ])
        _ = try await moderator.publisher.publish(moderated, correlationId: event.metadata.correlationId, causationId: event.metadata.id.uuidString.lowercased())
    }

    /// The closest activity in play (in the feed, or a submission waiting or held) to `vector`.
    static func nearest(to vector: [Float], model: String, excluding key: String, on connection: PostgresConnection, logger: Logger) async throws
        -> ActivityNeighbour?
    {
        let rows = try await connection.query(
            """
            SELECT coalesce(activity_id, key), title, 1 - (embedding <=> \(vector.pgvectorLiteral)::vector), activity_id IS NOT NULL
            FROM activity_vectors
            WHERE model = \(model) AND status <> 'rejected' AND key <> \(key)
            ORDER BY embedding <=> \(vector.pgvectorLiteral)::vector, key
            LIMIT 1
            """, logger: logger)
        for try await (id, title, similarity, inFeed) in rows.decode((String, String, Double, Bool).self) {
            return ActivityNeighbour(id: id, title: inFeed ? title : nil, similarity: similarity, inFeed: inFeed)
        }
        return nil
    }
}
