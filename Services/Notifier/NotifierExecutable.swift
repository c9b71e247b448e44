import Foundation
import HearthPrivacy
import HearthRuntime
import HearthStore

/// The notifier executable: schedules reminders from the events and delivers them to the inbox,
/// APNs and webhooks.
public enum NotifierExecutable: HearthExecutable {
    public static let name = "notifier"
    public static let defaultPort = 8085
    public static var migrationsFolder: URL { (Bundle.module.resourceURL ?? Bundle.module.bundleURL).appendingPathComponent("Migrations") }

    public static func settings(from common: ServiceSettings) throws -> NotifierSettings {
        try NotifierSettings.load(from: common)
    }

    public static func projections(settings: NotifierSettings, publisher: EventPublisher) -> [any Projection] {
        NotifierReadModels.projections(secrets: settings.secrets)
    }

    public static func assemble(host: ServiceHost, settings: NotifierSettings) throws -> ServiceHost.Additions {
        ServiceHost.Additions(services: try NotifierAssembly.make(host: host, settings: settings).services)
    }
}

/// The projections that fill the notifier's tables.
public enum NotifierReadModels {
    /// `secrets`: what seals the webhook secrets old events carried (`HEARTH_SECRETS_KEY`).
    public static func projections(secrets: SecretBox?) -> [any Projection] {
        [RemindersProjection(), NotificationTargetsProjection(secrets: secrets), NotificationInboxProjection()]
    }
}
