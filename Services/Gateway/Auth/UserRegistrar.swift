import Foundation
import HearthDomain
import HearthEvents
import HearthStore
import Hummingbird
import HearthRuntime

/// Records a user's first sign-in as `user.registered`. The user id never depends on this (it is
/// derived from provider and subject); the event only makes the user known to the read models.
struct UserRegistrar: Sendable {
    let publisher: EventPublisher
    let users: UserReadModel
    let consistency: ReadConsistency

    /// `role` is the account's (`member` or `coach`), chosen at sign-up: a later sign-in asking
    /// for another one is a 409, since the user cannot change it. A person signing up with a
    /// real identity (Apple, dev) needs a display name, coach or member: households and coaches
    /// must know who they talk to. Device accounts are the anonymous installs of the activities
    /// app and are the only ones without.
    func ensureRegistered(
        _ userId: UUID, provider: IdentityProvider, subject: String?, displayName: String?, role: String? = nil, context: HearthRequestContext
    ) async throws {
        if let role, !UserRegisteredV2.roles.contains(role) {
            throw APIError.invalid("role", "role must be member or coach")
        }
        if let stored = try await users.role(of: userId) {
            if let role, role != stored {
                throw APIError(.conflict, code: "role_fixed", message: "this account signed up as a \(stored); the role is chosen once, at sign-up")
            }
            return
        }
        let role = role ?? "member"
        if provider != .device, (displayName ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw APIError.invalid("display_name", "a \(role) signs up with a display name (the first sign-in gives it; later ones need not)")
        }
        let event = UserRegisteredV2(userId: userId, provider: provider.rawValue, subject: subject, displayName: displayName, role: role)
        let position = try await publisher.publish(event, correlationId: context.correlationId)
        context.logger.info("user registered", metadata: ["user_id": "\(userId)", "provider": "\(provider.rawValue)"])
        // So that `GET /v1/me` right after the first sign-in knows the user. A slow projection
        // is no reason to fail a sign-in: the token is valid either way.
        if try await !consistency.waiter.wait(for: position, projections: [GatewayProjection.users]) {
            context.logger.warning("users projection is behind a registration", metadata: ["position": "\(position)"])
        }
    }
}
