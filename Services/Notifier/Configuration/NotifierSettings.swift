import Foundation
import HearthConfiguration
import HearthPrivacy
import HearthRuntime

/// Everything the notifier reads beyond `ServiceSettings`. The README's configuration section lists
/// each variable with its default (`ConfigurationDocsTests` holds the two together).
public struct NotifierSettings: Sendable {
    struct APNs: Sendable {
        var credentials: APNsCredentials
        var topic: String
        var endpoints: APNsEndpoints
        var trustRootFile: String?
    }

    var pollInterval: Duration
    var batchSize: Int
    var concurrency: Int
    var lease: TimeInterval
    var backoff: RetryBackoff
    var apns: APNs?
    var webhookMaxFailures: Int
    /// Whether webhooks may reach loopback and private addresses (`HEARTH_WEBHOOK_PRIVATE_TARGETS`).
    var webhookPrivateTargets: Bool
    var sendTimeoutSeconds: Int64
    var catchUp: TimeInterval
    /// Opens the webhook secrets the gateway sealed (`HEARTH_SECRETS_KEY`, shared with it); nil in
    /// production without the key, when webhooks are off.
    var secrets: SecretBox?

    static func load(from service: ServiceSettings) throws -> NotifierSettings {
        let environment = service.environment
        let base = Double(try environment.int("HEARTH_NOTIFIER_RETRY_BASE_MS", default: 2000, range: 1...3_600_000)) / 1000
        let cap = Double(try environment.int("HEARTH_NOTIFIER_RETRY_MAX_MS", default: 300_000, range: 1...86_400_000)) / 1000
        return NotifierSettings(
            pollInterval: .milliseconds(try environment.int("HEARTH_NOTIFIER_POLL_MS", default: 250, range: 10...60_000)),
            batchSize: try environment.int("HEARTH_NOTIFIER_BATCH", default: 50, range: 1...1000),
            concurrency: try environment.int("HEARTH_NOTIFIER_CONCURRENCY", default: 16, range: 1...256),
            lease: Double(try environment.int("HEARTH_NOTIFIER_LEASE_S", default: 60, range: 1...3600)),
            backoff: RetryBackoff(
                base: base, cap: max(base, cap), maxAttempts: try environment.int("HEARTH_NOTIFIER_MAX_ATTEMPTS", default: 5, range: 1...100)),
            apns: try loadAPNs(environment),
            webhookMaxFailures: try environment.int("HEARTH_WEBHOOK_MAX_FAILURES", default: 5, range: 1...1000),
            webhookPrivateTargets: try environment.bool("HEARTH_WEBHOOK_PRIVATE_TARGETS", default: false),
            sendTimeoutSeconds: Int64(try environment.int("HEARTH_NOTIFIER_SEND_TIMEOUT_S", default: 10, range: 1...300)),
            catchUp: Double(try environment.int("HEARTH_NOTIFIER_CATCH_UP_H", default: 168, range: 1...87_600)) * 3600,
            secrets: try SecretBox.load(environment: environment, runDirectory: service.runDirectory, allowGenerated: service.mode != .production))
    }

    private static func loadAPNs(_ environment: EnvironmentReader) throws -> APNs? {
        let keyFile = environment.optionalString("HEARTH_APNS_KEY_FILE")
        let keyId = environment.optionalString("HEARTH_APNS_KEY_ID")
        let teamId = environment.optionalString("HEARTH_APNS_TEAM_ID")
        let topic = environment.optionalString("HEARTH_APNS_TOPIC")
        guard keyFile != nil || keyId != nil || teamId != nil || topic != nil else { return nil }
        guard let keyFile, let keyId, let teamId, let topic else {
            throw ConfigurationError(
                variable: "HEARTH_APNS_KEY_FILE", reason: "APNs needs all of HEARTH_APNS_KEY_FILE, HEARTH_APNS_KEY_ID, HEARTH_APNS_TEAM_ID, HEARTH_APNS_TOPIC")
        }
        let pem: String
        do {
            pem = try String(contentsOfFile: keyFile, encoding: .utf8)
        } catch {
            throw ConfigurationError(variable: "HEARTH_APNS_KEY_FILE", reason: "cannot read \(keyFile): \(error)")
        }
        let credentials: APNsCredentials
        do {
            credentials = try APNsCredentials(keyId: keyId, teamId: teamId, pem: pem)
        } catch {
            throw ConfigurationError(variable: "HEARTH_APNS_KEY_FILE", reason: "not a PEM P-256 private key (.p8): \(error)")
        }
        let defaults = APNsEndpoints()
        return APNs(
            credentials: credentials, topic: topic,
            endpoints: APNsEndpoints(
                production: environment.string("HEARTH_APNS_PRODUCTION_URL", default: defaults.production),
                sandbox: environment.string("HEARTH_APNS_SANDBOX_URL", default: defaults.sandbox)),
            trustRootFile: environment.optionalString("HEARTH_APNS_CA_FILE"))
    }
}
