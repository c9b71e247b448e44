import AsyncHTTPClient
import Foundation
import Logging
import NotifierService
import Testing

extension BackboneSuite {
    /// Webhooks cannot be pointed inside Hearth's network: refused when registered, refused again
    /// when the name resolves to an internal address at delivery, and redirects are not followed.
    @Suite struct WebhookSSRF {
        static let internalURLs = [
            "http://169.254.169.254/latest/meta-data/", "http://127.0.0.1:8080/", "http://2130706433/", "http://0x7f.1/",
            "http://[::1]/", "http://[::ffff:127.0.0.1]/", "http://10.0.0.5/hook", "http://100.64.1.1/", "http://192.168.0.10/",
            "http://localhost:9000/", "http://metadata.google.internal/computeMetadata/v1/", "http://intranet/hook",
        ]

        @Test func internalTargetsAreRefusedAtRegistrationAndTheSixthWebhookIsTooMany() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                try await ServiceProcess.with(["notifier"]) {
                    let user = try await GatewayUser.signIn(gateway)
                    let url = gateway.baseURL.appendingPathComponent("v1/webhooks")
                    for target in Self.internalURLs {
                        let reply = try await HTTPTestClient.postJSON(url, ["url": target, "secret": "a-secret-of-16-chars"], headers: user.headers)
                        #expect(reply.status == 400, "\(target) answered \(reply.status)")
                        let message = (reply.json["error"] as? [String: Any])?["message"] as? String ?? ""
                        #expect(message.contains("url"), "\(target): the answer names the field: \(message)")
                    }
                    var position = ""
                    for index in 0..<5 {
                        let reply = try await HTTPTestClient.postJSON(
                            url, ["url": "https://hooks.example.com/\(index)", "secret": "a-secret-of-16-chars"], headers: user.headers)
                        #expect(reply.status == 202)
                        position = reply.json["position"] as? String ?? position
                    }
                    // The notifier has them all before the sixth is asked for.
                    #expect(try await KafkaTestEnvironment.eventually {
                        try await TestEnvironment.withPostgres { client in
                            try await client.query(
                                "SELECT count(*)::int FROM notification_webhooks WHERE user_id::text = \(user.userId) AND active", logger: TestEnvironment.logger
                            ).collect().first?.decode(Int.self) == 5
                        }
                    })
                    let sixth = try await HTTPTestClient.postJSON(url, ["url": "https://hooks.example.com/6", "secret": "a-secret-of-16-chars"], headers: user.headers)
                    #expect(sixth.status == 409, "after \(position)")
                    #expect((sixth.json["error"] as? [String: Any])?["code"] as? String == "webhook_limit")
                }
            }
        }

        @Test func deliveriesResolveTheHostRefuseInternalAddressesAndFollowNoRedirect() async throws {
            let receiver = try await FakeWebhookReceiver.start()
            defer { Task { await receiver.stop() } }
            var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(2), read: .seconds(5)))
            configuration.redirectConfiguration = .disallow
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            defer { Task { try? await http.shutdown() } }
            let strict = WebhookClient(httpClient: http, configuration: configuration, allowPrivateTargets: false, logger: Logger(label: "tests"))
            // A name that resolves to loopback (as a rebound DNS name would), and the literal.
            for target in ["http://localhost:\(receiver.port)/hook", receiver.url("/hook")] {
                let outcome = await strict.deliver(url: target, secret: "a-secret-of-16-chars", event: "reminder", deliveryId: UUID(), body: Data("{}".utf8))
                guard case .refused = outcome else {
                    Issue.record("\(target) was not refused: \(outcome)")
                    continue
                }
            }
            #expect(receiver.responder.requests.isEmpty, "nothing reached the internal receiver")

            // Allowed to reach loopback (as in tests): a redirect is answered, not followed.
            let lenient = WebhookClient(httpClient: http, configuration: configuration, allowPrivateTargets: true, logger: Logger(label: "tests"))
            receiver.responder.script("/moved", [.init(status: 302, body: "", headers: ["Location": receiver.url("/elsewhere")])])
            let moved = await lenient.deliver(url: receiver.url("/moved"), secret: "a-secret-of-16-chars", event: "reminder", deliveryId: UUID(), body: Data("{}".utf8))
            #expect(moved == .rejected(status: 302))
            #expect(receiver.responder.requests(to: "/elsewhere").isEmpty)
        }
    }
}
