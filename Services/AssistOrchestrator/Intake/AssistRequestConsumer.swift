import Foundation
import HearthEvents
import HearthKafka
import HearthPrivacy
import HearthStore
import Logging
import Metrics
import ServiceLifecycle

/// Takes `assist.requested` and `assistant.message_requested` off `assist.requests` (consumer group `hearth.assist-orchestrator`)
/// and runs each request exactly once: a run starts only after its claim is written, and the
/// offset is recorded for the next commit once the claim is, so a redelivery finds the claim and is skipped.
///
/// Runs proceed concurrently (up to `maxConcurrentRuns`); on shutdown the consumer stops taking
/// requests and the runs in flight finish before the service returns, so the run-event producer
/// (which stops after this service) still flushes their last events.
struct AssistRequestConsumer: Service {
    static let consumerGroup = "hearth.assist-orchestrator"

    let settings: OrchestratorSettings
    let claims: RunClaims
    let runner: AssistRunner
    /// Opens the requests' sealed goals, texts and household details.
    let keys: DataKeyRing
    let logger: Logger
    private let consumer: KafkaConsumer

    init(bootstrapServers: String, settings: OrchestratorSettings, claims: RunClaims, runner: AssistRunner, keys: DataKeyRing, logger: Logger) throws {
        self.settings = settings
        self.keys = keys
        self.claims = claims
        self.runner = runner
        self.logger = logger
        consumer = try KafkaConsumer(
            configuration: KafkaConsumerConfiguration(
                bootstrapServers: bootstrapServers, groupId: Self.consumerGroup, topics: [Topic.assistRequests.name],
                clientId: "hearth-assist-orchestrator-requests",
                // The mock broker (and an idle real one) holds an empty fetch for the whole
                // fetch.wait.max.ms: the default 500 ms would sit inside every run's latency.
                additional: ["fetch.wait.max.ms": String(settings.fetchWaitMs), "fetch.error.backoff.ms": "10"]),
            logger: logger)
    }

    /// True once the group has given this instance its partitions: requests are being taken up.
    var isAssigned: Bool { consumer.isAssigned }

    func run() async throws {
        let consumer = consumer
        let decoder = JSONDecoder.hearth()
        try await withThrowingTaskGroup(of: Void.self) { consumerGroup in
            consumerGroup.addTask { try await consumer.run() }
            await withTaskGroup(of: Void.self) { runs in
                var inFlight = 0
                do {
                    for try await message in consumer {
                        let started = ContinuousClock.now
                        let received = EventTracing.spanStart()
                        // How long the request waited in Kafka (producer and consumer clocks are
                        // the same host's in tests; across hosts it is only indicative).
                        let waitedMs = message.timestamp.map { max(0, Int(Date().timeIntervalSince($0) * 1000)) }
                        let opening = await open(message)
                        if case .stopping = opening { break }
                        let opened: [UInt8]? = if case .value(let value) = opening { value } else { nil }
                        guard let opened, let (request, metadata) = decode(message, value: opened, decoder: decoder) else {
                            consumer.storeOffsets([message.topicPartition: message.offset + 1])
                            continue
                        }
                        let claim = await claim(request)
                        // Shutting down before the claim was written: the request stays
                        // uncommitted and is taken up again by whoever owns the partition next.
                        if claim == .stopping { break }
                        consumer.storeOffsets([message.topicPartition: message.offset + 1])
                        guard claim == .claimed else {
                            logger.info("skipping a request already claimed", metadata: ["run_id": "\(request.runId.uuidString.lowercased())"])
                            continue
                        }
                        let claimed = request
                        if inFlight >= settings.maxConcurrentRuns {
                            await runs.next()
                            inFlight -= 1
                        }
                        inFlight += 1
                        runs.addTask { [runner, claims, logger] in
                            // The run's span (from the request's arrival, so the claim is inside it)
                            // is the current one while it runs: its model calls, tools and events
                            // join the request's trace.
                            await EventTracing.consuming(message, operation: "assist run", received: received) {
                                await runner.run(claimed, metadata: metadata, started: started, waitedMs: waitedMs)
                            }
                            do {
                                try await claims.markFinished(runId: claimed.runId)
                            } catch {
                                logger.warning("cannot mark a run finished", metadata: [
                                    "run_id": "\(claimed.runId.uuidString.lowercased())", "error": "\(error)",
                                ])
                            }
                        }
                    }
                } catch {
                    logger.error("assist request consumer stopped", metadata: ["error": "\(error)"])
                }
                await runs.waitForAll()
            }
            // The consumer's own failure (a fatal Kafka error) ends the service, and with it the
            // process: better restarted than silently taking no requests.
            consumerGroup.cancelAll()
            try await consumerGroup.waitForAll()
        }
    }

    private enum ClaimResult { case claimed, alreadyClaimed, stopping }

    /// Writes the claim, retrying while Postgres is unreachable: a request is never run unclaimed.
    private func claim(_ request: IntakeRequest) async -> ClaimResult {
        var backoff = Duration.milliseconds(50)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                return try await claims.claim(runId: request.runId, userId: request.userId) ? .claimed : .alreadyClaimed
            } catch {
                logger.warning("cannot claim a run yet, retrying", metadata: [
                    "run_id": "\(request.runId.uuidString.lowercased())", "error": "\(String(reflecting: error))",
                ])
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
        return .stopping
    }

    /// What opening a request's sealed fields gave.
    private enum Opened {
        case value([UInt8])
        /// Its sealed fields do not open (altered): not a request this service can run.
        case refused
        case stopping
    }

    /// The request with its sealed fields opened, retrying while the key store cannot be read or
    /// a key is not there yet (a request is never skipped for that).
    private func open(_ message: KafkaMessage) async -> Opened {
        var backoff = Duration.milliseconds(50)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                return .value(try await keys.open(message.value))
            } catch let refused as PrivacyError where refused.keyId == nil {
                logger.error("skipping an assist request whose sealed fields do not open", metadata: [
                    "partition": "\(message.partition)", "offset": "\(message.offset)", "error": "\(refused)",
                ])
                return .refused
            } catch {
                logger.warning("cannot read the data keys yet, retrying", metadata: ["error": "\(String(reflecting: error))"])
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
        return .stopping
    }

    private func decode(_ message: KafkaMessage, value: [UInt8], decoder: JSONDecoder) -> (IntakeRequest, EventMetadata)? {
        do {
            switch try EventCatalogue.hearth.decode(Data(value), hint: EventHeaders.typeHint(of: message), decoder: decoder) {
            case .event(let event):
                switch event.payload {
                case let plan as AssistRequested: return (.plan(plan), event.metadata)
                case let message as AssistantMessageRequestedV3: return (.assistant(message), event.metadata)
                case let summary as SummaryRequestedV2: return (.summary(summary), event.metadata)
                default: return nil
                }
            case .unknownType(let metadata), .newerVersion(let metadata, _):
                Counter(label: "hearth_events_skipped_total", dimensions: [("projection", "assist_requests"), ("reason", "unknown")]).increment()
                logger.warning("skipping an assist request this build cannot read", metadata: ["type": "\(metadata.type)", "version": "\(metadata.version)"])
                return nil
            }
        } catch {
            logger.error("skipping a malformed assist request", metadata: [
                "partition": "\(message.partition)", "offset": "\(message.offset)", "error": "\(error)",
            ])
            return nil
        }
    }
}
