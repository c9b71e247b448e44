import Foundation
import HearthRuntime
import HearthStore

/// The notifier executable: schedules reminders from the events and delivers them to the inbox,
/// APNs and webhooks.
public enum NotifierExecutable {
    public static let name = "notifier"
    public static let defaultPort = 8085

    public static func run() async {
        await ServiceHost.launch(
            service: name, defaultPort: defaultPort, migrations: NotifierReadModels.migrations,
            configure: NotifierSettings.load(from:), projections: { _, _ in NotifierReadModels.projections() }
        ) { host, settings in
            ServiceHost.Additions(services: try NotifierAssembly.make(host: host, settings: settings).services)
        }
    }
}

/// The tables the notifier owns (`Migrations/`) and the projections that fill them.
public enum NotifierReadModels {
    public static func migrations() throws -> [Migration] {
        try Migration.load(owner: NotifierExecutable.name, folder: Bundle.module.resourceURL!.appendingPathComponent("Migrations"))
    }

    public static func projections() -> [any Projection] {
        [RemindersProjection(), NotificationTargetsProjection(), NotificationInboxProjection()]
    }
}
