import Foundation
import Synchronization

/// Tokens this gateway has already verified, with the user and expiry they carry.
///
/// A token is immutable and signed, so once its signature and claims passed, the same bytes
/// pass again until they expire; re-verifying an RSA signature on every request (through
/// JWTKit's key collection, an actor every request would queue on) is pure cost. Entries end at
/// the token's expiry; the cache is bounded and simply starts over when full.
final class VerifiedTokenCache: Sendable {
    private struct Entry {
        let token: VerifiedToken
        let expiresAt: Date
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let capacity: Int

    init(capacity: Int = 50_000) {
        self.capacity = capacity
    }

    func user(for token: String, now: Date) -> VerifiedToken? {
        entries.withLock { entries in
            guard let entry = entries[token] else { return nil }
            guard now < entry.expiresAt else {
                entries[token] = nil
                return nil
            }
            return entry.token
        }
    }

    func remember(_ token: String, verified: VerifiedToken, expiresAt: Date) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[token] = Entry(token: verified, expiresAt: expiresAt)
        }
    }
}
