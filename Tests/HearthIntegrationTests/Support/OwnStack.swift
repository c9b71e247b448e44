import Foundation
import HearthCtlCommands
import HearthStore
import Testing

/// A test's own database and broker: what `TestEnvironment` hands the test and the processes it
/// starts while the test runs inside `OwnStack`.
struct TestStack: Sendable {
    let databaseURL: String
    let kafkaBootstrap: String
}

/// Runs each test on an empty database and a devbroker of its own, so that tests which start
/// services (consumer groups, read models, topics) need not wait for one another. Applied to a
/// suite, it covers every test in it. At most `OwnStack.width` stacks exist at once: the machine
/// has two cores, and a stack's services mostly wait (for Kafka, for Postgres, for a poll), so a
/// few side by side fill the cores without starving any one test's deadlines.
struct OwnStack: SuiteTrait, TestTrait, TestScoping {
    /// `HEARTH_TEST_STACKS` overrides it (1: one test at a time, as before the stacks existed).
    static let width: Int = {
        let text = ProcessInfo.processInfo.environment["HEARTH_TEST_STACKS"] ?? ""
        return Int(text).map { max(1, $0) } ?? 3
    }()

    static let slots = StackSlots(count: width)
    static let migrated = MigratedTemplate()

    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        // The suite's own scope passes through; each test in it gets a stack.
        guard testCase != nil, !test.isSuite else { return try await function() }
        try await Self.slots.withSlot {
            // Swift Testing times a test from its start, waiting for a slot included; this line
            // is its own time, which `make test` ranks for the slowest ten.
            let started = ContinuousClock.now
            defer {
                let seconds = (ContinuousClock.now - started) / .seconds(1)
                // Named as Swift Testing names it in its own lines.
                let label = test.displayName.map { "\"\($0)\"" } ?? test.name
                print("hearth-test-time: \(String(format: "%.1f", seconds)) \(label)")
            }
            // Every executable's tables exist from the start, as on a Hearth that has run before: a
            // test may prepare a table before it starts the service that owns it.
            let template = try await Self.migrated.name()
            try await IsolatedStack.with(prefix: "hearth_test", template: template) { databaseURL, broker in
                try await TestEnvironment.$stack.withValue(TestStack(databaseURL: databaseURL, kafkaBootstrap: broker.bootstrap)) {
                    try await function()
                }
            }
        }
    }
}

/// A database with every executable's migrations applied, made once per test run: each stack's
/// database is a copy of it (`CREATE DATABASE … TEMPLATE`), so no test pays for the migrations.
actor MigratedTemplate {
    private var made: Task<String, any Error>?

    func name() async throws -> String {
        let making = made ?? Task {
            let (name, url) = try await SeparateDatabase.create(prefix: "hearth_test_migrated")
            let database = try SeparateDatabase(url: url)
            do {
                try await MigrationRunner(client: database.client, logger: TestEnvironment.logger).apply(ReadModelCatalogue.allMigrations())
            } catch {
                try? await database.close()
                throw error
            }
            // A template must have no sessions while it is copied.
            try await database.close()
            return name
        }
        made = making
        return try await making.value
    }
}

extension Trait where Self == OwnStack {
    /// Each test on its own database and broker (see `OwnStack`).
    static var ownStack: OwnStack { OwnStack() }
}

/// A counting semaphore for async code: at most `count` holders at once, the rest wait in order.
actor StackSlots {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) {
        free = count
    }

    func withSlot<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        await acquire()
        do {
            let result = try await body()
            release()
            return result
        } catch {
            release()
            throw error
        }
    }

    private func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
