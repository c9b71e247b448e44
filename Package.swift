// swift-tools-version: 6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "Hearth",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "gateway", targets: ["Gateway"]),
        .executable(name: "assist-orchestrator", targets: ["AssistOrchestrator"]),
        .executable(name: "embedding-worker", targets: ["EmbeddingWorker"]),
        .executable(name: "profile-extractor", targets: ["ProfileExtractor"]),
        .executable(name: "calendar-sync", targets: ["CalendarSync"]),
        .executable(name: "notifier", targets: ["Notifier"]),
        .executable(name: "devbroker", targets: ["DevBroker"]),
        .executable(name: "hearthctl", targets: ["HearthCtl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        // Already in the graph through jwt-kit; named here because the gateway generates its dev
        // signing key and hashes key ids with it directly.
        .package(url: "https://github.com/apple/swift-crypto.git", "4.1.0"..<"6.0.0"),
        // Already in the graph through async-http-client; named for the notifier's APNs trust
        // roots and the tests' HTTP/2 TLS fake APNs server.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        // The wellbeing space's live connection (`/v1/wellbeing/live`).
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        // Distributed tracing: the API every library instruments against (already in the graph
        // through Hummingbird), and swift-otel's OTLP/HTTP exporter only: its gRPC exporter would
        // bring grpc-swift into every build for nothing an OTLP collector needs.
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // MARK: Shared libraries
        .systemLibrary(
            name: "CRdKafka",
            path: "Shared/CRdKafka",
            pkgConfig: "rdkafka",
            providers: [.apt(["librdkafka-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            path: "Shared/CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(
            name: "HearthKafka",
            dependencies: [
                "CRdKafka",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Shared/Kafka",
            swiftSettings: swiftSettings
        ),
        // EnvironmentReader: the one way to read a setting, below every library that has settings.
        .target(
            name: "HearthConfiguration",
            path: "Shared/Configuration",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HearthEvents",
            path: "Shared/Events",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HearthContent",
            path: "Shared/Content",
            exclude: ["validate.py", "eval/README.md", "who_growth_lms.md"],
            resources: [
                .copy("recipes.json"), .copy("allergen_synonyms.json"), .copy("routines.json"), .copy("chores.json"),
                .copy("knowledge"), .copy("eval/queries.json"), .copy("eval/extraction.json"), .copy("who_growth_lms.json"), .copy("first_foods.json"), .copy("wellbeing"),
                .copy("activities.json"), .copy("eval/moderation.json"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HearthDomain",
            dependencies: ["HearthEvents", "HearthContent"],
            path: "Shared/Domain",
            swiftSettings: swiftSettings
        ),
        // Personal data in events: the data keys (Postgres, wrapped by the master key), sealing on
        // publish and opening on read. Below the store, which seals and opens every event.
        .target(
            name: "HearthPrivacy",
            dependencies: [
                "HearthConfiguration", "HearthEvents",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Shared/Privacy",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HearthStore",
            dependencies: [
                "HearthEvents", "HearthKafka", "HearthPrivacy",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            path: "Shared/Store",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HearthKnowledge",
            dependencies: [
                "HearthConfiguration",
                "HearthEvents", "HearthContent", "HearthDomain", "HearthEmbeddings", "HearthStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            path: "Shared/Knowledge",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HearthRuntime",
            dependencies: [
                "HearthPrivacy",
                "HearthConfiguration",
                "HearthStore", "HearthKafka", "HearthEvents",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Shared/Runtime",
            swiftSettings: swiftSettings
        ),

        // The encoder's arithmetic, optimised in every configuration (a debug build of the services
        // embeds the content library too) and never contracted into fused multiply-adds the source
        // did not write: a text's vector must be the same bits on every CPU and build.
        .target(
            name: "CEncoderKernels",
            path: "Shared/CEncoderKernels",
            cSettings: [.unsafeFlags(["-O2", "-ffp-contract=off", "-fno-fast-math"])]
        ),
        .target(
            name: "HearthEmbeddings",
            dependencies: ["HearthConfiguration", "CEncoderKernels"],
            path: "Shared/Embeddings",
            swiftSettings: swiftSettings
        ),

        .target(
            name: "HearthAssist",
            dependencies: [
                "HearthConfiguration",
                "HearthDomain", "HearthEvents", "HearthStore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            path: "Shared/Assist",
            resources: [.copy("Resources")],
            swiftSettings: swiftSettings
        ),

        // Google OAuth and the encrypted credential store, shared by the gateway (connect) and
        // calendar-sync (refresh and mirror).
        .target(
            name: "HearthGoogle",
            dependencies: [
                "HearthConfiguration",
                "HearthEvents",
                "HearthPrivacy",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Shared/Google",
            swiftSettings: swiftSettings
        ),

        // MARK: Services
        // Each executable is a library holding everything it owns (routes or handlers, projections,
        // migrations in `Migrations/NNNN_*.sql`, settings) and a `Main/main.swift` that calls it;
        // tests import the libraries.
        .target(
            name: "GatewayService",
            dependencies: [
                "HearthPrivacy", "CZlib",
                "HearthConfiguration", "HearthRuntime", "HearthStore", "HearthEvents", "HearthDomain", "HearthAssist", "HearthKnowledge", "HearthGoogle",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            path: "Services/Gateway",
            exclude: ["Main"],
            resources: [.copy("OpenAPI/openapi.json"), .copy("Migrations")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "AssistOrchestratorService",
            dependencies: [
                "HearthPrivacy",
                "HearthConfiguration", "HearthRuntime", "HearthStore", "HearthEvents", "HearthAssist", "HearthDomain", "HearthKnowledge",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            path: "Services/AssistOrchestrator",
            exclude: ["Main"],
            resources: [.copy("Migrations")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "EmbeddingWorkerService",
            dependencies: [
                "HearthPrivacy",
                "HearthConfiguration", "HearthRuntime", "HearthKnowledge", "HearthDomain", "HearthKafka", "HearthEvents", "HearthStore", "HearthAssist",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Services/EmbeddingWorker",
            exclude: ["Main"],
            resources: [.copy("Migrations")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ProfileExtractorService",
            dependencies: [
                "HearthPrivacy",
                "HearthConfiguration", "HearthRuntime", "HearthStore", "HearthEvents", "HearthDomain", "HearthAssist",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Services/ProfileExtractor",
            exclude: ["Main"],
            resources: [.copy("Migrations")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CalendarSyncService",
            dependencies: [
                "HearthPrivacy",
                "HearthConfiguration", "HearthRuntime", "HearthDomain", "HearthGoogle", "HearthStore", "HearthEvents",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            path: "Services/CalendarSync",
            exclude: ["Main"],
            resources: [.copy("Migrations")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "NotifierService",
            dependencies: [
                "HearthPrivacy",
                "HearthConfiguration", "HearthRuntime", "HearthStore", "HearthEvents", "HearthDomain",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Services/Notifier",
            exclude: ["Main"],
            resources: [.copy("Migrations")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DevBrokerService",
            dependencies: [
                "HearthConfiguration", "HearthKafka", "HearthEvents", "CRdKafka",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Services/DevBroker",
            exclude: ["Main"],
            swiftSettings: swiftSettings
        ),
        // hearthctl sees every executable's read models (replay, checksums), so it links them all.
        .target(
            name: "HearthCtlCommands",
            dependencies: [
                "HearthPrivacy",
                "HearthConfiguration", "HearthRuntime", "HearthStore", "HearthKafka", "HearthEvents", "HearthEmbeddings", "HearthKnowledge", "HearthDomain",
                "GatewayService", "AssistOrchestratorService", "EmbeddingWorkerService", "ProfileExtractorService",
                "CalendarSyncService", "NotifierService",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Services/HearthCtl",
            exclude: ["Main"],
            swiftSettings: swiftSettings
        ),

        // MARK: Executables: three lines each
        .executableTarget(name: "Gateway", dependencies: ["GatewayService"], path: "Services/Gateway/Main", swiftSettings: swiftSettings),
        .executableTarget(name: "AssistOrchestrator", dependencies: ["AssistOrchestratorService"], path: "Services/AssistOrchestrator/Main", swiftSettings: swiftSettings),
        .executableTarget(name: "EmbeddingWorker", dependencies: ["EmbeddingWorkerService"], path: "Services/EmbeddingWorker/Main", swiftSettings: swiftSettings),
        .executableTarget(name: "ProfileExtractor", dependencies: ["ProfileExtractorService"], path: "Services/ProfileExtractor/Main", swiftSettings: swiftSettings),
        .executableTarget(name: "CalendarSync", dependencies: ["CalendarSyncService"], path: "Services/CalendarSync/Main", swiftSettings: swiftSettings),
        .executableTarget(name: "Notifier", dependencies: ["NotifierService"], path: "Services/Notifier/Main", swiftSettings: swiftSettings),
        .executableTarget(name: "DevBroker", dependencies: ["DevBrokerService"], path: "Services/DevBroker/Main", swiftSettings: swiftSettings),
        .executableTarget(name: "HearthCtl", dependencies: ["HearthCtlCommands"], path: "Services/HearthCtl/Main", swiftSettings: swiftSettings),

        // MARK: Tests
        .testTarget(
            name: "HearthUnitTests",
            dependencies: [
                "HearthConfiguration", "HearthEvents", "HearthDomain", "HearthContent", "HearthStore", "HearthKafka", "HearthAssist", "HearthKnowledge", "HearthRuntime",
                "HearthPrivacy", "GatewayService", "AssistOrchestratorService", "EmbeddingWorkerService", "ProfileExtractorService", "CalendarSyncService",
                "NotifierService", "HearthCtlCommands",
            ],
            path: "Tests/HearthUnitTests",
            // Sample daycare sheets the parser tests read from the source tree.
            exclude: ["Tracking/DaycareSheets"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HearthEmbeddingTests",
            dependencies: ["HearthEmbeddings", "CEncoderKernels"],
            path: "Tests/HearthEmbeddingTests",
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HearthIntegrationTests",
            dependencies: [
                "HearthConfiguration", "HearthRuntime", "HearthStore", "HearthKafka", "HearthEvents", "HearthDomain", "HearthAssist", "HearthKnowledge",
                "HearthPrivacy", "GatewayService", "AssistOrchestratorService", "EmbeddingWorkerService", "ProfileExtractorService", "CalendarSyncService",
                "NotifierService", "HearthCtlCommands",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
                // The wellbeing tests' live connection.
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                // The calendar tests' fake Google token and Calendar endpoints.
                "HearthGoogle",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Tests/HearthIntegrationTests",
            swiftSettings: swiftSettings
        ),
    ]
)
