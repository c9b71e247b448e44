import Foundation
import Logging
import NIOCore
import PostgresNIO

/// The `idempotency_keys` rows: which requests were sent with which key, and the answer each got.
struct IdempotencyStore: Sendable {
    let client: PostgresClient
    let logger: Logger
    /// How long a key answers with its first answer; after that it is a new key.
    static let retention: TimeInterval = 24 * 3600
    /// A request still running after this long is taken for dead (its gateway was killed): a retry
    /// may run it again, under the same event ids. Above the longest a request runs (two
    /// publishes of at most `HEARTH_KAFKA_DELIVERY_TIMEOUT_MS` each and two consistency waits).
    static let abandonedAfter: TimeInterval = 30

    enum Claim: Equatable {
        /// This request runs now; the key is held until `complete` or `release`.
        case claimed
        /// A request with this key already succeeded: its answer.
        case answered(status: Int, contentType: String?, body: [UInt8])
        /// The key was used for a different request (method, path or body differ).
        case reusedForAnotherRequest
        /// A request with this key is running right now.
        case inProgress
    }

    /// Takes the key for this request, or says why not. Expired and abandoned rows are taken over.
    /// `claim` names this attempt: only it may complete or release the key, so an attempt taken
    /// for dead that is still alive cannot undo its successor's claim.
    func claim(user: UUID, key: String, fingerprint: String, claim: UUID) async throws -> Claim {
        let rows = try await client.query(
            """
            INSERT INTO idempotency_keys (user_id, key, fingerprint, claim_id) VALUES (\(user), \(key), \(fingerprint), \(claim))
            ON CONFLICT (user_id, key) DO UPDATE
                SET fingerprint = EXCLUDED.fingerprint, claim_id = EXCLUDED.claim_id, status = NULL, content_type = NULL, body = NULL,
                    created_at = now(), completed_at = NULL
                WHERE idempotency_keys.created_at < now() - make_interval(secs => \(Self.retention))
                   OR (idempotency_keys.completed_at IS NULL AND idempotency_keys.created_at < now() - make_interval(secs => \(Self.abandonedAfter))
                       AND idempotency_keys.fingerprint = EXCLUDED.fingerprint)
            RETURNING 1
            """, logger: logger)
        for try await _ in rows { return .claimed }
        // Someone holds the key: what did they send, and is it done?
        let existing = try await client.query(
            "SELECT fingerprint, status, content_type, body FROM idempotency_keys WHERE user_id = \(user) AND key = \(key)", logger: logger)
        for try await (storedFingerprint, status, contentType, body) in existing.decode((String, Int32?, String?, ByteBuffer?).self) {
            guard storedFingerprint == fingerprint else { return .reusedForAnotherRequest }
            guard let status else { return .inProgress }
            return .answered(status: Int(status), contentType: contentType, body: body.map { Array(buffer: $0) } ?? [])
        }
        // Released between the two statements: try again.
        return try await self.claim(user: user, key: key, fingerprint: fingerprint, claim: claim)
    }

    func complete(user: UUID, key: String, claim: UUID, status: Int, contentType: String?, body: ByteBuffer) async throws {
        try await client.query(
            """
            UPDATE idempotency_keys SET status = \(Int32(status)), content_type = \(contentType), body = \(body), completed_at = now()
            WHERE user_id = \(user) AND key = \(key) AND claim_id = \(claim)
            """, logger: logger)
    }

    /// Gives the key back: the request failed, so a retry runs it again.
    func release(user: UUID, key: String, claim: UUID) async throws {
        try await client.query(
            "DELETE FROM idempotency_keys WHERE user_id = \(user) AND key = \(key) AND claim_id = \(claim) AND completed_at IS NULL", logger: logger)
    }

    func deleteExpired() async throws {
        try await client.query(
            "DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(secs => \(Self.retention))", logger: logger)
    }
}
