import AsyncHTTPClient
import Foundation
import Logging
import NIOCore

/// What one webhook POST came to.
public enum WebhookOutcome: Sendable, Equatable {
    case delivered(status: Int)
    /// No answer, 408, 429 or 5xx: worth another try.
    case retry(reason: String, retryAfter: TimeInterval?)
    /// Any other status: the endpoint does not want this.
    case rejected(status: Int)

    public static func classify(status: Int, retryAfter: TimeInterval?) -> WebhookOutcome {
        switch status {
        case 200...299: .delivered(status: status)
        case 408, 429, 500...599: .retry(reason: "HTTP \(status)", retryAfter: retryAfter)
        default: .rejected(status: status)
        }
    }
}

/// POSTs signed JSON deliveries to users' webhook endpoints.
public struct WebhookClient: Sendable {
    public let httpClient: HTTPClient
    public let timeout: TimeAmount
    let logger: Logger

    public init(httpClient: HTTPClient, timeout: TimeAmount = .seconds(10), logger: Logger) {
        self.httpClient = httpClient
        self.timeout = timeout
        self.logger = logger
    }

    public func deliver(url: String, secret: String, event: String, deliveryId: UUID, body: Data, now: Date = Date()) async -> WebhookOutcome {
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
            let response = try await httpClient.execute(request, timeout: timeout)
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
