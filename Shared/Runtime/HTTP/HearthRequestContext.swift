import Foundation
import Hummingbird

/// Per-request state every route and middleware of every executable shares.
public struct HearthRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// From `X-Request-Id` when the client sent a sane one, else generated.
    public var requestId: String = ""
    /// From `X-Correlation-Id`, else the request id: stamped on every event the request causes.
    public var correlationId: String = ""
    /// The authenticated user, once authentication middleware has run.
    public var userId: String?
    /// When the user signed in, through any refreshes of the bearer token (its `auth_time`): for
    /// the actions that ask for a fresh sign-in (deleting the account).
    public var signedInAt: Date?
    /// The sign-in session the bearer token belongs to (`POST /v1/auth/logout` ends it).
    public var sessionId: UUID?
    /// When the bearer token expires: a stream it opened closes then.
    public var tokenExpiresAt: Date?
    /// The peer's IP address as the socket saw it (a proxy's, behind one); nil for Unix sockets.
    public let peerAddress: String?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.peerAddress = source.channel.remoteAddress?.ipAddress
    }

    /// Bodies above 1 MiB answer 413 before they are read into memory.
    public var maxUploadSize: Int { 1 << 20 }
}
