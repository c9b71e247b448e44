import Foundation
import HearthKafka
import Logging
import ServiceLifecycle
import Synchronization
import Testing

@Suite("Kafka client against the devbroker")
struct KafkaClientTests {
    private typealias Env = KafkaTestEnvironment

    @Test("error mapping marks timeouts and transport failures retriable, argument errors not")
    func errorMapping() {
        #expect(KafkaError(code: KafkaErrorCode.timedOut).isRetriable)
        #expect(KafkaError(code: KafkaErrorCode.requestTimedOut).isRetriable)
        #expect(KafkaError(code: KafkaErrorCode.messageTimedOut).isRetriable)
        #expect(KafkaError(code: KafkaErrorCode.transport).isRetriable)
        #expect(KafkaError(code: KafkaErrorCode.queueFull).isRetriable)
        #expect(!KafkaError(code: KafkaErrorCode.invalidArgument).isRetriable)
        #expect(!KafkaError(code: KafkaErrorCode.topicAlreadyExists).isRetriable)
        #expect(KafkaError(code: KafkaErrorCode.fatal).isFatal)
        #expect(KafkaError(code: KafkaErrorCode.timedOut).name == "_TIMED_OUT")
    }

    @Test("send returns the partition and offset the broker assigned, in order")
    func sendReturnsOffsets() async throws {
        let topic = try await Env.freshTopic("offsets", partitions: 1)
        let producer = try Env.producer()
        var offsets: [Int64] = []
        for i in 0..<3 {
            let report = try await producer.send(KafkaOutgoingMessage(topic: topic, key: "k", value: Array("v\(i)".utf8)))
            #expect(report.topic == topic)
            #expect(report.partition == 0)
            offsets.append(report.offset)
        }
        let batch = try await producer.send((3..<6).map { KafkaOutgoingMessage(topic: topic, key: "k", value: Array("v\($0)".utf8)) })
        offsets += batch.map(\.offset)
        #expect(offsets == Array(0..<6))
        await producer.close()
        await producer.close()  // idempotent
        await #expect(throws: KafkaError.self) {
            _ = try await producer.send(KafkaOutgoingMessage(topic: topic, key: nil, value: []))
        }
    }

    @Test("key, value, headers and timestamp survive the round trip")
    func headersRoundTrip() async throws {
        let topic = try await Env.freshTopic("headers", partitions: 1)
        let producer = try Env.producer()
        let headers = [
            KafkaHeader(key: "event-type", string: "HouseholdCreated"),
            KafkaHeader(key: "binary", value: [0, 1, 2, 255]),
            KafkaHeader(key: "empty", value: []),
            KafkaHeader(key: "event-type", string: "repeated keys are kept"),
        ]
        let sent = KafkaOutgoingMessage(topic: topic, key: Array("household-1".utf8), value: Array("{}".utf8), headers: headers)
        let report = try await producer.send(sent)
        let keyless = try await producer.send(KafkaOutgoingMessage(topic: topic, key: nil as [UInt8]?, value: [42]))
        await producer.close()

        let reader = KafkaRangeReader(
            bootstrapServers: try Env.bootstrap(),
            ranges: [KafkaTopicPartition(topic: topic, partition: 0): report.offset..<(keyless.offset + 1)],
            logger: Env.logger
        )
        var received: [KafkaMessage] = []
        for try await message in reader { received.append(message) }
        try #require(received.count == 2)
        #expect(received[0].key == sent.key)
        #expect(received[0].value == sent.value)
        #expect(received[0].headers == headers)
        #expect(received[0].header("event-type") == Array("HouseholdCreated".utf8))
        #expect(received[0].header("missing") == nil)
        #expect(received[0].timestamp.map { abs($0.timeIntervalSinceNow) < 60 } == true)
        #expect(received[1].key == nil)
        #expect(received[1].value == [42])
        #expect(received[1].headers.isEmpty)
    }

    @Test("the range reader returns exactly the requested offsets and then ends")
    func rangeReaderReadsExactRange() async throws {
        let topic = try await Env.freshTopic("range", partitions: 2)
        let producer = try Env.producer()
        let first = (0..<20).map { KafkaOutgoingMessage(topic: topic, key: nil as [UInt8]?, value: Array("a\($0)".utf8), partition: 0) }
        let second = (0..<5).map { KafkaOutgoingMessage(topic: topic, key: nil as [UInt8]?, value: Array("b\($0)".utf8), partition: 1) }
        _ = try await producer.send(first + second)
        await producer.close()

        let p0 = KafkaTopicPartition(topic: topic, partition: 0)
        let p1 = KafkaTopicPartition(topic: topic, partition: 1)
        // p1's range reaches past the end: without `follow` it is cut at the high watermark.
        let reader = KafkaRangeReader(bootstrapServers: try Env.bootstrap(), ranges: [p0: 5..<12, p1: 0..<1_000], logger: Env.logger)
        var seen: [KafkaTopicPartition: [Int64]] = [:]
        for try await message in reader {
            seen[message.topicPartition, default: []].append(message.offset)
            #expect(message.value == Array("\(message.partition == 0 ? "a" : "b")\(message.offset)".utf8))
        }
        #expect(seen[p0] == Array(5..<12))
        #expect(seen[p1] == Array(0..<5))

        // Following: reads what is there, then waits for what comes next.
        let follower = KafkaRangeReader(
            bootstrapServers: try Env.bootstrap(), ranges: [p0: 18..<Int64.max], follow: true, logger: Env.logger
        )
        var followed = follower.makeAsyncIterator()
        #expect(try await followed.next()?.offset == 18)
        #expect(try await followed.next()?.offset == 19)
        let later = try Env.producer()
        let report = try await later.send(KafkaOutgoingMessage(topic: topic, key: nil as [UInt8]?, value: Array("a20".utf8), partition: 0))
        await later.close()
        #expect(report.offset == 20)
        #expect(try await followed.next()?.offset == 20)
        follower.cancel()

        // An empty range ends at once.
        let empty = KafkaRangeReader(bootstrapServers: try Env.bootstrap(), ranges: [p0: 3..<3], logger: Env.logger)
        var count = 0
        for try await _ in empty { count += 1 }
        #expect(count == 0)
    }

    @Test("admin: createTopic is idempotent, topics and watermarks reflect what was produced")
    func adminWatermarks() async throws {
        let admin = KafkaAdmin(bootstrapServers: try Env.bootstrap(), logger: Env.logger)
        let topic = try await Env.freshTopic("admin", partitions: 3)
        try await admin.createTopic(name: topic, partitions: 3)
        let metadata = try await admin.topics()
        #expect(metadata.first { $0.name == topic }?.partitions == [0, 1, 2])
        #expect(metadata.contains { $0.name == "households" && $0.partitions.count == 6 })
        #expect(metadata.contains { $0.name == "households.dlq" && $0.partitions.count == 1 })

        let producer = try Env.producer()
        _ = try await producer.send((0..<7).map { KafkaOutgoingMessage(topic: topic, key: nil as [UInt8]?, value: [UInt8($0)], partition: 1) })
        await producer.close()
        let watermarks = try await admin.watermarks(KafkaTopicPartition(topic: topic, partition: 1))
        #expect(watermarks.low == 0)
        #expect(watermarks.high == 7)
        let untouched = try await admin.watermarks(KafkaTopicPartition(topic: topic, partition: 2))
        #expect(untouched.high == 0)
        let all = try await admin.watermarks((0..<3).map { KafkaTopicPartition(topic: topic, partition: $0) })
        #expect(all.count == 3)
        #expect(all[KafkaTopicPartition(topic: topic, partition: 1)] == KafkaWatermarks(low: 0, high: 7))
        #expect(all[KafkaTopicPartition(topic: topic, partition: 0)]?.high == 0)
    }

    @Test("graceful shutdown of the producer service delivers everything already enqueued")
    func gracefulShutdownFlushes() async throws {
        let topic = try await Env.freshTopic("shutdown", partitions: 3)
        // A linger far longer than the test keeps the messages queued locally until shutdown has
        // to flush them (a flush sends at once, whatever the linger; librdkafka wants the linger
        // below `message.timeout.ms`, 5 minutes). With a linger of seconds, a busy machine could
        // stall the sending task that long, and part of the queue would leave before the check
        // below saw all of it (as happened once in a full run).
        let producer = try Env.producer(lingerMs: 120_000)
        let count = 3_000
        let group = ServiceGroup(configuration: .init(services: [.init(service: producer)], logger: Env.logger))
        let messages = (0..<count).map { KafkaOutgoingMessage(topic: topic, key: Array("key-\($0 % 50)".utf8), value: Array("\($0)".utf8)) }

        try await withThrowingTaskGroup(of: [KafkaDeliveryReport].self) { tasks in
            tasks.addTask {
                try await group.run()
                return []
            }
            tasks.addTask { try await producer.send(messages) }
            #expect(await Env.eventually(timeout: .seconds(30)) { producer.queuedMessages == count })
            await group.triggerGracefulShutdown()
            var reports: [KafkaDeliveryReport] = []
            for try await result in tasks { reports += result }
            #expect(reports.count == count)
        }

        let admin = KafkaAdmin(bootstrapServers: try Env.bootstrap(), logger: Env.logger)
        let ends = try await admin.watermarks((0..<3).map { KafkaTopicPartition(topic: topic, partition: $0) })
        #expect(ends.values.reduce(0) { $0 + $1.high } == Int64(count))
    }

    @Test("onAssign offsets decide where a partition starts, before its first message")
    func onAssignOffsetsAreHonoured() async throws {
        let topic = try await Env.freshTopic("assign", partitions: 1)
        let tp = KafkaTopicPartition(topic: topic, partition: 0)
        let producer = try Env.producer()
        _ = try await producer.send((0..<10).map { KafkaOutgoingMessage(topic: topic, key: nil as [UInt8]?, value: [UInt8($0)]) })
        await producer.close()

        let assigned = LockedBox<[[KafkaTopicPartition]]>([])
        let revoked = LockedBox<[[KafkaTopicPartition]]>([])
        let consumer = try KafkaConsumer(
            configuration: KafkaConsumerConfiguration(
                bootstrapServers: try Env.bootstrap(), groupId: Env.uniqueName("assign-group"), topics: [topic], clientId: "assign-test"
            ),
            logger: Env.logger,
            onAssign: { partitions in
                assigned.withLock { $0.append(partitions) }
                return [tp: 6]
            },
            onRevoke: { partitions in revoked.withLock { $0.append(partitions) } }
        )
        let services = ServiceGroup(configuration: .init(services: [.init(service: consumer)], logger: Env.logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await services.run() }
            var offsets: [Int64] = []
            var iterator = consumer.makeAsyncIterator()
            while offsets.count < 4, let message = try await iterator.next() {
                #expect(!assigned.withLock { $0.isEmpty }, "a message arrived before onAssign")
                offsets.append(message.offset)
            }
            #expect(offsets == [6, 7, 8, 9])
            #expect(assigned.withLock { $0 } == [[tp]])
            #expect(consumer.assignment == [tp])
            let watermarks = await consumer.highWatermarks()
            #expect(watermarks == [tp: 10])

            // Graceful shutdown leaves the group (revoking) and ends the sequence.
            await services.triggerGracefulShutdown()
            #expect(try await iterator.next() == nil)
            try await tasks.waitForAll()
            #expect(revoked.withLock { $0 } == [[tp]])
        }
    }

    @Test("two consumers of one group: 10,000 keyed events, none lost, none duplicated, per-key order kept")
    func consumerGroupKeepsPerKeyOrder() async throws {
        let partitions = 6
        let keys = 200
        let perKey = 50
        let total = keys * perKey
        let topic = try await Env.freshTopic("group", partitions: partitions)
        let groupId = Env.uniqueName("group")
        let bootstrap = try Env.bootstrap()

        let assignCalls = LockedBox(0)
        let consumers = try (0..<2).map { index in
            try KafkaConsumer(
                configuration: KafkaConsumerConfiguration(
                    bootstrapServers: bootstrap, groupId: groupId, topics: [topic], clientId: "group-test-\(index)"
                ),
                logger: Env.logger,
                onAssign: { _ in
                    assignCalls.withLock { $0 += 1 }
                    return [:]
                }
            )
        }
        // (consumer, key, sequence, partition, offset) in the order each consumer saw them.
        let received = LockedBox<[(consumer: Int, key: Int, seq: Int, partition: Int32, offset: Int64)]>([])

        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for (index, consumer) in consumers.enumerated() {
                tasks.addTask { try await consumer.run() }
                tasks.addTask {
                    for try await message in consumer {
                        let text = String(decoding: message.value, as: UTF8.self).split(separator: ":")
                        let entry = (index, Int(text[0])!, Int(text[1])!, message.partition, message.offset)
                        received.withLock { $0.append(entry) }
                    }
                }
            }

            // Produce only once both members hold their final share: the second member's join
            // is a rebalance, and none may happen while messages flow. ~3–10 s on a quiet box; the
            // bound is loose because the mock broker shares two cores with the rest of the suite.
            let settled = await Env.eventually(timeout: .seconds(60)) {
                let a = consumers[0].assignment
                let b = consumers[1].assignment
                return consumers.allSatisfy(\.isAssigned) && !a.isEmpty && !b.isEmpty
                    && a.isDisjoint(with: b) && a.union(b).count == partitions
            }
            try #require(settled, "group did not settle: \(consumers[0].assignment) / \(consumers[1].assignment)")
            let assignCallsBefore = assignCalls.withLock { $0 }

            let producer = try KafkaProducer(
                configuration: KafkaProducerConfiguration(bootstrapServers: bootstrap, clientId: "group-test-producer"),
                logger: Env.logger
            )
            // Interleaved keys, each key's sequence ascending: order can only survive per key.
            let messages = (0..<perKey).flatMap { seq in
                (0..<keys).map { key in
                    KafkaOutgoingMessage(topic: topic, key: Array("key-\(key)".utf8), value: Array("\(key):\(seq)".utf8))
                }
            }
            let reports = try await producer.send(messages)
            await producer.close()
            #expect(reports.count == total)

            let complete = await Env.eventually(timeout: .seconds(20)) { received.withLock { $0.count } >= total }
            // Give duplicates, if any, a moment to show up before judging.
            try await Task.sleep(for: .milliseconds(500))
            let snapshot = received.withLock { $0 }
            #expect(complete, "received \(snapshot.count) of \(total)")
            #expect(snapshot.count == total, "duplicates or losses: \(snapshot.count) received")
            #expect(assignCalls.withLock { $0 } == assignCallsBefore, "a rebalance happened while consuming")

            var byKey: [Int: [Int]] = [:]
            var consumerOfKey: [Int: Set<Int>] = [:]
            var partitionOfKey: [Int: Set<Int32>] = [:]
            for entry in snapshot {
                byKey[entry.key, default: []].append(entry.seq)
                consumerOfKey[entry.key, default: []].insert(entry.consumer)
                partitionOfKey[entry.key, default: []].insert(entry.partition)
            }
            #expect(byKey.count == keys)
            #expect(byKey.values.allSatisfy { $0 == Array(0..<perKey) }, "a key lost order, lost events or saw duplicates")
            #expect(partitionOfKey.values.allSatisfy { $0.count == 1 })
            #expect(consumerOfKey.values.allSatisfy { $0.count == 1 })
            #expect(Set(snapshot.map(\.consumer)) == [0, 1], "both members should have consumed")

            // Lag visibility: record next offsets, read them back once committed, compare with watermarks.
            var next: [Int: [KafkaTopicPartition: Int64]] = [:]
            for entry in snapshot {
                let tp = KafkaTopicPartition(topic: topic, partition: entry.partition)
                next[entry.consumer, default: [:]][tp] = max(next[entry.consumer]?[tp] ?? 0, entry.offset + 1)
            }
            for (index, offsets) in next { consumers[index].storeOffsets(offsets) }
            let expected = next.values.reduce(into: [KafkaTopicPartition: Int64]()) { $0.merge($1) { a, _ in a } }
            let admin = KafkaAdmin(bootstrapServers: bootstrap, logger: Env.logger)
            let committed = await Env.eventually(timeout: .seconds(10)) {
                (try? await admin.committedOffsets(group: groupId, partitions: Array(expected.keys))) == expected
            }
            #expect(committed)
            var watermarks: [KafkaTopicPartition: Int64] = [:]
            for consumer in consumers { watermarks.merge(await consumer.highWatermarks()) { a, _ in a } }
            #expect(watermarks == expected)

            tasks.cancelAll()
        }
    }

    @Test("a member whose reader is stalled with a full buffer still takes part in a rebalance, and loses nothing")
    func aFullBufferPausesFetchingWithoutBlockingRebalances() async throws {
        let topic = try await Env.freshTopic("pause", partitions: 2)
        let groupId = Env.uniqueName("pause")
        let bootstrap = try Env.bootstrap()
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(bootstrapServers: bootstrap, clientId: "pause-test-producer"), logger: Env.logger)
        let reports = try await producer.send((0..<200).map {
            KafkaOutgoingMessage(topic: topic, key: nil, value: Array("\($0)".utf8), partition: Int32($0 % 2))
        })
        await producer.close()
        func member(_ index: Int) throws -> KafkaConsumer {
            try KafkaConsumer(
                configuration: KafkaConsumerConfiguration(
                    bootstrapServers: bootstrap, groupId: groupId, topics: [topic], clientId: "pause-test-\(index)", maxBufferedMessages: 10),
                logger: Env.logger)
        }
        let stalled = try member(0)
        let joining = try member(1)
        let received = LockedBox<Set<KafkaTopicPartition.Position>>([])

        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await stalled.run() }
            // The first member fills its buffer of 10 and nobody reads it.
            let filled = await Env.eventually(timeout: .seconds(30)) { stalled.isAssigned && stalled.assignment.count == 2 }
            try #require(filled)
            try await Task.sleep(for: .seconds(1))
            tasks.addTask { try await joining.run() }
            // Joining needs the first member to rejoin, which a poll thread blocked on a full
            // buffer could not do until evicted after max.poll.interval.ms (5 minutes).
            let rebalanced = await Env.eventually(timeout: .seconds(30)) {
                joining.isAssigned && joining.assignment.count == 1 && stalled.assignment.count == 1
            }
            #expect(rebalanced, "assignments: \(stalled.assignment) / \(joining.assignment)")
            for consumer in [stalled, joining] {
                tasks.addTask {
                    for try await message in consumer {
                        received.withLock { _ = $0.insert(KafkaTopicPartition.Position(partition: message.partition, offset: message.offset)) }
                    }
                }
            }
            let everything = Set(reports.map { KafkaTopicPartition.Position(partition: $0.partition, offset: $0.offset) })
            let complete = await Env.eventually(timeout: .seconds(30)) { received.withLock { $0.isSuperset(of: everything) } }
            #expect(complete, "\(received.withLock { $0.count }) of 200 distinct messages read after fetching resumed")
            tasks.cancelAll()
        }
    }
}

extension KafkaTopicPartition {
    fileprivate struct Position: Hashable, Sendable {
        var partition: Int32
        var offset: Int64
    }
}

/// Test state shared with concurrently running closures (a `Mutex` cannot be captured by them).
private final class LockedBox<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<R>(_ body: (inout sending Value) -> R) -> R { mutex.withLock { body(&$0) } }
}
