import Crypto
import Foundation
@testable import NotifierService
import Testing

@Suite struct APNsAndWebhookTests {
    static let key = P256.Signing.PrivateKey()
    static let credentials = APNsCredentials(keyId: "KEY1234567", teamId: "TEAM123456", privateKey: key)

    static func parts(_ token: String) throws -> (header: [String: Any], claims: [String: Any], input: String, signature: Data) {
        let pieces = token.split(separator: ".").map(String.init)
        try #require(pieces.count == 3)
        let headerBytes = try #require(Base64URL.decode(pieces[0]))
        let claimBytes = try #require(Base64URL.decode(pieces[1]))
        let signature = try #require(Base64URL.decode(pieces[2]))
        let header = try #require(try JSONSerialization.jsonObject(with: headerBytes) as? [String: Any])
        let claims = try #require(try JSONSerialization.jsonObject(with: claimBytes) as? [String: Any])
        return (header, claims, pieces[0] + "." + pieces[1], signature)
    }

    @Test func theProviderTokenIsAnES256JWTThatVerifiesWithThePublicKey() throws {
        let issued = Date(timeIntervalSince1970: 1_780_000_000)
        let token = try Self.credentials.makeToken(issuedAt: issued)
        let (header, claims, input, signature) = try Self.parts(token)
        #expect(header["alg"] as? String == "ES256")
        #expect(header["kid"] as? String == "KEY1234567")
        #expect(claims["iss"] as? String == "TEAM123456")
        #expect(claims["iat"] as? Int == 1_780_000_000)
        let ecdsa = try P256.Signing.ECDSASignature(rawRepresentation: signature)
        #expect(Self.key.publicKey.isValidSignature(ecdsa, for: Data(input.utf8)))
        #expect(!P256.Signing.PrivateKey().publicKey.isValidSignature(ecdsa, for: Data(input.utf8)))
    }

    @Test func theRefreshPolicyReusesFor40MinutesAndNeverRefreshesWithin20() {
        let policy = ProviderTokenRefreshPolicy()
        let issued = Date(timeIntervalSince1970: 1_000_000)
        #expect(policy.needsNewToken(issuedAt: nil, now: issued, rejected: false))
        #expect(!policy.needsNewToken(issuedAt: issued, now: issued.addingTimeInterval(39 * 60), rejected: false))
        #expect(policy.needsNewToken(issuedAt: issued, now: issued.addingTimeInterval(40 * 60), rejected: false))
        // APNs calling a young token expired does not make us mint one per request.
        #expect(!policy.needsNewToken(issuedAt: issued, now: issued.addingTimeInterval(19 * 60), rejected: true))
        #expect(policy.needsNewToken(issuedAt: issued, now: issued.addingTimeInterval(20 * 60), rejected: true))
        #expect(policy.needsNewToken(issuedAt: issued, now: issued.addingTimeInterval(-5), rejected: false))
    }

    @Test func theSharedTokenIsCachedAndReplacedByThePolicy() throws {
        let provider = APNsProviderToken(credentials: Self.credentials)
        let start = Date(timeIntervalSince1970: 2_000_000)
        let first = try provider.token(now: start)
        #expect(try provider.token(now: start.addingTimeInterval(10 * 60)) == first)
        provider.markRejected(first)
        #expect(try provider.token(now: start.addingTimeInterval(15 * 60)) == first, "rejected, but younger than 20 minutes")
        let second = try provider.token(now: start.addingTimeInterval(21 * 60))
        #expect(second != first)
        #expect(provider.issuedAt == start.addingTimeInterval(21 * 60))
        #expect(try provider.token(now: start.addingTimeInterval(60 * 60)) == second, "39 minutes after the second")
        #expect(try provider.token(now: start.addingTimeInterval(61 * 60 + 1)) != second)
    }

    @Test func thePayloadHasTheApsDictionaryAndHearthsKeys() throws {
        let payload = APNsPayload(
            title: "Bins out", body: "Ada: Bins out (5 min)", badge: 3, sound: "default", threadId: "household-1",
            custom: ["reminder_id": "r-1"])
        let json = try #require(try JSONSerialization.jsonObject(with: payload.encoded()) as? [String: Any])
        let aps = try #require(json["aps"] as? [String: Any])
        let alert = try #require(aps["alert"] as? [String: Any])
        #expect(alert["title"] as? String == "Bins out")
        #expect(alert["body"] as? String == "Ada: Bins out (5 min)")
        #expect(aps["badge"] as? Int == 3)
        #expect(aps["sound"] as? String == "default")
        #expect(aps["thread-id"] as? String == "household-1")
        #expect(json["reminder_id"] as? String == "r-1")
    }

