import AsyncHTTPClient
import Crypto
import Foundation
import HearthEvents
@testable import NotifierService
import HearthStore
import NIOCore
import PostgresNIO
import Synchronization
import Testing

/// A gateway, a fake APNs and notifier processes configured to push to it.
///
/// `@unchecked Sendable` so `eventually` closures can read it: every stored property is a `let`,
/// and of the one non-Sendable member (the gateway's `ServiceProcess`) closures only read the
/// immutable base URL; starting and stopping it stays on the test's own task.
struct NotifierStack: @unchecked Sendable {
    static let keyId = "HEARTHKEY1"
    static let teamId = "HEARTHTEAM"
    static let topic = "app.hearth.tests"

    let gateway: ServiceProcess
    let apns: FakeAPNsServer
    let apnsKey: P256.Signing.PrivateKey
    let notifierEnvironment: [String: String]

    /// Runs `body` with a gateway, a fake APNs and `notifiers` ready notifier processes (it may
    /// start, kill and restart more with `launchNotifier`).
    static func with<T>(
        notifiers count: Int = 1, notifier extra: [String: String] = [:], gateway gatewayExtra: [String: String] = [:],
        _ body: (NotifierStack, [ServiceProcess]) async throws -> T
    ) async throws -> T {
        let apns = try await FakeAPNsServer.start()
        let key = P256.Signing.PrivateKey()
        var environment = try notifierEnvironment(pushingTo: apns, key: key)
        // The test's webhook receivers listen on loopback.
        environment["HEARTH_WEBHOOK_PRIVATE_TARGETS"] = "true"
        for (name, value) in extra { environment[name] = value }
        defer { Task { await apns.stop() } }
        let gatewayEnvironment = ["HEARTH_WEBHOOK_PRIVATE_TARGETS": "true"].merging(gatewayExtra) { _, given in given }
        return try await ServiceProcess.with("gateway", environment: gatewayEnvironment) { gateway in
            let stack = NotifierStack(gateway: gateway, apns: apns, apnsKey: key, notifierEnvironment: environment)
            var notifiers: [ServiceProcess] = []
            do {
                for _ in 0..<count { notifiers.append(try await stack.launchNotifier()) }
                let result = try await body(stack, notifiers)
                for notifier in notifiers { await notifier.stop() }
                return result
            } catch {
                for notifier in notifiers {
                    if notifier.isRunning { print("notifier log tail:\n\(notifier.logTail())") }
                    await notifier.stop()
                }
                throw error
            }
        }
    }

    /// What a notifier needs to push to `apns` with `key` (written to a file of its own), polling
    /// and retrying fast as tests want.
    static func notifierEnvironment(pushingTo apns: FakeAPNsServer, key: P256.Signing.PrivateKey) throws -> [String: String] {
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-apns-\(UUID().uuidString.prefix(8)).p8")
        try key.pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
        return [
            "HEARTH_APNS_KEY_FILE": keyFile.path, "HEARTH_APNS_KEY_ID": keyId, "HEARTH_APNS_TEAM_ID": teamId,
            "HEARTH_APNS_TOPIC": topic, "HEARTH_APNS_SANDBOX_URL": apns.baseURL, "HEARTH_APNS_PRODUCTION_URL": apns.baseURL,
            "HEARTH_APNS_CA_FILE": apns.certificateFile, "HEARTH_NOTIFIER_POLL_MS": "50", "HEARTH_NOTIFIER_LEASE_S": "3",
            "HEARTH_NOTIFIER_RETRY_BASE_MS": "300",
        ]
    }

    func launchNotifier() async throws -> ServiceProcess {
        let notifier = try ServiceProcess("notifier", environment: notifierEnvironment)
        try await notifier.waitUntilReady()
        return notifier
    }

    // MARK: API calls

    static func randomToken() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// Registers a device and waits until the notifier's read model has it.
    func registerDevice(_ user: GatewayUser, token: String = randomToken(), environment: String = "sandbox") async throws -> String {
        let reply = try await HTTPTestClient.postJSON(
            gateway.baseURL.appendingPathComponent("v1/devices"), ["platform": "ios", "token": token, "environment": environment],
            headers: user.headers)
        #expect(reply.status == 202, "\(String(decoding: reply.body, as: UTF8.self))")
        let projected = try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) {
            try await NotifierDatabase.deviceActive(token) == true
        }
        #expect(projected, "device \(token) projected")
        return token
    }

    func postReminder(_ user: GatewayUser, title: String, body: String? = nil, at: Date, channels: [String]? = nil, urgent: Bool? = nil) async throws -> UUID {
        var object: [String: Any] = ["title": title, "at": Timestamp.format(at)]
        if let body { object["body"] = body }
        if let channels { object["channels"] = channels }
        if let urgent { object["urgent"] = urgent }
        let reply = try await HTTPTestClient.postJSON(gateway.baseURL.appendingPathComponent("v1/reminders"), object, headers: user.headers)
        #expect(reply.status == 202, "\(String(decoding: reply.body, as: UTF8.self))")
        guard let text = reply.json["reminder_id"] as? String, let id = UUID(uuidString: text) else {
            throw NotifierTestFailure("no reminder_id in \(String(decoding: reply.body, as: UTF8.self))")
        }
        return id
    }

    /// Publishes many reminders straight to the topic (faster than one request each).
    static func publishReminders(_ reminders: [ReminderRequested]) async throws {
        let producer = try KafkaTestEnvironment.producer(clientId: "hearth-tests-reminders", lingerMs: 5)
        let publisher = EventPublisher(producer: producer, source: "tests", keys: nil)
        _ = try await publisher.publish(batch: reminders.map { publisher.envelope($0, correlationId: "tests-\($0.reminderId)") })
        await producer.close()
    }

    /// The push requests the fake APNs received for one device.
    func pushes(to token: String) -> [ReceivedRequest] { apns.responder.requests(to: "/3/device/\(token)") }
}

