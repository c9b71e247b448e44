import Foundation
import HearthKafka
import HearthStore
import Logging
import PostgresNIO
import Synchronization

/// What `/readyz` checks: Postgres answers, Kafka answers, migrations are applied, and every
/// projection has its partitions and is not stuck (events wait, no offset moved for a while) or
/// stopped. Kafka is asked at most every two seconds.
public final class Readiness: Sendable {
    let client: PostgresClient
    let admin: KafkaAdmin
    let gate: StartupGate
    let runners: [ProjectionRunner]
    let producer: KafkaProducer?
    let logger: Logger
    private let kafkaCache = KafkaReachabilityCache()
    private let extraChecks = Mutex<[(name: String, isReady: @Sendable () -> Bool)]>([])

    /// `producer`: the process's producer, which is not ready once librdkafka reported it fatal.
    public init(client: PostgresClient, admin: KafkaAdmin, gate: StartupGate, runners: [ProjectionRunner], producer: KafkaProducer? = nil, logger: Logger) {
        self.client = client
        self.admin = admin
        self.gate = gate
        self.runners = runners
        self.producer = producer
        self.logger = logger
    }

    public struct Report: Encodable, Sendable {
        public var ready: Bool
        public var checks: [String: String]
    }

    public func check() async -> Report {
        var checks: [String: String] = [:]
        checks["postgres"] = await postgresReachable() ? "ok" : "unreachable"
        checks["kafka"] = await kafkaCache.reachable(admin: admin) ? "ok" : "unreachable"
        checks["migrations"] = gate.isOpen ? "ok" : "pending"
        if let producer { checks["kafka_producer"] = producer.fatalError == nil ? "ok" : "fatal" }
        for runner in runners {
            checks["projection:\(runner.projection.name)"] = runner.condition.rawValue
        }
        for extra in extraChecks.withLock({ $0 }) {
            checks[extra.name] = extra.isReady() ? "ok" : "pending"
        }
        return Report(ready: checks.values.allSatisfy { $0 == "ok" }, checks: checks)
    }

    /// Adds an executable's own condition (a consumer holding its partitions, a follower
    /// positioned): `/readyz` answers 503 with `name: pending` until it holds.
    public func addCheck(_ name: String, isReady: @escaping @Sendable () -> Bool) {
        extraChecks.withLock { $0.append((name, isReady)) }
    }

    private func postgresReachable() async -> Bool {
        do {
            return try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    try await self.client.query("SELECT 1", logger: self.logger)
                    return true
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(2))
                    return false
                }
                let result = try await group.next() ?? false
                group.cancelAll()
                return result
            }
        } catch {
            return false
        }
    }
}

/// Remembers the last Kafka metadata answer for a short while, so a busy probe does not flood the broker.
final class KafkaReachabilityCache: Sendable {
    private let last = Mutex<(at: ContinuousClock.Instant, ok: Bool)?>(nil)

    func reachable(admin: KafkaAdmin) async -> Bool {
        if let cached = last.withLock({ $0 }), ContinuousClock.now - cached.at < .seconds(2) { return cached.ok }
        let ok = (try? await admin.topics()) != nil
        last.withLock { $0 = (ContinuousClock.now, ok) }
        return ok
    }
}
