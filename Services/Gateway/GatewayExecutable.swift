import Foundation
import HearthRuntime
import HearthStore

/// The gateway executable: the HTTP API over the households, chats, calendar and assist read
/// models it projects, and the publisher of the events its routes accept.
public enum GatewayExecutable {
    public static let name = "gateway"
    public static let defaultPort = 8080

    public static func run() async {
        await ServiceHost.launch(
            service: name, defaultPort: defaultPort, migrations: GatewayReadModels.migrations,
            configure: GatewaySettings.load(from:), projections: { _, _ in GatewayReadModels.projections() }
        ) { host, settings in
            let api = try await GatewayAPI.make(host: host, settings: settings)
            return ServiceHost.Additions(services: api.services, routes: api.register(on:))
        }
    }
}

/// The tables the gateway owns (`Migrations/`) and the projections that fill them.
public enum GatewayReadModels {
    public static func migrations() throws -> [Migration] {
        try Migration.load(owner: GatewayExecutable.name, folder: Bundle.module.resourceURL!.appendingPathComponent("Migrations"))
    }

    public static func projections() -> [any Projection] {
        [HouseholdsProjection(), EventLogProjection(), UsersProjection(), HouseholdMembersProjection(), FeedbackProjection(),
         CalendarEntriesProjection(), CalendarFeedsProjection(), ChatsProjection(), ProfileFactsProjection(), AssistantActionsProjection()]
    }
}
