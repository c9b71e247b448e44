import Foundation
import HearthEvents
import HearthPrivacy
import Testing

/// `webhook.registered` and `webhook.secret_rotated` went from v1 (the secret inline) to v2 (a
/// reference to the gateway's sealed row). Stored v1 events still read, as v2 with the secret as
/// `legacy_secret`; a v2 event carries no secret at all.
@Suite struct WebhookSecretUpcastTests {
    static let webhook = "9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d"
    static let user = "5f0e8c1a-3b2d-4e6f-9a1b-2c3d4e5f6a7b"

    static func stored(_ type: String, _ data: String) -> Data {
        Data("""
            {"id":"0B8E7A52-9C41-4F0B-8D5E-1A2B3C4D5E6F","type":"\(type)","version":1,"key":"\(user)",\
            "occurred_at":"2026-11-20T08:00:00.000Z","correlation_id":"c-1","source":"gateway","data":\(data)}
            """.utf8)
    }

    @Test func storedVersionOneEventsReadAsVersionTwoWithTheirSecretAsLegacy() throws {
        #expect(EventCatalogue.hearth.currentVersion(of: "webhook.registered") == 2)
        #expect(EventCatalogue.hearth.currentVersion(of: "webhook.secret_rotated") == 2)
        let registered = Self.stored(
            "webhook.registered",
            #"{"webhook_id":"\#(Self.webhook)","user_id":"\#(Self.user)","url":"https://hooks.example.com/a","secret":"an-old-secret-123","events":["reminder"]}"#)
        guard case .event(let event) = try EventCatalogue.hearth.decode(registered) else {
            Issue.record("expected an event")
            return
        }
        let upcast = try #require(event.payload as? WebhookRegisteredV2)
        #expect(upcast.legacySecret == "an-old-secret-123")
        #expect(upcast.secretRef == nil)
        #expect(upcast.url == "https://hooks.example.com/a" && upcast.events == ["reminder"])

        let rotated = Self.stored("webhook.secret_rotated", #"{"webhook_id":"\#(Self.webhook)","user_id":"\#(Self.user)","secret":"rotated-secret-456"}"#)
        guard case .event(let rotation) = try EventCatalogue.hearth.decode(rotated) else {
            Issue.record("expected an event")
            return
        }
        let upcastRotation = try #require(rotation.payload as? WebhookSecretRotatedV2)
        #expect(upcastRotation.legacySecret == "rotated-secret-456" && upcastRotation.secretRef == nil)
    }

    @Test func aVersionTwoEventNamesItsSecretAndCarriesNone() throws {
        let ref = UUID()
        let event = WebhookRegisteredV2(
            webhookId: UUID(uuidString: Self.webhook)!, userId: UUID(uuidString: Self.user)!, url: "https://hooks.example.com/b", events: [], secretRef: ref)
        let data = try EventCatalogue.hearth.encode(Envelope(event, correlationId: "c-2", source: "gateway"))
        let payload = try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["data"] as? [String: Any])
        #expect(Set(payload.keys) == ["webhook_id", "user_id", "url", "events", "secret_ref"])
        #expect((payload["secret_ref"] as? String)?.lowercased() == ref.uuidString.lowercased())
    }

    @Test func aSealedSecretOpensOnlyForItsWebhookAndRow() throws {
        let box = SecretBox(key: .init(size: .bits256))
        let webhook = UUID(), ref = UUID()
        let sealed = try box.seal("s3cret-value", context: SecretBox.webhookSecretContext(webhook: webhook, ref: ref))
        #expect(try box.open(sealed, context: SecretBox.webhookSecretContext(webhook: webhook, ref: ref)) == "s3cret-value")
        #expect(throws: (any Error).self) { try box.open(sealed, context: SecretBox.webhookSecretContext(webhook: webhook, ref: UUID())) }
        #expect(throws: (any Error).self) { try box.open(sealed, context: SecretBox.webhookSecretContext(webhook: UUID(), ref: ref)) }
        #expect(throws: (any Error).self) { try box.open(sealed, context: SecretBox.webhookSecretContext(webhook: webhook, ref: nil)) }
    }
}
