import Foundation
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
        NotifierReadModels.projections()
    }

    public static func assemble(host: ServiceHost, settings: NotifierSettings) throws -> ServiceHost.Additions {
        ServiceHost.Additions(services: try NotifierAssembly.make(host: host, settings: settings).services)
    }
}

/// The projections that fill the notifier's tables.
public enum NotifierReadModels {
    public static func projections() -> [any Projection] {
        [RemindersProjection(), NotificationTargetsProjection(), NotificationInboxProjection()]
    }
}
