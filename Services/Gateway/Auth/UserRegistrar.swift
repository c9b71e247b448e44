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

    func ensureRegistered(_ userId: UUID, provider: IdentityProvider, subject: String?, displayName: String?, context: HearthRequestContext) async throws {
        guard try await !users.exists(userId) else { return }
        let event = UserRegistered(userId: userId, provider: provider.rawValue, subject: subject, displayName: displayName)
        let position = try await publisher.publish(event, correlationId: context.correlationId)
        context.logger.info("user registered", metadata: ["user_id": "\(userId)", "provider": "\(provider.rawValue)"])
        // So that `GET /v1/me` right after the first sign-in knows the user. A slow projection
        // is no reason to fail a sign-in: the token is valid either way.
        if try await !consistency.waiter.wait(for: position, projections: [GatewayProjection.users]) {
            context.logger.warning("users projection is behind a registration", metadata: ["position": "\(position)"])
        }
    }
}
