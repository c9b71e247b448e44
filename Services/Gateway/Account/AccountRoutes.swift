import Foundation
import HearthEvents
import HearthGoogle
import HearthPrivacy
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

/// What `POST /v1/me/deletion-code` answers: the code is on its way to the user's devices.
struct DeletionCodeSent: ResponseEncodable {
    let status: String
    let expiresAt: Date
    /// The devices it is pushed to.
    let devices: Int
    let position: String

    enum CodingKeys: String, CodingKey {
        case status
        case expiresAt = "expires_at"
        case devices, position
    }
}

/// `DELETE /v1/me`'s optional body: the code pushed by `POST /v1/me/deletion-code`, which stands
/// in for a fresh sign-in.
struct AccountDeletionRequestBody: Decodable {
    let code: String?
}

/// `DELETE /v1/me` (confirmed by a sign-in of the last ten minutes, or by a code pushed to the
/// user's devices) schedules the account's erasure after the grace period
/// (`HEARTH_ACCOUNT_DELETION_GRACE_DAYS`) and ends its sessions at once; `POST /v1/me/restore`,
/// within the grace period, keeps the account.
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
    /// Nil without `HEARTH_SECRETS_KEY`: then only a fresh sign-in confirms a deletion.
    let codes: AccountDeletionCodes?

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.delete("me") { request, context in
            EditedResponse(status: .accepted, response: try await delete(request, context: context))
        }
        routes.post("me/restore") { request, context in try await restore(request, context: context) }
        routes.post("me/deletion-code") { request, context in
            EditedResponse(status: .accepted, response: try await sendDeletionCode(request, context: context))
        }
    }

    func delete(_ request: Request, context: HearthRequestContext) async throws -> AccountDeletionStatus {
        let user = try context.authenticatedUser()
        let now = Date()
        let body = try await JSONRequestBody.decodeIfPresent(AccountDeletionRequestBody.self, from: request, context: context)
        if let code = body?.code, !AccountDeletionCode.isWellFormed(code) {
            throw APIError.invalid("code", "code must be the 6 digits of the code pushed to your devices")
        }
        // Asked again: the pending deletion stands, and a code sent along is not spent on it (the
        // sessions of before the deletion ended with it, so only a new sign-in gets here).
        if let pending = try await users.deletion(of: user), pending.erasedAt == nil, let eraseAfter = pending.eraseAfter {
            return AccountDeletionStatus(status: "deletion_scheduled", eraseAfter: eraseAfter, position: nil)
        }
        if let code = body?.code {
            try await confirm(code: code, user: user, now: now)
        } else {
            guard let signedIn = context.signedInAt, now.timeIntervalSince(signedIn) <= Self.freshSignIn else {
                throw APIError(
                    .forbidden, code: "reauthentication_required",
                    message: "deleting the account needs a sign-in of the last 10 minutes, or the code POST /v1/me/deletion-code pushes to your devices (as {\"code\": \"123456\"})")
            }
        }
        let event = UserDeletionRequested(userId: user, requestedAt: now, eraseAfter: now.addingTimeInterval(grace))
        let position = try await publisher.publish(event, correlationId: context.correlationId)
        // The Google refresh token goes at once (calendar-sync drops the link on the event): no
        // sync may run for an account being deleted.
        try await GoogleCredentialStore(client: client, logger: context.logger).delete(userId: user)
        context.logger.notice("account deletion requested", metadata: [
            "erase_after": "\(event.eraseAfter)", "confirmed_by": "\(body?.code == nil ? "sign_in" : "code")",
        ])
        return AccountDeletionStatus(status: "deletion_scheduled", eraseAfter: event.eraseAfter, position: position.description)
    }

    /// Throws unless `code` is the user's live deletion code (which it then spends).
    private func confirm(code: String, user: UUID, now: Date) async throws {
        guard let codes else {
            throw APIError(
                .serviceUnavailable, code: "deletion_codes_unavailable",
                message: "this server cannot issue deletion codes (no HEARTH_SECRETS_KEY): sign in again, then retry without a code", field: "code")
        }
        switch try await codes.redeem(code, for: user, now: now) {
        case .accepted:
            return
        case .wrong(let remaining):
            throw APIError(
                .forbidden, code: "deletion_code_invalid",
                message: remaining > 0 ? "the code is wrong; \(remaining) more \(remaining == 1 ? "try" : "tries")" : "the code is wrong, and now spent: ask for a new one",
                field: "code")
        case .noCode:
            throw APIError(
                .forbidden, code: "deletion_code_expired",
                message: "no deletion code is waiting (codes last 10 minutes and are spent by use, a newer code or 5 wrong tries): POST /v1/me/deletion-code sends a new one",
                field: "code")
        }
    }

    /// `POST /v1/me/deletion-code`: issues a code and has the notifier push it to the user's
    /// devices registered a day or more ago (only there: never the inbox or a webhook, which the
    /// same token could read, nor a device the same token could have just registered).
    func sendDeletionCode(_ request: Request, context: HearthRequestContext) async throws -> DeletionCodeSent {
        let user = try context.authenticatedUser()
        guard let codes else {
            throw APIError(
                .serviceUnavailable, code: "deletion_codes_unavailable",
                message: "this server cannot issue deletion codes (no HEARTH_SECRETS_KEY): sign in again to confirm a deletion")
        }
        let now = Date()
        var devices = 0
        for try await count in try await client.query(
            """
            SELECT count(*)::int FROM notification_devices
            WHERE user_id = \(user) AND active AND registered_at <= \(now.addingTimeInterval(-AccountDeletionCode.deviceSettling))
            """, logger: context.logger
        ).decode(Int.self) { devices = count }
        guard devices > 0 else {
            throw APIError(
                .conflict, code: "no_trusted_device",
                message: "a deletion code is pushed only to devices registered with this account a day ago or more, and it has none: sign in again instead")
        }
        let codeId: UUID
        let expiresAt: Date
        switch try await codes.issue(for: user, now: now) {
        case .issued(let id, let expiry):
            (codeId, expiresAt) = (id, expiry)
        case .hourlyLimit:
            throw APIError(
                .tooManyRequests, code: "too_many_deletion_codes",
                message: "at most \(AccountDeletionCodes.issueLimit) deletion codes an hour; use the last one, or sign in again instead",
                headers: [.retryAfter: "3600"])
        case .tooManyWrongTries:
            throw APIError(
                .tooManyRequests, code: "too_many_deletion_codes",
                message: "too many wrong deletion codes today: sign in again to delete the account", headers: [.retryAfter: "86400"])
        }
        let position = try await publisher.publish(
            UserDeletionCodeIssued(userId: user, codeId: codeId, expiresAt: expiresAt), correlationId: context.correlationId)
        context.logger.notice("account deletion code issued", metadata: ["code_id": "\(codeId.uuidString.lowercased())"])
        return DeletionCodeSent(status: "code_sent", expiresAt: expiresAt, devices: devices, position: position.description)
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
