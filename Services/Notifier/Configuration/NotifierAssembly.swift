import AsyncHTTPClient
import Foundation
import HearthRuntime
import NIOSSL
import ServiceLifecycle

/// The notifier wired together: its settings, the HTTP client its channels share, and the
/// dispatcher. The projections (reminders, targets, inbox) are run by `ServiceHost`.
struct NotifierAssembly {
    let services: [any Service]

    static func make(host: ServiceHost, settings: NotifierSettings) throws -> NotifierAssembly {
        let logger = host.logger
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile = settings.apns?.trustRootFile {
            tls.additionalTrustRoots = [.file(caFile)]
        }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            timeout: .init(connect: .seconds(5), read: .seconds(settings.sendTimeoutSeconds)))
        configuration.httpVersion = .automatic
        // Neither APNs nor a webhook has a reason to redirect; a webhook that does could point
        // its delivery anywhere (an internal address, plain http).
        configuration.redirectConfiguration = .disallow
        let httpClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let apns = settings.apns.map {
            APNsClient(
                httpClient: httpClient, endpoints: $0.endpoints, token: APNsProviderToken(credentials: $0.credentials),
                timeout: .seconds(settings.sendTimeoutSeconds), logger: logger)
        }
        if apns == nil { logger.warning("APNs is not configured (HEARTH_APNS_*): the apns channel is off") }
        let instance = "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier)"
        let dispatcher = ReminderDispatcher(
            store: DispatchStore(client: host.postgres, instance: instance, secrets: settings.secrets, logger: logger),
            channels: DeliveryChannels(
                apns: apns, apnsTopic: settings.apns?.topic,
                webhooks: WebhookClient(
                    httpClient: httpClient, configuration: configuration, allowPrivateTargets: settings.webhookPrivateTargets,
                    timeout: .seconds(settings.sendTimeoutSeconds), logger: logger),
                logger: logger),
            publisher: host.publisher, settings: settings, metrics: NotifierMetrics(), logger: logger)
        var services: [any Service] = [HTTPClientService(client: httpClient), dispatcher]
        if let secrets = settings.secrets {
            services.append(LegacyWebhookSecrets(client: host.postgres, secrets: secrets, logger: logger).service(every: .seconds(3600)))
        } else {
            logger.warning("HEARTH_SECRETS_KEY is not set: webhook secrets cannot be opened, so webhooks are not delivered, nor account deletion codes")
        }
        return NotifierAssembly(services: services)
    }
}
