import Foundation
import HearthDomain
import HearthRuntime
import Hummingbird

/// Baby and toddler tracking in the gateway: the logs, photos, insights and settings of a
/// household's children, built from the host. The notifier owns the reminders the logs lead to
/// (allergen check-ins, next feeds, medication doses).
struct TrackingAPI: Sendable {
    let logs: TrackingLogRoutes
    let photos: TrackingPhotoRoutes
    let insights: TrackingInsightRoutes
    let settings: TrackingSettingsRoutes
    let foods: FoodCatalogueRoutes
    let summaries: SummaryRoutes
    let imports: DaycareImportRoutes

    static func make(
        host: ServiceHost, membership: MembershipReadModel, users: UserReadModel, consistency: ReadConsistency, launcher: RunLauncher,
        importReader: any DaycareReportReader
    ) throws -> TrackingAPI {
        let readModel = TrackingReadModel(client: host.postgres, logger: host.logger)
        let access = ChildAccess(membership: membership, readModel: readModel, users: users)
        let growth = try GrowthStandards.load()
        let catalogue = try FoodCatalogue.bundled()
        return TrackingAPI(
            logs: TrackingLogRoutes(
                publisher: host.publisher, readModel: readModel, access: access, consistency: consistency,
                enrichment: TrackingLogEnrichment(readModel: readModel, matcher: try AllergenMatcher.bundled(), growth: growth, catalogue: catalogue)),
            photos: TrackingPhotoRoutes(
                publisher: host.publisher, readModel: readModel, access: access, consistency: consistency, client: host.postgres,
                thumbnailer: PhotoThumbnailer(), logger: host.logger),
            insights: TrackingInsightRoutes(readModel: readModel, access: access, growth: growth),
            settings: TrackingSettingsRoutes(
                publisher: host.publisher, readModel: readModel, access: access, membership: membership, consistency: consistency),
            foods: FoodCatalogueRoutes(catalogue: catalogue),
            summaries: SummaryRoutes(
                readModel: readModel, access: access, launcher: launcher, growth: growth, client: host.postgres, logger: host.logger),
            imports: DaycareImportRoutes(
                publisher: host.publisher, readModel: readModel, access: access, consistency: consistency, client: host.postgres,
                tools: ToolRunner(), reader: importReader, logger: host.logger))
    }

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        // Photos first: their upload and byte routes are more specific than a log's.
        photos.register(on: routes)
        logs.register(on: routes)
        insights.register(on: routes)
        settings.register(on: routes)
        foods.register(on: routes)
        summaries.register(on: routes)
        imports.register(on: routes)
    }
}
