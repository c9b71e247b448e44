import Foundation
import HearthEvents
import HearthRuntime
import Hummingbird

/// Who may see and log for a child: any member of the child's household; and, for the reads a
/// tracking summary is made of, a coach of the household whose scope includes tracking. A child
/// of another household (or no child at all, or a coach without that scope) is a 404, never a
/// 403, so ids reveal nothing.
struct ChildAccess: Sendable {
    let membership: MembershipReadModel
    let readModel: TrackingReadModel
    let users: UserReadModel

    /// Whether a route lets a coach in: only reads of summaries and their figures, never logs,
    /// photos, imports or writes.
    enum Readers: Sendable {
        case members
        case membersAndTrackingCoaches
    }

    func child(_ request: Request, context: HearthRequestContext, readers: Readers = .members) async throws -> (user: UUID, child: TrackedChild) {
        let user = try context.authenticatedUser()
        guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
            throw APIError.invalid("id", "the child id in the path must be a UUID")
        }
        // The child's id says which household it is of: a user of several households needs no header.
        for household in try await membership.memberships(of: user) {
            if let child = try await readModel.child(id, of: household.householdId) { return (user, child) }
        }
        // Checked on every request: a narrowed scope or an ended relationship applies at once.
        if readers == .membersAndTrackingCoaches, let household = try await readModel.household(ofChild: id),
           let scope = try await membership.coachScope(user, in: household), scope.allows(.tracking),
           let child = try await readModel.child(id, of: household)
        {
            return (user, child)
        }
        throw APIError.notFound("child")
    }

    /// The scope of a coach reading the child; nil for a member of the child's household.
    func coachScope(of user: UUID, for child: TrackedChild) async throws -> CoachScope? {
        guard try await membership.role(of: user, in: child.householdId) == nil else { return nil }
        return try await membership.coachScope(user, in: child.householdId)
    }

    /// The caller's time zone (their profile's), which decides nap or night and where days begin.
    func timeZone(of user: UUID) async throws -> TimeZone {
        let name = try await users.find(user)?.timeZone
        return name.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")!
    }
}
