import Foundation
import HearthEvents
import HearthGoogle
import HearthPrivacy
import HearthRuntime
import HearthStore
import Logging
import Metrics
import PostgresNIO
import ServiceLifecycle

/// Erases the accounts whose deletion grace period is over: destroys the data keys of the user,
/// of their assistant runs and of the households they were the only member of (which makes every
/// sealed copy of that data in Kafka, the archive and any replay unreadable for good), then
/// publishes `user.erased`, on which every read model forgets them.
///
/// Crash-safe without a transaction across the two: destroying is idempotent, and a user stays
/// due until the users projection has applied `user.erased`, so a crash between the steps (or two
/// gateways erasing at once) repeats the destruction and publishes `user.erased` again, which every
/// projection applies idempotently.
struct AccountEraser: Sendable {
    let client: PostgresClient
    let keys: DataKeyRing
    let sessions: AuthSessions
    let publisher: EventPublisher
    /// What `user.erased` waits for: the feed's tombstones of the author's activities.
    let waiter: ConsistencyWaiter
    let logger: Logger

    /// Erases what is due every `interval`.
    func service(every interval: Duration) -> PeriodicService {
        PeriodicService("erasing due accounts", every: interval, logger: logger) { try await eraseDue() }
    }

    /// Erases every account whose grace period is over; answers how many. One whose last step
    /// must wait (`erase` answers false) stays due for the next round and does not hold up the
    /// accounts that need no wait. Once the feed was found behind, the round waits for it no more:
    /// the other accounts that submitted activities wait for the next round too (the feed lags for
    /// all of them at once, and 30 s each would stretch a round to most of an hour). A shutdown
    /// ends the round between accounts.
    @discardableResult
    func eraseDue() async throws -> Int {
        var due: [UUID] = []
        let rows = try await client.query(
            """
            SELECT user_id FROM users
            WHERE deletion_requested_at IS NOT NULL AND erased_at IS NULL AND erase_after <= now()
            ORDER BY erase_after LIMIT 100
            """, logger: logger)
        for try await user in rows.decode(UUID.self) { due.append(user) }
        var erased = 0
        var feedBehind = false
        for user in due where !Task.isShuttingDownGracefully {
            if feedBehind, try await hasSubmissions(user) { continue }
            if try await erase(user) {
                erased += 1
            } else {
                feedBehind = true
            }
        }
        return erased
    }

    /// Erases one account; answers false when `user.erased` had to wait (logged, counted).
    private func erase(_ user: UUID) async throws -> Bool {
        // The households nobody else belongs to go with their last member.
        var households: [UUID] = []
        let rows = try await client.query(
            """
            SELECT uh.household_id FROM user_households uh
            WHERE uh.user_id = \(user)
              AND NOT EXISTS (SELECT 1 FROM user_households other WHERE other.household_id = uh.household_id AND other.user_id <> uh.user_id)
            """, logger: logger)
        for try await household in rows.decode(UUID.self) { households.append(household) }
        // The user's runs, and every run made for a household that goes (a pediatrician summary a
        // caregiver who has since moved away asked for holds the household's child's health data).
        var runs: [UUID] = []
        let runRows = try await client.query(
            "SELECT run_id FROM agent_runs WHERE user_id = \(user) OR household_id = ANY(\(households)) ORDER BY run_id", logger: logger)
        for try await run in runRows.decode(UUID.self) { runs.append(run) }
        let subjects = ["user:\(user.uuidString.lowercased())"]
            + runs.map(KeySubject.run)
            + households.map { "household:\($0.uuidString.lowercased())" }
        let destroyed = try await keys.destroy(subjects: subjects, because: "user.erased")
        try await GoogleCredentialStore(client: client, logger: logger).delete(userId: user)
        try await sessions.forget(user)
        try await client.query("DELETE FROM webhook_secrets WHERE user_id = \(user)", logger: logger)
        try await client.query("DELETE FROM account_deletion_codes WHERE user_id = \(user)", logger: logger)
        // Built exports are plaintext copies: they go with the keys.
        try await client.query(
            "DELETE FROM export_archives WHERE user_id = \(user) OR export_id IN (SELECT export_id FROM export_requests WHERE household_id = ANY(\(households)))",
            logger: logger)
        // The feed hears of it first, in its own order: what it took from them becomes tombstones.
        // Its projection finds their activities through their submissions, which `user.erased`
        // deletes, and reads the two topics as they come: when they submitted anything,
        // `user.erased` waits until the tombstones are made. Not in time: the user stays due and
        // the next round repeats it all (every step is idempotent). A
        // submission not projected yet needs no tombstone: its words were sealed with the key
        // just destroyed, so the feed never takes it. A deferral is not thrown: the log line and
        // the counter report it once, and the round goes on with the next account.
        let tombstones = try await publisher.publish(ActivityAuthorErased(authorId: user), correlationId: "erasure-\(user.uuidString.lowercased())")
        if try await hasSubmissions(user),
           !(try await waiter.wait(for: tombstones, projections: [GatewayProjection.activities], within: .seconds(30))) {
            Counter(label: "hearth_erasures_deferred_total").increment()
            logger.error("erasure deferred to the next round: the activities projection has not applied the author's tombstones within 30 s", metadata: [
                "user_id": "\(user.uuidString.lowercased())", "position": "\(tombstones)",
            ])
            return false
        }
        try await client.query("DELETE FROM activity_daily_usage WHERE user_id = \(user)", logger: logger)
        try await publisher.publish(
            UserErased(userId: user, householdIds: households, runIds: runs), correlationId: "erasure-\(user.uuidString.lowercased())")
        logger.notice("account erased", metadata: [
            "user_id": "\(user.uuidString.lowercased())", "keys_destroyed": "\(destroyed)", "runs": "\(runs.count)",
            "households": "\(households.count)",
        ])
        return true
    }

    private func hasSubmissions(_ user: UUID) async throws -> Bool {
        let rows = try await client.query("SELECT EXISTS (SELECT 1 FROM activity_submissions WHERE author_id = \(user))", logger: logger)
        for try await exists in rows.decode(Bool.self) { return exists }
        return false
    }
}

