import Foundation
import HearthAssist
import HearthDomain
import HearthKafka
import HearthKnowledge
import HearthPrivacy
import HearthStore
import HearthRuntime
import Hummingbird
import HummingbirdWebSocket
import ServiceLifecycle

/// The gateway's HTTP API wired together: who may call what, in which order the checks run.
///
/// Order per request: request id and metrics (ServiceHost), the rate limit (every route added
/// after it, so not the ops routes), then for `/v1` routes other than sign-in the bearer token,
/// and for `/v1/admin` the admin list.
struct GatewayAPI: Sendable {
    let settings: GatewaySettings
    let openAPI: OpenAPIRoutes
    let rateLimit: RateLimitMiddleware
    let authentication: BearerAuthentication
    let auth: AuthRoutes
    let households: HouseholdRoutes
    let members: MemberRoutes
    let chats: ChatRoutes
    let chatMedia: ChatMediaRoutes
    let chatStream: ChatStreamRoutes
    let chatSearch: ChatSearchRoutes
    let profile: ProfileRoutes
    let invites: InviteRoutes
    let memberships: MembershipRoutes
    let coaching: CoachingRoutes
    let users: UserRoutes
    let account: AccountRoutes
    let eraser: PeriodicService
    let sweeper: PeriodicService
    let exports: ExportRoutes
    let exportWorker: PeriodicService
    let feedback: FeedbackRoutes
    let activities: ActivityRoutes
    let consentRoutes: ConsentRoutes
    let activityJournal: ActivityJournalRoutes
    let activityPacks: ActivityPacks
    let activityUsageSweeper: PeriodicService
    let activityModeration: ActivityModerationRoutes
    let admin: AdminRoutes
    let console: AdminConsoleRoutes
    let pipeline: PipelineRoutes
    let feedbackReview: FeedbackReview
    let consoleSweeper: PeriodicService
    let assist: AssistAPI
    let search: SearchRoutes
    let documents: DocumentAdminRoutes
    let calendar: CalendarAPI
    let tracking: TrackingAPI
    let wellbeing: WellbeingAPI
    let wellbeingLive: WellbeingLiveRoutes
    let notifications: NotificationRoutes
    let notificationServices: [any Service]
    let registeredRoutes: RegisteredRoutes
    let janitor: RateLimitJanitor
    let idempotency: IdempotencyMiddleware

