import Foundation
import Logging
import PostgresNIO

/// The gateway's `google_credentials` table: each linked user's refresh token, sealed by
/// `SecretBox`. Written by the gateway when a user connects, read by calendar-sync to refresh
/// access tokens, deleted on disconnect. Not an event-sourced read model on purpose: a secret
/// must be destroyable, and the event log keeps everything forever.
public struct GoogleCredentialStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    public func save(userId: UUID, sealedRefreshToken: Data, scope: String) async throws {
        try await client.query(
            """
            INSERT INTO google_credentials (user_id, sealed_refresh_token, scope, updated_at)
            VALUES (\(userId), \(ByteBuffer(data: sealedRefreshToken)), \(scope), now())
            ON CONFLICT (user_id) DO UPDATE SET sealed_refresh_token = EXCLUDED.sealed_refresh_token,
                scope = EXCLUDED.scope, updated_at = now()
            """, logger: logger)
    }

    public func sealedRefreshToken(of userId: UUID) async throws -> Data? {
        let rows = try await client.query("SELECT sealed_refresh_token FROM google_credentials WHERE user_id = \(userId)", logger: logger)
        for try await buffer in rows.decode(ByteBuffer.self) { return Data(buffer: buffer) }
        return nil
    }

    /// The same read on a connection the caller holds (calendar-sync, inside its apply).
    public static func sealedRefreshToken(of userId: UUID, on connection: PostgresConnection, logger: Logger) async throws -> Data? {
        let rows = try await connection.query("SELECT sealed_refresh_token FROM google_credentials WHERE user_id = \(userId)", logger: logger)
        for try await buffer in rows.decode(ByteBuffer.self) { return Data(buffer: buffer) }
        return nil
    }

    public func delete(userId: UUID) async throws {
        try await client.query("DELETE FROM google_credentials WHERE user_id = \(userId)", logger: logger)
    }
}
