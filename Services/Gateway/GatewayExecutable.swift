import Foundation
import HearthRuntime
import HearthStore

/// The gateway executable: the HTTP API over the households, chats, calendar and assist read
/// models it projects, and the publisher of the events its routes accept.
public enum GatewayExecutable: HearthExecutable {
    public static let name = "gateway"
    public static let defaultPort = 8080
    public static var migrationsFolder: URL { (Bundle.module.resourceURL ?? Bundle.module.bundleURL).appendingPathComponent("Migrations") }

    public static func settings(from common: ServiceSettings) throws -> GatewaySettings {
        try GatewaySettings.load(from: common)
    }

    public static func projections(settings: GatewaySettings, publisher: EventPublisher) -> [any Projection] {
        GatewayReadModels.projections()
    }

    public static func assemble(host: ServiceHost, settings: GatewaySettings) async throws -> ServiceHost.Additions {
        let api = try await GatewayAPI.make(host: host, settings: settings)
        return ServiceHost.Additions(services: api.services, routes: api.register(on:), webSocketRoutes: api.registerWebSockets(on:))
    }
}

/// The projections that fill the gateway's tables.
public enum GatewayReadModels {
    public static func projections() -> [any Projection] {
        [HouseholdsProjection(), EventLogProjection(), UsersProjection(), HouseholdMembersProjection(), FeedbackProjection(),
         CalendarEntriesProjection(), CalendarFeedsProjection(), ChatsProjection(), ProfileFactsProjection(), AssistantActionsProjection(),
         ExportRequestsProjection(), TrackingLogsProjection(), WellbeingProjection(), CoachingProjection(),
         AssistantTurnsProjection(), ActivitiesProjection(), ActivityHistoryProjection(), AdminActionsProjection()]
    }
}
