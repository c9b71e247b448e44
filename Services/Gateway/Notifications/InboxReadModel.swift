import Foundation
import HearthEvents
import HearthRuntime
import Logging
import PostgresNIO

/// Reads the notifier's `notification_inbox` and `reminders` read models for the gateway (a read
/// across executables, declared in `ReadModelCatalogue.foreignReads`).
struct InboxReadModel: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// A position in the newest-first list: the last item's time and id.
    struct Cursor: Equatable {
        var createdAt: Date
        var notificationId: UUID

        var text: String {
            let millis = Int64((createdAt.timeIntervalSince1970 * 1000).rounded())
            return Self.base64URL(Data("\(millis):\(notificationId.uuidString.lowercased())".utf8))
        }

        init(createdAt: Date, notificationId: UUID) {
            self.createdAt = createdAt
            self.notificationId = notificationId
        }

        init?(text: String) {
            var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while base64.count % 4 != 0 { base64 += "=" }
            guard let data = Data(base64Encoded: base64), let decoded = String(data: data, encoding: .utf8) else { return nil }
            let parts = decoded.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let millis = Int64(parts[0]), let id = UUID(uuidString: String(parts[1])) else { return nil }
            self.init(createdAt: Date(timeIntervalSince1970: Double(millis) / 1000), notificationId: id)
        }

        private static func base64URL(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
    }

    func page(userId: UUID, unreadOnly: Bool, after cursor: Cursor?, limit: Int) async throws -> (items: [InboxItem], next: Cursor?) {
        let before = cursor?.createdAt ?? Date(timeIntervalSince1970: 253_402_300_799)
        let beforeId = cursor?.notificationId ?? UUID(uuidString: "ffffffff-ffff-ffff-ffff-ffffffffffff")!
        let rows = try await client.query(
            """
            SELECT notification_id, reminder_id, title, body, created_at, read_at IS NOT NULL
            FROM notification_inbox
            WHERE user_id = \(userId) AND (NOT \(unreadOnly) OR read_at IS NULL)
              AND (created_at, notification_id) < (\(before), \(beforeId))
            ORDER BY created_at DESC, notification_id DESC
            LIMIT \(limit + 1)
            """, logger: logger)
        var items: [InboxItem] = []
        for try await (id, reminderId, title, body, createdAt, read) in rows.decode((UUID, UUID, String, String?, Date, Bool).self) {
            items.append(InboxItem(notificationId: id, reminderId: reminderId, title: title, body: body, createdAt: createdAt, read: read))
        }
        guard items.count > limit else { return (items, nil) }
        items.removeLast()
        let last = items[items.count - 1]
        return (items, Cursor(createdAt: last.createdAt, notificationId: last.notificationId))
    }

    func exists(_ notificationId: UUID, userId: UUID) async throws -> Bool {
        let rows = try await client.query(
            "SELECT 1::int FROM notification_inbox WHERE notification_id = \(notificationId) AND user_id = \(userId)", logger: logger)
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }

    /// The owner of a reminder the notifier has projected, if it has.
    func reminderOwner(_ reminderId: UUID) async throws -> UUID? {
        let rows = try await client.query("SELECT user_id FROM reminders WHERE reminder_id = \(reminderId)", logger: logger)
        for try await owner in rows.decode(UUID.self) { return owner }
        return nil
    }
}
