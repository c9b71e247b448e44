import Foundation

/// Exponential back-off between delivery attempts: `base · 2^(attempt − 1)`, capped, and never
/// shorter than what the receiver asked for (`Retry-After`).
public struct RetryBackoff: Sendable, Equatable {
    public var base: TimeInterval
    public var cap: TimeInterval
    /// Attempts at one target before it is given up on.
    public var maxAttempts: Int

    public init(base: TimeInterval = 2, cap: TimeInterval = 300, maxAttempts: Int = 5) {
        self.base = base
        self.cap = cap
        self.maxAttempts = maxAttempts
    }

    /// The wait after failed attempt `attempt` (1-based).
    public func delay(afterAttempt attempt: Int, retryAfter: TimeInterval? = nil) -> TimeInterval {
        let exponent = min(max(attempt - 1, 0), 30)
        let computed = min(cap, base * pow(2, Double(exponent)))
        return max(computed, min(retryAfter ?? 0, cap))
    }

    public func mayRetry(afterAttempt attempt: Int) -> Bool { attempt < maxAttempts }
}

/// Notification ids are derived, not random: the same reminder generation delivered on the same
/// channel to the same target always has the same id, so a re-published outcome is recognisable.
public enum NotificationIdentity {
    public static func notificationId(reminderId: UUID, dueAt: Date, channel: String, target: String) -> UUID {
        let millis = Int64((dueAt.timeIntervalSince1970 * 1000).rounded())
        return derivedUUID("notification|\(reminderId.uuidString.lowercased())|\(millis)|\(channel)|\(target)")
    }

    /// A name-based UUID (version 8 layout over SHA-256): stable across processes and versions.
    public static func derivedUUID(_ name: String) -> UUID {
        var bytes = Array(SHA256Digest.of(Data(name.utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
            bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
