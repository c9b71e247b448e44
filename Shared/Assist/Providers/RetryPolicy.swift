/// How often and how patiently a provider retries a call that failed before any text arrived
/// (429, 5xx, transport errors). Bounded on purpose: past a few tries the router's fallback to
/// the next provider serves the family sooner than waiting.
public struct RetryPolicy: Sendable, Equatable {
    /// Tries in all, the first included.
    public var maxAttempts: Int
    /// The wait before the second try; doubles with each further try.
    public var baseDelay: Duration
    public var maxDelay: Duration
    /// A `Retry-After` longer than this is not waited out: the call fails over instead.
    public var maxRetryAfter: Duration

    public init(maxAttempts: Int = 3, baseDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(4), maxRetryAfter: Duration = .seconds(10)) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
    }

    public static let `default` = RetryPolicy()

    /// The wait before try `attempt + 1` after try `attempt` (1-based) failed with `error`, or
    /// nil when there is to be no further try.
    func delay(after attempt: Int, error: ModelProviderError) -> Duration? {
        guard error.isRetryable, attempt < maxAttempts else { return nil }
        if let retryAfter = error.retryAfter {
            return retryAfter <= maxRetryAfter ? retryAfter : nil
        }
        let exponential = baseDelay * (1 << min(attempt - 1, 16))
        let capped = min(exponential, maxDelay)
        // Jitter in [50 %, 100 %] so that runs throttled together do not retry together.
        return capped * Double.random(in: 0.5...1.0)
    }
}
