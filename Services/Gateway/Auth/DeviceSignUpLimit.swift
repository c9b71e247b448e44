import Foundation
import Synchronization

/// How many new anonymous (device) accounts one client address may create per hour. A device
/// account is made from any 16-character string, and each comes with a fresh monthly quota:
/// without a limit, a script mints quota. Counted per gateway instance (a few instances multiply
/// the limit by a few, not by millions); signing in again to an existing account is not counted.
final class DeviceSignUpLimit: Sendable {
    let perHour: Int
    private let windows = Mutex<(start: Date, counts: [String: Int])>((Date.distantPast, [:]))

    init(perHour: Int) {
        self.perHour = perHour
    }

    /// Takes one sign-up for `client`; nil when allowed, else the seconds until the next window.
    func take(_ client: String, now: Date = Date()) -> Int? {
        windows.withLock { state in
            let hour = Date(timeIntervalSince1970: (now.timeIntervalSince1970 / 3600).rounded(.down) * 3600)
            if state.start != hour { state = (hour, [:]) }
            let used = state.counts[client, default: 0]
            guard used < perHour else { return max(1, Int(hour.addingTimeInterval(3600).timeIntervalSince(now).rounded(.up))) }
            state.counts[client] = used + 1
            return nil
        }
    }
}
