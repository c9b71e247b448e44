import Foundation

/// Reads how long a server asked us to wait: `Retry-After` as seconds or as an HTTP date, and
/// OpenAI's `retry-after-ms`, which is more precise when present.
enum RetryAfter {
    static func parse(retryAfter: String?, retryAfterMs: String?, now: Date = Date()) -> Duration? {
        if let ms = retryAfterMs.flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }), ms >= 0, ms.isFinite {
            return .milliseconds(Int64(ms.rounded(.up)))
        }
        guard let value = retryAfter?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Double(value), seconds >= 0, seconds.isFinite {
            return .milliseconds(Int64((seconds * 1000).rounded(.up)))
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        let seconds = max(0, date.timeIntervalSince(now))
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }
}
