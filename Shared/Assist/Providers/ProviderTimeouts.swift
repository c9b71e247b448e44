import AsyncHTTPClient
import NIOCore

/// Time limits of a provider call. `connect` and `read` belong to the HTTP client (build it
/// from `httpClientConfiguration`); `head` and `idle` the providers enforce per request, so
/// they hold even with a client configured elsewhere.
public struct ProviderTimeouts: Sendable, Equatable {
    public var connect: Duration
    /// Until the response head arrives (the model may think before its first byte).
    public var head: Duration
    /// The longest silence tolerated inside a streamed body.
    public var idle: Duration

    public init(connect: Duration = .seconds(5), head: Duration = .seconds(30), idle: Duration = .seconds(30)) {
        self.connect = connect
        self.head = head
        self.idle = idle
    }

    public static let `default` = ProviderTimeouts()

    /// An AsyncHTTPClient configuration with these connect and read timeouts.
    public var httpClientConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: Self.timeAmount(connect), read: Self.timeAmount(idle))
        return configuration
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        .nanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }
}
