import Foundation
import HearthDomain
import HearthEvents
import HearthStore
import Logging
import PostgresNIO

/// `activities` and `activity_submissions`: the feed and the submissions to it. Every change to
/// the feed takes the offset of its event (on the single-partition `activities` topic) as its
/// revision, so `since` reads and the feed's cursor follow the topic's order.
///
/// - `activity.published`: inserts or edits an activity (an unchanged republication, a second
///   worker seeding the library, keeps its revision).
/// - `activity.withdrawn`: a tombstone, its words gone (one for an id never seen, so that a rebuild
///   that could not open an erased author's approval still has it).
/// - `activity.submitted` / `activity.moderated`: the submission and its decision. Only a
///   submission still pending or held takes a decision (the first final one wins: a redelivered
///   pipeline decision changes nothing). An approval puts the submission in the feed under the
///   decision's `activity_id`.
/// - `activity.author_erased` (published by the eraser, which publishes `user.erased` only once this
///   projection has applied it: the two topics are read as they come): the author's approved
///   activities become tombstones and their open submissions are closed (`erased`), so that a
///   decision arriving later changes nothing.
/// - `user.erased`: the author's submissions.
///
/// Announces its changes: the feed is answered from memory (`ActivityFeed`) until it changes.
public struct ActivitiesProjection: Projection {
    public let name = "activities"
    public let topics: [Topic] = [.activities, .users]
    public let tables = ["activities", "activity_submissions"]
    public let eventTypes: Set<String>? = [
        ActivityPublished.eventType, ActivityWithdrawn.eventType, ActivitySubmitted.eventType, ActivityModerated.eventType,
        ActivityAuthorErased.eventType, UserErased.eventType,
    ]
    public let announcesChanges = true

    public init() {}

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        for event in events {
            switch event.payload {
            case let published as ActivityPublished:
                try await publish(published.activityId, source: published.source, submission: published.submissionId, published.content,
                                  revision: event.position.offset, on: connection, logger: logger)
            case let withdrawn as ActivityWithdrawn:
                try await connection.query(
                    """
                    INSERT INTO activities (activity_id, source, submission_id, title, description, time_minutes, energy, contexts, category,
                                            min_age, max_age, repeatability, withdrawn, revision)
                    VALUES (\(withdrawn.activityId), '', NULL, '', '', 0, '', '{}', '', 0, 0, '', true, \(event.position.offset))
                    ON CONFLICT (activity_id) DO UPDATE SET withdrawn = true, title = '', description = '', revision = EXCLUDED.revision
                    WHERE NOT activities.withdrawn
                    """, logger: logger)
            case let erased as ActivityAuthorErased:
                try await connection.query(
                    """
                    UPDATE activities SET withdrawn = true, title = '', description = '', revision = \(event.position.offset)
                    WHERE NOT withdrawn AND submission_id IN (SELECT submission_id FROM activity_submissions WHERE author_id = \(erased.authorId))
                    """, logger: logger)
                try await connection.query(
                    "UPDATE activity_submissions SET status = 'erased' WHERE author_id = \(erased.authorId) AND status IN ('pending', 'held')",
                    logger: logger)
            case let submitted as ActivitySubmitted:
                // Words already gone (the author erased before this was read): nothing to keep or decide.
                guard submitted.content != nil else { continue }
                let content = try submitted.content.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
                try await connection.query(
                    """
                    INSERT INTO activity_submissions (submission_id, author_id, content, status, submitted_at)
                    VALUES (\(submitted.submissionId), \(submitted.authorId), \(content)::jsonb, 'pending', \(event.metadata.occurredAt))
                    ON CONFLICT (submission_id) DO NOTHING
                    """, logger: logger)
            case let moderated as ActivityModerated:
                try await moderate(moderated, event: event, on: connection, logger: logger)
            case let erased as UserErased:
                try await connection.query("DELETE FROM activity_submissions WHERE author_id = \(erased.userId)", logger: logger)
            default:
                continue
            }
        }
    }

    private func publish(
        _ id: String, source: String, submission: UUID?, _ content: ActivityContent, revision: Int64, on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        try await connection.query(
            """
            INSERT INTO activities (activity_id, source, submission_id, title, description, time_minutes, energy, contexts, category,
                                    min_age, max_age, repeatability, withdrawn, revision)
            VALUES (\(id), \(source), \(submission), \(content.title), \(content.description), \(content.timeMinutes), \(content.energy),
                    \(content.contexts)::text[], \(content.category), \(content.minAge), \(content.maxAge), \(content.repeatability), false, \(revision))
            ON CONFLICT (activity_id) DO UPDATE SET
                source = EXCLUDED.source, submission_id = EXCLUDED.submission_id, title = EXCLUDED.title, description = EXCLUDED.description,
                time_minutes = EXCLUDED.time_minutes, energy = EXCLUDED.energy, contexts = EXCLUDED.contexts, category = EXCLUDED.category,
                min_age = EXCLUDED.min_age, max_age = EXCLUDED.max_age, repeatability = EXCLUDED.repeatability, withdrawn = false,
                revision = EXCLUDED.revision
            WHERE (activities.source, activities.submission_id, activities.title, activities.description, activities.time_minutes,
                   activities.energy, activities.contexts, activities.category, activities.min_age, activities.max_age,
                   activities.repeatability, activities.withdrawn)
                  IS DISTINCT FROM
                  (EXCLUDED.source, EXCLUDED.submission_id, EXCLUDED.title, EXCLUDED.description, EXCLUDED.time_minutes, EXCLUDED.energy,
                   EXCLUDED.contexts, EXCLUDED.category, EXCLUDED.min_age, EXCLUDED.max_age, EXCLUDED.repeatability, false)
            """, logger: logger)
    }

    private func moderate(_ moderated: ActivityModerated, event: ProjectedEvent, on connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.query(
            """
            UPDATE activity_submissions SET status = \(moderated.decision), reason = \(moderated.reason), note = \(moderated.note),
                activity_id = \(moderated.activityId),
                -- An admin's decision keeps what the pipeline found.
                nearest_activity_id = coalesce(\(moderated.nearestActivityId), nearest_activity_id), similarity = coalesce(\(moderated.similarity), similarity),
                moderator = \(moderated.moderator), decided_at = \(event.metadata.occurredAt)
            WHERE submission_id = \(moderated.submissionId) AND status IN ('pending', 'held')
            RETURNING content::text
            """, logger: logger)
        for try await content in rows.decode(String?.self) {
            guard moderated.decision == "approved", let activityId = moderated.activityId, let content else { continue }
            let decoded = try JSONDecoder().decode(ActivityContent.self, from: Data(content.utf8))
            try await publish(activityId, source: ActivityPublished.communitySource, submission: moderated.submissionId, decoded,
                              revision: event.position.offset, on: connection, logger: logger)
        }
    }
}
