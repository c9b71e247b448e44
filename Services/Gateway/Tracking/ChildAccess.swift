import Foundation
import HearthRuntime
import Hummingbird

/// Who may see and log for a child: any member of the child's household. A child of another
/// household (or no child at all) is a 404, never a 403, so ids reveal nothing.
struct ChildAccess: Sendable {
    let membership: MembershipReadModel
    let readModel: TrackingReadModel
    let users: UserReadModel

    func child(_ request: Request, context: HearthRequestContext) async throws -> (user: UUID, child: TrackedChild) {
        let user = try context.authenticatedUser()
        guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
            throw APIError.invalid("id", "the child id in the path must be a UUID")
        }
        // The child's id says which household it is of: a user of several households needs no header.
        for household in try await membership.memberships(of: user) {
            if let child = try await readModel.child(id, of: household.householdId) { return (user, child) }
        }
        throw APIError.notFound("child")
    }

    /// The caller's time zone (their profile's), which decides nap or night and where days begin.
    func timeZone(of user: UUID) async throws -> TimeZone {
        let name = try await users.find(user)?.timeZone
        return name.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")!
    }
}
