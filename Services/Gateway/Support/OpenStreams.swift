import Foundation
import HearthRuntime
import Synchronization

/// How many live streams (chat, notifications, assist runs, the wellbeing WebSocket) each user
/// holds open on this gateway. A stream
/// holds a connection and a subscription for as long as the client likes: past the cap a new one
/// answers 429 (a client that leaks streams finds out; the others are unaffected).
final class OpenStreams: Sendable {
    let perUser: Int
    private let open = Mutex<[UUID: Int]>([:])

    init(perUser: Int) {
        self.perUser = perUser
    }

    /// A place for one more stream of `user`, held until the ticket is released (when the
    /// response body that captured it is done, however it ends).
    func admit(_ user: UUID) throws -> Ticket {
        let admitted = open.withLock { counts in
            guard counts[user, default: 0] < perUser else { return false }
            counts[user, default: 0] += 1
            return true
        }
        guard admitted else { throw tooMany }
        return Ticket(streams: self, user: user)
    }

    /// Refuses now when `user` has no room, without taking a place: for a WebSocket, whose
    /// upgrade must be refused before it is made (the place is taken once it is).
    func checkRoom(_ user: UUID) throws {
        guard count(of: user) < perUser else { throw tooMany }
    }

    private var tooMany: APIError {
        APIError(
            .tooManyRequests, code: "too_many_streams", message: "at most \(perUser) open streams per user; close one first",
            headers: [.retryAfter: "5"])
    }

    func count(of user: UUID) -> Int { open.withLock { $0[user, default: 0] } }

    fileprivate func release(_ user: UUID) {
        open.withLock { counts in
            let left = counts[user, default: 1] - 1
            counts[user] = left > 0 ? left : nil
        }
    }

    /// Released when the last reference goes: a response body that captured it and has finished,
    /// or was never run.
    final class Ticket: Sendable {
        private let streams: OpenStreams
        private let user: UUID

        fileprivate init(streams: OpenStreams, user: UUID) {
            self.streams = streams
            self.user = user
        }

        deinit { streams.release(user) }

        /// Keeps the ticket alive for as long as its caller (a response body) runs.
        func hold() {}
    }
}
