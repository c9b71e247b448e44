import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Where the APNs provider API is: Apple's hosts by default, a local fake in tests.
public struct APNsEndpoints: Sendable, Equatable {
    public var production: String
    public var sandbox: String

    public init(production: String = "https://api.push.apple.com", sandbox: String = "https://api.sandbox.push.apple.com") {
        self.production = production
        self.sandbox = sandbox
    }

    public func baseURL(environment: String) -> String {
        environment == "sandbox" ? sandbox : production
    }
}

/// One push to one device.
public struct APNsPush: Sendable {
    public var deviceToken: String
    /// `sandbox` or `production`.
    public var environment: String
    /// The app's bundle id (`apns-topic`).
    public var topic: String
    /// `alert` for user-visible notifications.
    public var pushType: String = "alert"
    /// 10: deliver now; 5: when power allows.
    public var priority: Int = 10
    /// Until when APNs should keep trying; nil: once (`apns-expiration: 0`).
    public var expiration: Date?
    /// Pushes with one collapse id replace each other on the device (≤ 64 bytes).
    public var collapseId: String?
    /// Echoed back by APNs; the notification id, so a fake (and logs) can tell pushes apart.
    public var apnsId: UUID
    public var payload: Data

    public init(
        deviceToken: String, environment: String, topic: String, pushType: String = "alert", priority: Int = 10, expiration: Date?,
        collapseId: String?, apnsId: UUID, payload: Data
    ) {
        self.deviceToken = deviceToken
        self.environment = environment
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseId = collapseId
        self.apnsId = apnsId
        self.payload = payload
    }
}

/// What APNs said about one push, in the terms the dispatcher acts on.
public enum APNsOutcome: Sendable, Equatable {
    case delivered
    /// 410 Unregistered or 400 BadDeviceToken: stop using the token.
    case deviceGone(reason: String)
    /// 429, 5xx, an expired provider token, or no answer at all: try again later.
    case retry(status: Int?, reason: String, retryAfter: TimeInterval?)
    /// Any other 4xx: retrying would fail the same way.
    case rejected(status: Int, reason: String)

    /// Maps a response status and APNs' JSON `reason` to an outcome.
    public static func classify(status: Int, reason: String?, retryAfter: TimeInterval?) -> APNsOutcome {
        let reason = reason ?? "HTTP \(status)"
        switch status {
        case 200: return .delivered
        case 410: return .deviceGone(reason: reason)
        case 400 where reason == "BadDeviceToken" || reason == "DeviceTokenNotForTopic": return .deviceGone(reason: reason)
        case 403 where reason == "ExpiredProviderToken" || reason == "InvalidProviderToken":
            return .retry(status: status, reason: reason, retryAfter: nil)
        case 429, 500...599: return .retry(status: status, reason: reason, retryAfter: retryAfter)
        default: return .rejected(status: status, reason: reason)
        }
    }
}

/// The APNs provider API over HTTP/2 (AsyncHTTPClient negotiates h2 by ALPN and multiplexes
/// requests over one connection per host).
public struct APNsClient: Sendable {
    public let httpClient: HTTPClient
    public let endpoints: APNsEndpoints
    public let token: APNsProviderToken
    public let timeout: TimeAmount
    let logger: Logger

    public init(httpClient: HTTPClient, endpoints: APNsEndpoints, token: APNsProviderToken, timeout: TimeAmount = .seconds(10), logger: Logger) {
        self.httpClient = httpClient
        self.endpoints = endpoints
        self.token = token
        self.timeout = timeout
        self.logger = logger
    }

    public func send(_ push: APNsPush) async -> APNsOutcome {
        let bearer: String
        do {
            bearer = try token.token()
        } catch {
            return .rejected(status: 0, reason: "cannot sign the provider token: \(error)")
        }
        var request = HTTPClientRequest(url: endpoints.baseURL(environment: push.environment) + "/3/device/" + push.deviceToken)
        request.method = .POST
        request.headers.add(name: "authorization", value: "bearer \(bearer)")
        request.headers.add(name: "apns-topic", value: push.topic)
        request.headers.add(name: "apns-push-type", value: push.pushType)
        request.headers.add(name: "apns-priority", value: String(push.priority))
        request.headers.add(name: "apns-expiration", value: String(push.expiration.map { Int($0.timeIntervalSince1970) } ?? 0))
        request.headers.add(name: "apns-id", value: push.apnsId.uuidString.lowercased())
        if let collapseId = push.collapseId { request.headers.add(name: "apns-collapse-id", value: collapseId) }
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: push.payload))
        do {
            let response = try await httpClient.execute(request, timeout: timeout)
            let body = try await response.body.collect(upTo: 64 * 1024)
            let reason = Self.reason(in: body)
            let retryAfter = response.headers.first(name: "retry-after").flatMap(TimeInterval.init)
            let outcome = APNsOutcome.classify(status: Int(response.status.code), reason: reason, retryAfter: retryAfter)
            if case .retry(_, let why, _) = outcome, why == "ExpiredProviderToken" || why == "InvalidProviderToken" {
                token.markRejected(bearer)
            }
            return outcome
        } catch {
            logger.warning("APNs request failed", metadata: ["error": "\(error)"])
            return .retry(status: nil, reason: "transport: \(error)", retryAfter: nil)
        }
    }

    /// APNs errors are `{"reason": "..."}`.
    static func reason(in body: ByteBuffer) -> String? {
        guard body.readableBytes > 0,
              let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
        else { return nil }
        return object["reason"] as? String
    }
}
