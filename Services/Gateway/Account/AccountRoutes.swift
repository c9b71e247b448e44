import Foundation
import HearthEvents
import HearthGoogle
import HearthRuntime
import HearthStore
import Hummingbird
import PostgresNIO

/// What `DELETE /v1/me` and `POST /v1/me/restore` answer.
struct AccountDeletionStatus: ResponseEncodable {
    /// `deletion_scheduled` or `restored`.
    let status: String
    let eraseAfter: Date?
    let position: String?

    enum CodingKeys: String, CodingKey {
        case status
        case eraseAfter = "erase_after"
        case position
    }
}

/// `DELETE /v1/me` (with a sign-in of the last ten minutes) schedules the account's erasure after
/// the grace period (`HEARTH_ACCOUNT_DELETION_GRACE_DAYS`) and ends its sessions at once;
/// `POST /v1/me/restore`, within the grace period, keeps the account.
struct AccountRoutes: Sendable {
    /// How recent the sign-in behind a deletion must be: a token left on a lost phone cannot
    /// delete the account.
    static let freshSignIn: TimeInterval = 600
    /// How long before the end of the grace period a restore is still taken.
    static let restoreMargin: TimeInterval = 60

    let publisher: EventPublisher
    let users: UserReadModel
    let grace: TimeInterval
    let client: PostgresClient

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.delete("me") { request, context in
            EditedResponse(status: .accepted, response: try await delete(request, context: context))
        }
        routes.post("me/restore") { request, context in try await restore(request, context: context) }
    }

    func delete(_ request: Request, context: HearthRequestContext) async throws -> AccountDeletionStatus {
        let user = try context.authenticatedUser()
        let now = Date()
        guard let signedIn = context.signedInAt, now.timeIntervalSince(signedIn) <= Self.freshSignIn else {
            throw APIError(
                .forbidden, code: "reauthentication_required",
                message: "deleting the account needs a sign-in of the last 10 minutes: sign in again, then retry with the new token")
        }
        if let pending = try await users.deletion(of: user), pending.erasedAt == nil, let eraseAfter = pending.eraseAfter {
            return AccountDeletionStatus(status: "deletion_scheduled", eraseAfter: eraseAfter, position: nil)
        }
        let event = UserDeletionRequested(userId: user, requestedAt: now, eraseAfter: now.addingTimeInterval(grace))
        let position = try await publisher.publish(event, correlationId: context.correlationId)
        // The Google refresh token goes at once (calendar-sync drops the link on the event): no
        // sync may run for an account being deleted.
        try await GoogleCredentialStore(client: client, logger: context.logger).delete(userId: user)
        context.logger.notice("account deletion requested", metadata: ["erase_after": "\(event.eraseAfter)"])
        return AccountDeletionStatus(status: "deletion_scheduled", eraseAfter: event.eraseAfter, position: position.description)
    }

    func restore(_ request: Request, context: HearthRequestContext) async throws -> AccountDeletionStatus {
        let user = try context.authenticatedUser()
        guard let pending = try await users.deletion(of: user), pending.erasedAt == nil, let eraseAfter = pending.eraseAfter else {
            throw APIError(.conflict, code: "not_pending_deletion", message: "this account is not being deleted")
        }
        // The eraser acts on what the users read model says: a restore too close to the end of
        // the grace period could reach it after the erasure began, and be answered a lie.
        guard Date().addingTimeInterval(Self.restoreMargin) < eraseAfter else {
            throw APIError(.conflict, code: "erasure_started", message: "the grace period is over: the account is being erased")
        }
        let position = try await publisher.publish(UserDeletionCancelled(userId: user), correlationId: context.correlationId)
        context.logger.notice("account deletion cancelled")
        return AccountDeletionStatus(status: "restored", eraseAfter: nil, position: position.description)
    }
}