struct NotifierTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Reads the notifier's tables directly.
enum NotifierDatabase {
    static func deviceActive(_ token: String) async throws -> Bool? {
        try await TestEnvironment.withPostgres { client in
            let rows = try await client.query("SELECT active FROM notification_devices WHERE token = \(token)", logger: TestEnvironment.logger)
            for try await active in rows.decode(Bool.self) { return active }
            return nil
        }
    }

    struct LogRow: Sendable {
        var reminderId: UUID
        var channel: String
        var attempt: Int
        var outcome: String
        var latenessMs: Int64
        var willRetry: Bool
        var error: String?
    }

    static func log(reminders: [UUID]) async throws -> [LogRow] {
        try await TestEnvironment.withPostgres { client in
            let rows = try await client.query(
                """
                SELECT reminder_id, channel, attempt, outcome, lateness_ms, will_retry, error FROM notification_log
                WHERE reminder_id = ANY(\(reminders)) ORDER BY log_id
                """, logger: TestEnvironment.logger)
            var found: [LogRow] = []
            for try await (id, channel, attempt, outcome, lateness, retry, error) in rows.decode((UUID, String, Int32, String, Int64, Bool, String?).self) {
                found.append(LogRow(reminderId: id, channel: channel, attempt: Int(attempt), outcome: outcome, latenessMs: lateness, willRetry: retry, error: error))
            }
            return found
        }
    }

    static func dispatch(_ reminderId: UUID) async throws -> (state: String, deferredUntil: Date?)? {
        try await TestEnvironment.withPostgres { client in
            let rows = try await client.query(
                "SELECT state, deferred_until FROM reminder_dispatch WHERE reminder_id = \(reminderId)", logger: TestEnvironment.logger)
            for try await (state, deferred) in rows.decode((String, Date?).self) { return (state, deferred) }
            return nil
        }
    }

    static func query<T: Sendable>(_ body: @Sendable (PostgresClient) async throws -> T) async throws -> T {
        try await TestEnvironment.withPostgres(body)
    }
}

/// Reads `GET /v1/notifications/stream` in the background and keeps every event it sees.
final class NotificationStreamReader: Sendable {
    struct Event: Sendable {
        var name: String
        var id: String?
        var data: String

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any]) ?? [:] }
    }

    private let state = Mutex<(events: [Event], connected: Bool, status: Int?)>(([], false, nil))
    private let client = HTTPClient(eventLoopGroupProvider: .singleton)
    private let task = Mutex<Task<Void, Never>?>(nil)

    var events: [Event] { state.withLock { $0.events } }
    var connected: Bool { state.withLock { $0.connected } }
    /// The answer's status, once its head arrived.
    var status: Int? { state.withLock { $0.status } }

    func start(_ url: URL, headers: [String: String]) {
        let reading = Task { [self] in
            var request = HTTPClientRequest(url: url.absoluteString)
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            request.headers.add(name: "accept", value: "text/event-stream")
            do {
                let response = try await client.execute(request, timeout: .minutes(10))
                state.withLock { $0.status = Int(response.status.code) }
                var pending = ""
                for try await chunk in response.body {
                    pending += String(buffer: chunk)
                    while let range = pending.range(of: "\n\n") {
                        let frame = String(pending[..<range.lowerBound])
                        pending = String(pending[range.upperBound...])
                        var name = "message", id: String?, data = ""
                        var comment = false
                        for line in frame.split(separator: "\n", omittingEmptySubsequences: false) {
                            if line.hasPrefix(":") { comment = true }
                            else if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
                            else if line.hasPrefix("id: ") { id = String(line.dropFirst(4)) }
                            else if line.hasPrefix("data: ") { data += String(line.dropFirst(6)) }
                        }
                        if comment && data.isEmpty {
                            state.withLock { $0.connected = true }
                        } else {
                            state.withLock { $0.events.append(Event(name: name, id: id, data: data)) }
                        }
                    }
                }
            } catch {
                // Cancelled at the end of the test, or the gateway went away.
            }
        }
        task.withLock { $0 = reading }
    }

    func stop() async {
        let reading = task.withLock { $0 }
        reading?.cancel()
        _ = await reading?.value
        try? await client.shutdown()
    }
}

/// Checks an APNs provider token the way Apple does: ES256 over header.claims with our key.
enum ProviderTokenCheck {
    static func verify(_ authorization: String?, key: P256.Signing.PublicKey) -> (valid: Bool, header: [String: Any], claims: [String: Any]) {
        guard let authorization, authorization.hasPrefix("bearer ") else { return (false, [:], [:]) }
        let parts = authorization.dropFirst(7).split(separator: ".").map(String.init)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]), let claimData = Base64URL.decode(parts[1]),
              let signatureData = Base64URL.decode(parts[2]),
              let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
              let claims = (try? JSONSerialization.jsonObject(with: claimData)) as? [String: Any],
              let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData)
        else { return (false, [:], [:]) }
        return (key.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)), header, claims)
    }
}
