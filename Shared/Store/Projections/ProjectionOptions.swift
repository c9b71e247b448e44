/// How a projection runner batches and retries. Defaults suit a 2-core dev box and production alike.
public struct ProjectionOptions: Sendable {
    /// Most events applied in one transaction.
    public var maxBatchSize: Int
    /// How long to wait for more events when a batch is not full; zero applies what is there at once.
    public var linger: Duration
    /// Attempts at one failing event before it is parked in the dead-letter topic.
    public var maxAttempts: Int
    /// First back-off after a failure; doubles up to `maxBackoff`.
    public var initialBackoff: Duration
    public var maxBackoff: Duration
    /// A runner with events to apply that has moved no offset for this long is stuck: `/readyz`
    /// says so and `hearth_projection_stuck` is 1.
    public var stuckAfter: Duration
    /// Longest wait for one batch's transaction; then it is abandoned and retried. Above the
    /// slowest legitimate batch (a thousand documents embedded).
    public var commitTimeout: Duration

    public init(
        maxBatchSize: Int = 1000, linger: Duration = .milliseconds(2), maxAttempts: Int = 3,
        initialBackoff: Duration = .milliseconds(50), maxBackoff: Duration = .seconds(5), stuckAfter: Duration = .seconds(60),
        commitTimeout: Duration = .seconds(300)
    ) {
        self.maxBatchSize = maxBatchSize
        self.linger = linger
        self.maxAttempts = maxAttempts
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.stuckAfter = stuckAfter
        self.commitTimeout = commitTimeout
    }
}