    /// Reads the gateway's keys; throws when they are unusable (`ServiceHost.launch` then stops the
    /// process with exit 78).
    static func make(host: ServiceHost, settings: GatewaySettings) async throws -> GatewayAPI {
        let logger = host.logger
        let signingKey = try SigningKey.load(settings)
        let tokens = await HearthTokens(signingKey: signingKey, settings: settings)
        if settings.appleClientId == nil {
            logger.warning("HEARTH_APPLE_CLIENT_ID is not set: Sign in with Apple answers 503")
        }
        let consistency = ReadConsistency(
            waiter: ConsistencyWaiter(client: host.postgres, admin: KafkaAdmin(bootstrapServers: host.settings.kafkaBootstrap, logger: logger), logger: logger))
        let membership = MembershipReadModel(client: host.postgres, logger: logger)
        let userReadModel = UserReadModel(client: host.postgres, logger: logger)
        let householdReadModel = HouseholdReadModel(client: host.postgres, logger: logger)
        let counters = RateLimitCounterStore(client: host.postgres, logger: logger)
        let rateLimitLedger = RateLimitLedger()
        let registeredRoutes = RegisteredRoutes()
        let sessions = AuthSessions(
            client: host.postgres, changes: host.readModelChanges, refreshLifetime: settings.refreshTokenLifetime, logger: logger)
        let standing = AccountStanding(client: host.postgres, sessions: sessions, changes: host.readModelChanges, logger: logger)
        let idempotencyKeys = IdempotencyStore(client: host.postgres, logger: logger)
        let streams = OpenStreams(perUser: settings.streamsPerUser)
        // Seals Google refresh tokens and webhook secrets (`HEARTH_SECRETS_KEY`); nil in production
        // without it, when both features answer 503.
        let secrets = try SecretBox.load(
            environment: host.settings.environment, runDirectory: host.settings.runDirectory, allowGenerated: host.settings.mode != .production)
        let notifications = NotificationRoutes.make(
            host: host, membership: membership, heartbeat: settings.notificationsHeartbeat, allowPrivateWebhookTargets: settings.webhookPrivateTargets,
            streams: streams, secrets: secrets, sessions: sessions)
        let chatReadModel = ChatReadModel(host: host, logger: logger)
        // Deletion confirmation codes are derived from the secrets key: without it, only a fresh
        // sign-in confirms a deletion.
        let deletionCodes = secrets.map { AccountDeletionCodes(client: host.postgres, codes: AccountDeletionCode(secrets: $0), logger: logger) }
        logger.info("gateway configured", metadata: [
            "jwt_kid": "\(signingKey.keyId)", "rate_limit_per_min": "\(settings.rateLimitPerMinute)",
            "auth_rate_limit_per_min": "\(settings.authRateLimitPerMinute)", "trusted_proxies": "\(settings.trustedProxies.map(\.description).joined(separator: ","))",
            "admins": "\(settings.adminUserIds.count)",
        ])
        let search = try SearchRoutes.make(host: host)
        let activityFeed = ActivityFeed(client: host.postgres, changes: host.readModelChanges, capacity: settings.activityFeedCache, logger: logger)
        let consents = ConsentReadModel(client: host.postgres)
        let activityAllowance = ActivityDailyAllowance(client: host.postgres, logger: logger)
        let assist = try AssistAPI.make(
            host: host, settings: settings.assist, admins: settings.adminUserIds, membership: membership, consistency: consistency, streams: streams)
        let appleKeys = AppleKeySet(url: settings.appleJWKSURL, logger: logger)
        let apple = AppleIdentityVerifier(keySet: appleKeys, clientId: settings.appleClientId)
        let activityModeration = ActivityModerationRoutes(publisher: host.publisher, client: host.postgres, consistency: consistency)
        let userLookup = AdminUserLookup(
            users: userReadModel, usage: assist.usage.usage, quota: assist.usage.quota, admins: settings.adminUserIds, publisher: host.publisher,
            consistency: consistency, client: host.postgres, logger: logger)
        let pipelineHealth = PipelineHealth(
            client: host.postgres, kafka: KafkaAdmin(bootstrapServers: host.settings.kafkaBootstrap, logger: logger), logger: logger)
        let redrive = DeadLetterRedrive(parked: ParkedEvents(client: host.postgres, logger: logger), publisher: host.publisher)
        let feedbackReview = FeedbackReview(client: host.postgres, logger: logger)
        let consoleSessions = AdminConsoleSessions(client: host.postgres, lifetime: settings.adminSessionLifetime, logger: logger)
        return GatewayAPI(
            settings: settings,
            openAPI: try OpenAPIRoutes.load(),
            rateLimit: RateLimitMiddleware(
                ledger: rateLimitLedger, clients: ClientAddressResolver(trustedProxies: settings.trustedProxies),
                general: FixedWindowRateLimit(limit: settings.rateLimitPerMinute),
                auth: FixedWindowRateLimit(limit: settings.authRateLimitPerMinute)),
            authentication: BearerAuthentication(tokens: tokens, standing: standing),
            auth: AuthRoutes(
                apple: apple,
                tokens: tokens,
                sessions: sessions,
                standing: standing,
                registrar: UserRegistrar(publisher: host.publisher, users: userReadModel, consistency: consistency),
                devSignInEnabled: settings.devSignInEnabled, deviceSignUps: DeviceSignUpLimit(perHour: settings.deviceSignUpsPerHour),
                clients: ClientAddressResolver(trustedProxies: settings.trustedProxies)),
            households: HouseholdRoutes(
                publisher: host.publisher, readModel: householdReadModel, membership: membership, consistency: consistency,
                responses: HouseholdResponseCache(capacity: settings.householdReadCache, changes: host.readModelChanges)),
            members: MemberRoutes(publisher: host.publisher, readModel: householdReadModel, membership: membership, consistency: consistency),
            chats: ChatRoutes(publisher: host.publisher, chats: chatReadModel, membership: membership, consistency: consistency),
            chatMedia: ChatMediaRoutes(
                publisher: host.publisher, chats: chatReadModel, thumbnailer: PhotoThumbnailer(size: ChatMediaRoutes.thumbnailSize, crop: true),
                logger: logger),
            chatStream: ChatStreamRoutes.make(
                host: host, chats: chatReadModel, heartbeat: settings.chatStreamHeartbeat, streams: streams, sessions: sessions),
            chatSearch: ChatSearchRoutes(search: search.search, messages: ChatMessageSearch(client: host.postgres, logger: logger)),
            profile: ProfileRoutes(
                publisher: host.publisher, profile: ProfileReadModel(client: host.postgres, logger: logger), membership: membership,
                consistency: consistency),
            invites: InviteRoutes(
                publisher: host.publisher, invites: InviteReadModel(client: host.postgres, logger: logger),
                claims: InviteClaims(client: host.postgres, logger: logger), membership: membership, consistency: consistency),
            memberships: MembershipRoutes(publisher: host.publisher, membership: membership, consistency: consistency),
            coaching: CoachingRoutes(
                publisher: host.publisher, coaching: CoachingReadModel(client: host.postgres, logger: logger), users: userReadModel,
                membership: membership, claims: InviteClaims(client: host.postgres, logger: logger), consistency: consistency),
            users: UserRoutes(publisher: host.publisher, users: userReadModel, membership: membership, consistency: consistency),
            account: AccountRoutes(
                publisher: host.publisher, users: userReadModel, grace: settings.accountDeletionGrace, client: host.postgres, codes: deletionCodes),
            eraser: AccountEraser(
                client: host.postgres, keys: host.keys, sessions: sessions, publisher: host.publisher, waiter: consistency.waiter, logger: logger)
                .service(every: settings.erasureCheckInterval),
            sweeper: SpentCredentialSweeper(
                sessions: sessions, webhookSecrets: notifications.routes.webhookSecrets, deletionCodes: deletionCodes, logger: logger)
                .service(every: .seconds(600)),
            exports: ExportRoutes(publisher: host.publisher, client: host.postgres, consistency: consistency, logger: logger),
            exportWorker: ExportWorker(client: host.postgres, logger: logger).service(every: .seconds(1)),
            feedback: FeedbackRoutes(publisher: host.publisher, membership: membership, client: host.postgres),
            activities: ActivityRoutes(
                feed: activityFeed, publisher: host.publisher, client: host.postgres, consistency: consistency,
                allowance: activityAllowance, submissionsPerDay: settings.activitySubmissionsPerDay,
                feedPolls: FixedWindowRateLimit(limit: settings.activityFeedPollsPerMinute), ledger: rateLimitLedger,
                ideas: ActivityIdeaWriter(
                    feed: activityFeed, client: host.postgres, embeddings: search.search.provider, router: settings.activityIdeasRouter,
                    screen: ActivitySubmissionScreen(policy: try SafetyPolicy.load()), logger: logger),
                ideasPerDay: settings.activityIdeasPerDay, consents: consents),
            consentRoutes: ConsentRoutes(publisher: host.publisher, consents: consents, consistency: consistency),
            activityJournal: ActivityJournalRoutes(feed: activityFeed, publisher: host.publisher, client: host.postgres, consistency: consistency),
            activityPacks: ActivityPacks(feed: activityFeed),
            activityUsageSweeper: activityAllowance.sweeper(every: .seconds(3600)),
            activityModeration: activityModeration,
            admin: AdminRoutes(users: userReadModel, lookup: userLookup, registeredRoutes: registeredRoutes),
            console: AdminConsoleRoutes(
                sessions: consoleSessions, admins: settings.adminUserIds,
                // The web's own audience: a token issued to the app does not open the console, nor the reverse.
                apple: AppleIdentityVerifier(keySet: appleKeys, clientId: settings.appleWebClientId),
                appleRedirectURL: settings.appleWebClientId == nil ? nil : settings.publicURL.map { $0 + "/admin/sign-in/apple" },
                appleClientId: settings.appleWebClientId, devLinks: settings.devSignInEnabled,
                secureCookie: settings.isProduction || settings.publicURL?.lowercased().hasPrefix("https://") == true,
                usage: assist.usage, feedback: feedbackReview, pipeline: pipelineHealth, redrive: redrive, moderation: activityModeration,
                users: userReadModel, lookup: userLookup),
            pipeline: PipelineRoutes(health: pipelineHealth, redrive: redrive),
            feedbackReview: feedbackReview,
            consoleSweeper: consoleSessions.sweeper(every: .seconds(3600)),
            assist: assist,
            search: search,
            documents: DocumentAdminRoutes(publisher: host.publisher),
            calendar: try CalendarAPI.make(host: host, membership: membership, consistency: consistency, publicURL: settings.publicURL, secrets: secrets),
            tracking: try TrackingAPI.make(
                host: host, membership: membership, users: userReadModel, consistency: consistency, launcher: assist.launcher,
                importReader: settings.daycareImportReader),
            wellbeing: try WellbeingAPI.make(host: host, users: userReadModel, consistency: consistency, writerRouter: settings.wellbeingWriterRouter,
                scheduleInterval: settings.wellbeingScheduleInterval, embeddings: search.search.provider),
            wellbeingLive: try WellbeingLiveRoutes.make(host: host, tokens: tokens, standing: standing, streams: streams),
            notifications: notifications.routes,
            notificationServices: notifications.services,
            registeredRoutes: registeredRoutes,
            janitor: RateLimitJanitor(store: counters, ledger: rateLimitLedger, idempotencyKeys: idempotencyKeys, logger: logger),
            idempotency: IdempotencyMiddleware(store: idempotencyKeys))
    }

