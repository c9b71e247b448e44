import Foundation
import HearthStore
import Synchronization

/// The runs this gateway admitted in the last minute, and for whom. A run (or an action one of its
/// runs proposed) is read the moment a stream showed it, before its projection has it: only those
/// reads are worth waiting for. Any other unknown id answers 404 at once, exactly as another
/// user's does, so how long a 404 takes says nothing about whether the id exists.
final class RecentRuns: Sendable {
    static let window: TimeInterval = 60

    private struct State {
        var runs = RecentlyUsed<UUID, (user: UUID, at: Date)>(capacity: 10_000)
        var lastByUser = RecentlyUsed<UUID, Date>(capacity: 10_000)
    }

    private let state = Mutex(State())

    func admitted(_ run: UUID, for user: UUID, now: Date = Date()) {
        state.withLock {
            $0.runs.insert((user, now), for: run)
            $0.lastByUser.insert(now, for: user)
        }
    }

    /// Whether `user` started `run` here within the window.
    func isRecent(_ run: UUID, of user: UUID, now: Date = Date()) -> Bool {
        state.withLock { state in
            guard let entry = state.runs.value(for: run) else { return false }
            return entry.user == user && now.timeIntervalSince(entry.at) < Self.window
        }
    }

    /// Whether `user` started any run here within the window (an action id they ask about may be
    /// one it proposed).
    func hasRecentRun(of user: UUID, now: Date = Date()) -> Bool {
        state.withLock { state in state.lastByUser.value(for: user).map { now.timeIntervalSince($0) < Self.window } ?? false }
    }
}
