/// Why a provider could not answer. `isRetryable` drives the provider's own retries; the router
/// falls back on any of them. Messages never contain credentials: providers scrub them.
public struct ModelProviderError: Error, CustomStringConvertible, Sendable {
    public enum Kind: String, Sendable, Equatable {
        /// HTTP 429.
        case rateLimited = "rate limited"
        /// HTTP 5xx (and Anthropic's 529 "overloaded").
        case server = "server error"
        /// Any other non-2xx status: the request itself is wrong (bad key, unknown model, …).
        case rejected = "rejected"
        /// The connection failed or dropped.
        case transport = "transport"
        /// No response head in time, or the stream stalled longer than the read timeout.
        case timeout = "timeout"
        /// The stream carried something that is not the provider's wire format, or an error event.
        case stream = "stream"
    }

    public var provider: String
    public var kind: Kind
    public var status: Int?
    public var message: String
    /// The server's `Retry-After`, when it sent one.
    public var retryAfter: Duration?
    /// Text and usage seen before the failure, so what was consumed is still accounted for.
    public var partial: ProviderResult?

    public init(provider: String, kind: Kind, status: Int? = nil, message: String, retryAfter: Duration? = nil, partial: ProviderResult? = nil) {
        self.provider = provider
        self.kind = kind
        self.status = status
        self.message = message
        self.retryAfter = retryAfter
        self.partial = partial
    }

    /// Worth another try at the same provider: throttling, server trouble and transport faults
    /// before any text arrived. A rejected request fails the same way every time.
    public var isRetryable: Bool {
        switch kind {
        case .rateLimited, .server, .transport, .timeout: partial == nil
        case .rejected, .stream: false
        }
    }

    public var description: String {
        let status = status.map { " \($0)" } ?? ""
        return "\(provider) \(kind.rawValue)\(status): \(message)"
    }
}
