import AsyncHTTPClient
import Foundation
import HearthDomain
import Logging
import NIOCore

/// What one webhook POST came to.
public enum WebhookOutcome: Sendable, Equatable {
    case delivered(status: Int)
    /// No answer, 408, 429 or 5xx: worth another try.
    case retry(reason: String, retryAfter: TimeInterval?)
    /// Any other status: the endpoint does not want this.
    case rejected(status: Int)
    /// Not sent: the URL leads somewhere a webhook may not go (a private address).
    case refused(reason: String)

    public static func classify(status: Int, retryAfter: TimeInterval?) -> WebhookOutcome {
        switch status {
        case 200...299: .delivered(status: status)
        case 408, 429, 500...599: .retry(reason: "HTTP \(status)", retryAfter: retryAfter)
        default: .rejected(status: status)
        }
    }
}

/// POSTs signed JSON deliveries to users' webhook endpoints.
///
/// Each delivery resolves the URL's host itself and refuses it unless every address it resolves
/// to is public (`NetworkAddress`), then connects to the address it checked (the name kept for
/// TLS and `Host`): a name that resolved to a public address when registered and to an internal
/// one now (DNS rebinding) reaches nothing. Redirects are not followed.
public struct WebhookClient: Sendable {
    public let httpClient: HTTPClient
    /// The shared client's configuration, for the per-delivery clients pinned to one address.
    let configuration: HTTPClient.Configuration
    let allowPrivateTargets: Bool
    public let timeout: TimeAmount
    let logger: Logger

    public init(
        httpClient: HTTPClient, configuration: HTTPClient.Configuration, allowPrivateTargets: Bool, timeout: TimeAmount = .seconds(10), logger: Logger
    ) {
        self.httpClient = httpClient
        self.configuration = configuration
        self.allowPrivateTargets = allowPrivateTargets
        self.timeout = timeout
        self.logger = logger
    }

    /// Where a delivery to `url` may connect: nil for a literal address or when private targets
    /// are allowed (the shared client connects as the URL says), else the public address to pin.
    func pinnedAddress(for url: String) async throws(NetworkAddressError) -> NetworkAddress? {
        guard let host = URL(string: url)?.host else { throw .unresolvable(url) }
        if let literal = NetworkAddress(literal: host) {
            guard allowPrivateTargets || literal.isPublic else { throw .notPublic(host: host, address: literal.description) }
            return nil
        }
        if allowPrivateTargets { return nil }
        guard !NetworkAddress.isLocalName(host) else { throw .notPublic(host: host, address: host) }
        // getaddrinfo blocks: off the cooperative pool.
        let resolved = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: Result { try NetworkAddress.resolve(host) }) }
        }
        let addresses: [NetworkAddress]
        do {
            addresses = try resolved.get()
        } catch {
            throw .unresolvable(host)
        }
        if let inside = addresses.first(where: { !$0.isPublic }) { throw .notPublic(host: host, address: inside.description) }
        return addresses[0]
    }

    public func deliver(url: String, secret: String, event: String, deliveryId: UUID, body: Data, now: Date = Date()) async -> WebhookOutcome {
        let pinned: NetworkAddress?
        do {
            pinned = try await pinnedAddress(for: url)
        } catch .unresolvable(let host) {
            return .retry(reason: "\(host) does not resolve", retryAfter: nil)
        } catch {
            logger.warning("webhook refused", metadata: ["error": "\(error)"])
            return .refused(reason: error.description)
        }
        let timestamp = Int(now.timeIntervalSince1970)
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "user-agent", value: "Hearth-Webhooks/1")
        request.headers.add(name: WebhookSignature.timestampHeader, value: String(timestamp))
        request.headers.add(name: WebhookSignature.signatureHeader, value: WebhookSignature.sign(secret: secret, timestamp: timestamp, body: body))
        request.headers.add(name: WebhookSignature.eventHeader, value: event)
        request.headers.add(name: WebhookSignature.deliveryHeader, value: deliveryId.uuidString.lowercased())
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response: HTTPClientResponse
            if let pinned, let host = URL(string: url)?.host {
                var pinnedConfiguration = configuration
                pinnedConfiguration.dnsOverride = [host: pinned.description]
                let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: pinnedConfiguration)
                do {
                    response = try await client.execute(request, timeout: timeout)
                    _ = try? await response.body.collect(upTo: 64 * 1024)
                } catch {
                    try? await client.shutdown()
                    throw error
                }
                try? await client.shutdown()
                return WebhookOutcome.classify(
                    status: Int(response.status.code), retryAfter: response.headers.first(name: "retry-after").flatMap(TimeInterval.init))
            }
            response = try await httpClient.execute(request, timeout: timeout)
            _ = try? await response.body.collect(upTo: 64 * 1024)
            return WebhookOutcome.classify(
                status: Int(response.status.code), retryAfter: response.headers.first(name: "retry-after").flatMap(TimeInterval.init))
        } catch {
            // The URL's path and query may carry a token of the receiver's: only its host is logged.
            logger.warning("webhook request failed", metadata: ["host": "\(URL(string: url)?.host ?? "?")", "error": "\(error)"])
            return .retry(reason: "transport: \(error)", retryAfter: nil)
        }
    }
}