    /// Services that run beside the HTTP server once migrations are applied.
    var services: [any Service] { [janitor, wellbeingLive.hub, wellbeing.schedule, eraser, sweeper, exportWorker, activityUsageSweeper, consoleSweeper] + chatStream.services + assist.services + notificationServices }

    /// The WebSocket upgrades (`/v1/wellbeing/live`), listed with the other routes.
    func registerWebSockets(on router: Router<BasicWebSocketRequestContext>) {
        wellbeingLive.register(on: router)
    }

    /// Registers every route. Every route registered here is listed by `GET /v1/admin/routes`
    /// and must be in openapi.json (a test compares the two).
    func register(on router: Router<HearthRequestContext>) {
        router.add(middleware: SecurityHeadersMiddleware(allowedOrigins: settings.corsOrigins, strictTransportSecurity: settings.isProduction))
        router.add(middleware: rateLimit)
        openAPI.register(on: router)

        auth.registerOpen(on: router.group("v1"))
        calendar.registerOpen(on: router.group("v1"))

        let authenticated = router.group("v1").add(middleware: authentication).add(middleware: idempotency)
        auth.registerAuthenticated(on: authenticated)
        households.register(on: authenticated)
        members.register(on: authenticated)
        chats.register(on: authenticated)
        chatMedia.register(on: authenticated)
        chatStream.register(on: authenticated)
        chatSearch.register(on: authenticated)
        profile.register(on: authenticated)
        invites.register(on: authenticated)
        memberships.register(on: authenticated)
        coaching.register(on: authenticated)
        users.register(on: authenticated)
        account.register(on: authenticated)
        exports.register(on: authenticated)
        feedback.register(on: authenticated)
        activities.register(on: authenticated)
        consentRoutes.register(on: authenticated)
        activityJournal.register(on: authenticated)
        activityPacks.register(on: authenticated)
        let adminOnly = authenticated.group("admin").add(middleware: AdminOnly(admins: settings.adminUserIds))
        admin.register(on: adminOnly)
        activityModeration.register(on: adminOnly)
        pipeline.register(on: adminOnly)
        feedbackReview.register(on: adminOnly)
        console.register(on: router)
        assist.routes.register(on: authenticated)
        assist.assistant.register(on: authenticated)
        search.register(on: authenticated)
        documents.register(on: adminOnly)
        calendar.register(on: authenticated)
        tracking.register(on: authenticated)
        wellbeing.register(on: authenticated)
        wellbeingLive.registerRefusals(on: authenticated)
        notifications.register(on: authenticated)
        assist.usage.register(on: authenticated)
        assist.usage.registerAdmin(on: adminOnly)

        registeredRoutes.record(router.routes.map { RegisteredRoutes.Route(method: $0.method.rawValue, path: $0.path.description) })
    }
}