    @Test func aLongBodyIsCutToFitFourKilobytes() throws {
        let long = String(repeating: "Zwiebeln schneiden \"fein\" ü ", count: 400)
        let payload = APNsPayload(title: "Kochen", body: long)
        let data = try payload.encoded()
        #expect(data.count <= APNsPayload.maximumBytes)
        #expect(data.count > APNsPayload.maximumBytes - 200, "cut close to the limit, not to nothing: \(data.count)")
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let body = try #require(((json["aps"] as? [String: Any])?["alert"] as? [String: Any])?["body"] as? String)
        #expect(body.hasSuffix("…"))
        #expect(long.hasPrefix(String(body.dropLast())))
    }

    @Test func apnsAnswersMapToWhatTheDispatcherDoes() {
        #expect(APNsOutcome.classify(status: 200, reason: nil, retryAfter: nil) == .delivered)
        #expect(APNsOutcome.classify(status: 410, reason: "Unregistered", retryAfter: nil) == .deviceGone(reason: "Unregistered"))
        #expect(APNsOutcome.classify(status: 400, reason: "BadDeviceToken", retryAfter: nil) == .deviceGone(reason: "BadDeviceToken"))
        #expect(APNsOutcome.classify(status: 400, reason: "BadTopic", retryAfter: nil) == .rejected(status: 400, reason: "BadTopic"))
        #expect(APNsOutcome.classify(status: 429, reason: "TooManyRequests", retryAfter: 3) == .retry(status: 429, reason: "TooManyRequests", retryAfter: 3))
        #expect(APNsOutcome.classify(status: 503, reason: nil, retryAfter: nil) == .retry(status: 503, reason: "HTTP 503", retryAfter: nil))
        #expect(APNsOutcome.classify(status: 403, reason: "ExpiredProviderToken", retryAfter: nil)
            == .retry(status: 403, reason: "ExpiredProviderToken", retryAfter: nil))
        #expect(APNsOutcome.classify(status: 413, reason: "PayloadTooLarge", retryAfter: nil) == .rejected(status: 413, reason: "PayloadTooLarge"))
    }

    @Test func theDevicesEnvironmentChoosesTheAPNsHost() {
        let apple = APNsEndpoints()
        #expect(apple.baseURL(environment: "sandbox") == "https://api.sandbox.push.apple.com")
        #expect(apple.baseURL(environment: "production") == "https://api.push.apple.com")
        let local = APNsEndpoints(production: "https://127.0.0.1:1", sandbox: "https://127.0.0.1:2")
        #expect(local.baseURL(environment: "sandbox") == "https://127.0.0.1:2")
        #expect(local.baseURL(environment: "production") == "https://127.0.0.1:1")
    }

    @Test func webhookSignaturesCoverTheTimestampAndTheBody() {
        let body = Data(#"{"event":"reminder"}"#.utf8)
        let signature = WebhookSignature.sign(secret: "a-secret-of-16-chars", timestamp: 1_780_000_000, body: body)
        #expect(signature.hasPrefix("sha256=") && signature.count == 7 + 64)
        #expect(WebhookSignature.verify(secret: "a-secret-of-16-chars", timestamp: 1_780_000_000, body: body, signature: signature))
        #expect(!WebhookSignature.verify(secret: "a-secret-of-16-chars", timestamp: 1_780_000_001, body: body, signature: signature))
        #expect(!WebhookSignature.verify(secret: "another-secret-16", timestamp: 1_780_000_000, body: body, signature: signature))
        #expect(!WebhookSignature.verify(secret: "a-secret-of-16-chars", timestamp: 1_780_000_000, body: Data("{}".utf8), signature: signature))
    }

    @Test func backOffDoublesUpToTheCapAndHonoursRetryAfter() {
        let backoff = RetryBackoff(base: 2, cap: 60, maxAttempts: 4)
        #expect(backoff.delay(afterAttempt: 1) == 2)
        #expect(backoff.delay(afterAttempt: 3) == 8)
        #expect(backoff.delay(afterAttempt: 10) == 60)
        #expect(backoff.delay(afterAttempt: 1, retryAfter: 30) == 30)
        #expect(backoff.mayRetry(afterAttempt: 3))
        #expect(!backoff.mayRetry(afterAttempt: 4))
    }

    @Test func notificationIdsAreStablePerReminderGenerationChannelAndTarget() {
        let reminder = UUID()
        let due = Date(timeIntervalSince1970: 1_780_000_000)
        let id = NotificationIdentity.notificationId(reminderId: reminder, dueAt: due, channel: "apns", target: "ab")
        #expect(id == NotificationIdentity.notificationId(reminderId: reminder, dueAt: due, channel: "apns", target: "ab"))
        #expect(id != NotificationIdentity.notificationId(reminderId: reminder, dueAt: due, channel: "inbox", target: "inbox"))
        #expect(id != NotificationIdentity.notificationId(reminderId: reminder, dueAt: due.addingTimeInterval(60), channel: "apns", target: "ab"))
    }
}
