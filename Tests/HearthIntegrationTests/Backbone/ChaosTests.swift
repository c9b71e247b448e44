import Crypto
import Foundation
import HearthDomain
import HearthEvents
import HearthKafka
import HearthCtlCommands
import PostgresNIO
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension BackboneSuite {
    /// Real traffic (household upserts, reminders pushed to a fake APNs) through two gateways
    /// (and sometimes three) and two notifiers on a database and devbroker of their own, while
    /// faults are injected one after another: a gateway and a notifier SIGKILLed mid-flow and
    /// restarted, a third gateway joining and leaving (rebalances), every broker down and up, a
    /// replay swapping the households read model in, and with `HEARTH_CHAOS=long` Postgres
    /// frozen and restarted. Afterwards every accepted request's event is in the archive exactly
    /// once, every accepted reminder was pushed exactly once, every read model equals its rebuild
    /// from zero, nothing is parked, and every process is ready. `make chaos` runs the long version; `make test` a short one.
    @Suite struct Chaos {
        @Test func trafficSurvivesKillsRebalancesABrokerOutageAndAReplay() async throws {
            let plan = ChaosPlan.fromEnvironment()
            try await IsolatedStack.with(prefix: "hearth_chaos") { url, broker in
                let environment = [
                    "HEARTH_DATABASE_URL": url, "HEARTH_KAFKA_BOOTSTRAP": broker.bootstrap, "HEARTH_PROJECTION_STUCK_SECONDS": "20",
                    "HEARTH_MONTHLY_QUOTA": "1000000", "HEARTH_PROJECTION_COMMIT_TIMEOUT_SECONDS": "20",
                    "HEARTH_ADMIN_USER_IDS": ChaosTraffic.adminUserId.uuidString.lowercased(),
                ]
                let apns = try await FakeAPNsServer.start()
                defer { Task { await apns.stop() } }
                let fleet = ServiceFleet("gateway", environment: environment)
                let notifiers = ServiceFleet(
                    "notifier", environment: environment.merging(try NotifierStack.notifierEnvironment(pushingTo: apns, key: P256.Signing.PrivateKey())) { $1 })
                let orchestrators = ServiceFleet("assist-orchestrator", environment: environment)
                let extractors = ServiceFleet("profile-extractor", environment: environment)
                let embedders = ServiceFleet("embedding-worker", environment: environment)
                let calendars = ServiceFleet("calendar-sync", environment: environment)
                let workers = [notifiers, orchestrators, extractors, embedders, calendars]
                defer {
                    fleet.stopAll()
                    for worker in workers { worker.stopAll() }
                }
                for started in [fleet] + workers { started.launch(count: 2) }
                for started in [fleet] + workers { try await started.waitUntilReady() }
                let traffic = ChaosTraffic(fleet: fleet, clients: 4)
                let driving = Task { await traffic.drive() }
                var faults: [String] = []

                // 1. SIGKILL a gateway mid-flow; start it again.
                if plan.processFaults {
                try await Task.sleep(for: plan.pause)
                await fleet.kill(at: 0)
                faults.append("SIGKILL gateway, restart")
                try await fleet.restart(at: 0)
                try await Task.sleep(for: plan.pause)
                await notifiers.kill(at: 0)
                faults.append("SIGKILL notifier, restart")
                try await notifiers.restart(at: 0)
                try await Task.sleep(for: plan.pause)
                await orchestrators.kill(at: 0)
                faults.append("SIGKILL assist-orchestrator, restart")
                try await orchestrators.restart(at: 0)
                try await Task.sleep(for: plan.pause)
                await extractors.kill(at: 0)
                await embedders.kill(at: 0)
                await calendars.kill(at: 0)
                faults.append("SIGKILL profile-extractor, embedding-worker and calendar-sync, restart")
                for restarted in [extractors, embedders, calendars] { try restarted.relaunch(at: 0) }
                for restarted in [extractors, embedders, calendars] { try await restarted.waitUntilReady() }

                // 2. A third gateway joins (the group rebalances), then leaves gracefully.
                try await Task.sleep(for: plan.pause)
                try await fleet.add()
                try await Task.sleep(for: plan.pause)
                await fleet.stop(at: 2)
                faults.append("gateway joins and leaves (2 rebalances)")

                // 3. Every broker down, then up: writes answer 503 with Retry-After meanwhile.
                try await Task.sleep(for: plan.pause)
                try await DevBrokerControl.setBrokers(up: false, at: broker.bootstrap)
                try await Task.sleep(for: plan.brokerOutage)
                try await DevBrokerControl.setBrokers(up: true, at: broker.bootstrap)
                faults.append("brokers down \(plan.brokerOutage)")

                // 4. A replay swaps the households read model in while traffic flows.
                try await Task.sleep(for: plan.pause)
                let replay = try await CommandLineTool.run(["replay", "households"], environment: environment)
                // Under traffic the tables change while it runs: "DIFFERENT" (3) is expected then.
                #expect([0, 3].contains(replay.status), "\(replay.output)\n\(replay.errors.suffix(2000))")
                faults.append("replay households under traffic")
                }

                // 5. (long) Postgres frozen, then restarted.
                if plan.postgresFaults, let server = TestPostgresServer.fromEnvironment() {
                    try await Task.sleep(for: plan.pause)
                    try await server.freeze(for: .seconds(20))
                    faults.append("Postgres frozen 20 s")
                    try await Task.sleep(for: plan.pause)
                    try server.restart()
                    faults.append("Postgres restarted")
                }

                try await Task.sleep(for: plan.pause)
                let stoppedAt = ContinuousClock.now
                traffic.stop()
                await driving.value

                // Everything accepted is applied: every gateway projection at the topics' ends.
                let ownDatabase = try SeparateDatabase(url: url)
                let admin = KafkaAdmin(bootstrapServers: broker.bootstrap, logger: TestEnvironment.logger)
                let caughtUp = try await KafkaTestEnvironment.eventually(timeout: .seconds(120)) {
                    try await ChaosCheck.projectionsAtTheEnd(database: ownDatabase, admin: admin)
                }
                let catchUp = ContinuousClock.now - stoppedAt
                // Each chat message a gateway accepted is in the archive once; each document
                // embedded once.
                let messages = traffic.acceptedMessages
                let messageCounts = try await ChaosCheck.events(ofType: "chat.message_sent", correlations: messages, database: ownDatabase)
                let documents = traffic.acceptedDocuments
                let embedded = try await KafkaTestEnvironment.eventually(timeout: .seconds(120)) {
                    try await ChaosCheck.embedCounts(documents, database: ownDatabase).values.allSatisfy { $0 >= 1 }
                }
                let embedCounts = try await ChaosCheck.embedCounts(documents, database: ownDatabase)
                #expect(embedded, "documents not embedded: \(embedCounts.filter { $0.value == 0 }.count) of \(documents.count)")
                #expect(embedCounts.values.allSatisfy { $0 <= 1 }, "documents embedded twice: \(embedCounts.filter { $0.value > 1 })")
                #expect(messageCounts.values.allSatisfy { $0 == 1 }, "chat messages not archived once: \(messageCounts.filter { $0.value != 1 })")
                #expect(caughtUp, "projections did not catch up: \(fleet.logTails())")
                // Each accepted reminder pushed once (they are due a few seconds after they were sent).
                let reminders = traffic.acceptedReminders
                @Sendable func pushRequests() -> [String: [ReceivedRequest]] {
                    var received: [String: [ReceivedRequest]] = [:]
                    for reminder in reminders {
                        received[reminder.title] = apns.responder.requests(to: "/3/device/\(reminder.token)").filter {
                            String(decoding: $0.body, as: UTF8.self).contains(reminder.title)
                        }
                    }
                    return received
                }
                @Sendable func pushes() -> [String: Int] { pushRequests().mapValues(\.count) }
                // Each assist run a gateway accepted (answered 200) requested once and completed once.
                let runs = traffic.acceptedRuns
                let runsDone = try await KafkaTestEnvironment.eventually(timeout: .seconds(90)) {
                    try await ChaosCheck.runs(runs, database: ownDatabase).values.allSatisfy { $0.completed >= 1 }
                }
                let runCounts = try await ChaosCheck.runs(runs, database: ownDatabase)
                #expect(runsDone, "runs never completed: \(runCounts.filter { $0.value.completed == 0 }.count) of \(runs.count)")
                #expect(runCounts.values.allSatisfy { $0.requested == 1 && $0.completed <= 1 }, "\(runCounts.filter { $0.value.requested != 1 || $0.value.completed > 1 })")
                let delivered = await KafkaTestEnvironment.eventually(timeout: .seconds(90)) { pushes().values.allSatisfy { $0 >= 1 } }
                try await Task.sleep(for: .seconds(2))  // a second push, if any, would come now
                let pushed = pushes()
                #expect(delivered, "reminders not pushed: \(pushed.filter { $0.value == 0 }.count) of \(reminders.count)")

                let archive = try await ChaosCheck.archive(database: ownDatabase)
                let accepted = traffic.accepted
                let lost = accepted.filter { archive[$0, default: .init()].events == 0 }
                let duplicated = accepted.filter { archive[$0, default: .init()].events > 1 }
                let recognisable = duplicated.filter { archive[$0]!.distinctIds == 1 }
                let parked = try await ownDatabase.count("SELECT count(*) FROM projection_dead_letters")
                let ready = await fleet.allReady()
                var rebuilds: [String] = []
                var rebuildsIdentical = true
                let owners = ReadModelCatalogue.Owner.allCases
                for projection in owners.flatMap(ReadModelCatalogue.projections(of:)) where projection.decodesPayloads {
                    let rebuild = try await CommandLineTool.run(["replay", projection.name, "--dry-run"], environment: environment)
                    if rebuild.status != 0 {
                        rebuildsIdentical = false
                        rebuilds.append("\(projection.name): exit \(rebuild.status)\n\(rebuild.output)\n\(rebuild.errors.suffix(1000))")
                    }
                }

                ChaosReport(
                    faults: faults, accepted: accepted.count, runs: runs.count, runsIncomplete: runCounts.values.filter { $0.completed != 1 }.count,
                    messages: messages.count, messagesNotOnce: messageCounts.values.filter { $0 != 1 }.count,
                    documents: documents.count, documentsNotOnce: embedCounts.values.filter { $0 != 1 }.count,
                    reminders: reminders.count,
                    remindersPushedTwice: pushed.values.filter { $0 > 1 }.count, remindersNotPushed: pushed.values.filter { $0 == 0 }.count, refused: traffic.refusals, retries: traffic.retries,
                    events: archive.values.reduce(0) { $0 + $1.events }, lost: lost.count, duplicated: duplicated.count - recognisable.count,
                    recognisableDuplicates: recognisable.count, parked: parked, catchUp: catchUp,
                    replayIdentical: rebuildsIdentical
                ).print()

                #expect(accepted.count > 20, "too little traffic got through to judge")
                #expect(reminders.count > 5, "too few reminders got through to judge")
                if plan.postgresFaults {
                    // A push whose record Postgres lost (restarted between the push and the commit)
                    // goes out again; it carries the reminder's collapse id, so the device shows one.
                    let collapsed = pushRequests().values.allSatisfy { Set($0.map { $0.header("apns-collapse-id") }).count <= 1 }
                    #expect(collapsed, "a reminder was pushed twice under different collapse ids")
                } else {
                    #expect(pushed.values.allSatisfy { $0 <= 1 }, "reminders pushed twice: \(pushed.filter { $0.value > 1 })")
                }
                #expect(lost.isEmpty, "accepted but not in the archive: \(lost.prefix(5))")
                #expect(duplicated.count == recognisable.count, "published twice under different ids: \(duplicated.prefix(5))")
                #expect(parked == 0)
                #expect(ready, "a gateway is not ready: \(fleet.logTails())")
                for processes in [notifiers] + workers where !(await processes.allReady()) {
                    Issue.record("not ready: \(await processes.notReady())\n\(processes.logTails())")
                }
                #expect(messages.count > 5 && documents.count > 3, "too few chat messages or documents got through to judge")
                #expect(runs.count > 3, "too few assist runs got through to judge")
                #expect(rebuildsIdentical, "a read model differs from its rebuild:\n\(rebuilds.joined(separator: "\n"))")
                #expect(traffic.unexpected.isEmpty, "unexpected answers: \(traffic.unexpected.prefix(5))")
                try await ownDatabase.close()
            }
        }
    }
}

/// How long and how hard: `HEARTH_CHAOS=long` (what `make chaos` sets) is slower and adds the
/// Postgres faults, which would stall the rest of `make test` if run there.
/// `HEARTH_CHAOS=postgres` runs the Postgres faults alone, to look into them.
struct ChaosPlan {
    var pause: Duration
    var brokerOutage: Duration
    var processFaults = true
    var postgresFaults: Bool

    static func fromEnvironment() -> ChaosPlan {
        switch ProcessInfo.processInfo.environment["HEARTH_CHAOS"] {
        case "long": ChaosPlan(pause: .seconds(15), brokerOutage: .seconds(30), postgresFaults: true)
        case "postgres": ChaosPlan(pause: .seconds(5), brokerOutage: .zero, processFaults: false, postgresFaults: true)
        default: ChaosPlan(pause: .seconds(2), brokerOutage: .seconds(8), postgresFaults: false)
        }
    }
}

/// The instances of one executable in a chaos run, and the base URLs traffic may use now.
final class ServiceFleet: Sendable {
    private let executable: String
    private let environment: [String: String]
    /// `ServiceProcess` is not `Sendable`; the fleet only touches them from the test's own task,
    /// and traffic reads nothing but the URLs.
    private nonisolated(unsafe) var processes: [ServiceProcess?] = []
    private let urls = Mutex<[URL]>([])

    init(_ executable: String, environment: [String: String]) {
        self.executable = executable
        self.environment = environment
    }

    var live: [URL] { urls.withLock { $0 } }

    func start(count: Int) async throws {
        launch(count: count)
        try await waitUntilReady()
    }

    /// Starts the processes without waiting: fleets started side by side spend their group-join
    /// waits together.
    func launch(count: Int) {
        for _ in 0..<count {
            do { processes.append(try ServiceProcess(executable, environment: environment)) } catch { Issue.record(error) }
        }
    }

    func waitUntilReady() async throws {
        for process in processes.compactMap({ $0 }) { try await process.waitUntilReady(timeout: .seconds(180)) }
        publishURLs()
    }

    func add() async throws {
        let process = try ServiceProcess(executable, environment: environment)
        processes.append(process)
        try await process.waitUntilReady(timeout: .seconds(120))
        publishURLs()
    }

    func kill(at index: Int) async {
        await processes[index]?.kill()
        processes[index] = nil
        publishURLs()
    }

    func stop(at index: Int) async {
        await processes[index]?.stop()
        processes[index] = nil
        publishURLs()
    }

    func restart(at index: Int) async throws {
        try relaunch(at: index)
        try await waitUntilReady()
    }

    func relaunch(at index: Int) throws {
        processes[index] = try ServiceProcess(executable, environment: environment)
    }

    /// Whether every live instance answers `/readyz` 200 within `timeout`. A process that has just
    /// ridden out the faults may report a projection rebalancing or Kafka slow for a moment (the
    /// replays at the end read whole topics from the same broker); it must settle, not stay down.
    func allReady(within timeout: Duration = .seconds(60)) async -> Bool {
        await KafkaTestEnvironment.eventually(timeout: timeout) { await self.notReady().isEmpty } && !live.isEmpty
    }

    /// The `/readyz` answers of the instances that are not ready, for the failure message.
    func notReady() async -> [String] {
        var answers: [String] = []
        for url in live {
            let reply = try? await HTTPTestClient.get(url.appendingPathComponent("readyz"))
            if reply?.0 != 200 { answers.append("\(url): \(reply.map { "\($0.0) \(String(decoding: $0.1, as: UTF8.self))" } ?? "no answer")") }
        }
        return answers
    }

    func logTails() -> String {
        processes.compactMap { $0 }.map { $0.logTail(lines: 30) }.joined(separator: "\n---\n")
    }

    func stopAll() {
        for process in processes.compactMap({ $0 }) where process.isRunning { Glibc.kill(process.process.processIdentifier, SIGKILL) }
    }

    private func publishURLs() {
        let running = processes.compactMap { $0 }.filter(\.isRunning).map(\.baseURL)
        urls.withLock { $0 = running }
    }
}

/// Clients that each sign in and then upsert their household again and again, every request
/// with its own `Idempotency-Key` and correlation id, retried (same key, next gateway) until it
/// is answered: what a well-behaved app does through an outage.
final class ChaosTraffic: Sendable {
    private let fleet: ServiceFleet
    private let clients: Int
    private let stopped = Atomic<Bool>(false)
    private let state = Mutex(State())

    private struct State {
        var accepted: [String] = []
        var reminders: [(token: String, title: String)] = []
        var runs: [String] = []
        var messages: [String] = []
        var documents: [String] = []
        var retries = 0
        var refusals: [Int: Int] = [:]
        var unexpected: [String] = []
    }

    init(fleet: ServiceFleet, clients: Int) {
        self.fleet = fleet
        self.clients = clients
    }

    /// Correlation ids of the requests a gateway answered 200.
    var accepted: [String] { state.withLock { $0.accepted } }
    /// Reminders a gateway accepted (202): the device they go to and their unique title.
    var acceptedReminders: [(token: String, title: String)] { state.withLock { $0.reminders } }
    /// Correlation ids of the chat messages a gateway accepted.
    var acceptedMessages: [String] { state.withLock { $0.messages } }
    /// Ids of the documents a gateway accepted (the admin client's).
    var acceptedDocuments: [String] { state.withLock { $0.documents } }
    /// The dev user whose name is `chaos-admin`: the run makes it an administrator, to ingest documents.
    static let adminName = "chaos-admin"
    static var adminUserId: UUID { UserIdentity.userId(provider: .dev, subject: UserIdentity.devSubject(forName: adminName)) }

    /// Correlation ids of the assist runs a gateway accepted (answered 200 and streamed).
    var acceptedRuns: [String] { state.withLock { $0.runs } }
    var retries: Int { state.withLock { $0.retries } }
    /// Answers that asked for a retry (503, 409) by status.
    var refusals: [Int: Int] { state.withLock { $0.refusals } }
    var unexpected: [String] { state.withLock { $0.unexpected } }

    func stop() { stopped.store(true, ordering: .releasing) }

    func drive() async {
        await withTaskGroup(of: Void.self) { group in
            for client in 0..<clients {
                group.addTask { await self.client(client) }
            }
            group.addTask { await self.librarian() }
        }
    }

    private func client(_ number: Int) async {
        var turn = number
        func nextGateway() -> URL? {
            let live = fleet.live
            guard !live.isEmpty else { return nil }
            turn += 1
            return live[turn % live.count]
        }
        var user: GatewayUser?
        while user == nil, !stopped.load(ordering: .acquiring) {
            if let url = nextGateway() {
                user = try? await GatewayUser.signIn(baseURL: url, name: "chaos-\(number)-\(UUID().uuidString.prefix(6))")
            }
            if user == nil { try? await Task.sleep(for: .milliseconds(200)) }
        }
        guard let user else { return }
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let device = Data(#"{"platform":"ios","token":"\#(token)","environment":"sandbox"}"#.utf8)
        var index = 0
        var chat: String?
        while !stopped.load(ordering: .acquiring) {
            index += 1
            let correlation = "chaos-\(UUID().uuidString.lowercased())"
            var headers = user.headers(["Idempotency-Key": UUID().uuidString, "X-Correlation-Id": correlation])
            // First the device, then the household, then a chat of the household; every fourth
            // request a reminder due in a few seconds, every fifth a chat message, every tenth a run.
            let reminderTitle = index > 1 && index % 4 == 0 ? "chaos-reminder-\(UUID().uuidString.lowercased())" : nil
            let isRun = index % 10 == 7
            let isMessage = chat != nil && index % 5 == 3 && !isRun && index != 3
            let path: String
            let body: Data
            if index == 3 {
                (path, body) = ("v1/chats", Data(#"{"title":"chaos \#(number)"}"#.utf8))
            } else if isMessage, let chat {
                (path, body) = ("v1/chats/\(chat)/messages", Data(#"{"text":"we are out of milk \#(index)","client_id":"\#(UUID().uuidString.lowercased())"}"#.utf8))
            } else if isRun {
                headers["Accept"] = "application/x-ndjson"
                (path, body) = ("v1/assist/stream", Data(#"{"goal":"share the chores fairly this week","mode":"chores"}"#.utf8))
            } else if index == 1 {
                (path, body) = ("v1/devices", device)
            } else if let reminderTitle {
                let due = Timestamp.format(Date().addingTimeInterval(3))
                (path, body) = ("v1/reminders", Data(#"{"title":"\#(reminderTitle)","at":"\#(due)"}"#.utf8))
            } else {
                (path, body) = ("v1/households/upsert", Data(#"{"name":"Chaos \#(number) \#(index)","prefs":{"adults":2}}"#.utf8))
            }
            // A request once sent is retried until answered, even after the run ends: it may
            // already have taken effect, and only its answer says so.
            let deadline = ContinuousClock.now + .seconds(180)
            while ContinuousClock.now < deadline {
                guard let url = nextGateway() else {
                    try? await Task.sleep(for: .milliseconds(200))
                    continue
                }
                let reply = try? await HTTPTestClient.send("POST", url.appendingPathComponent(path), body: body, headers: headers, idleTimeout: isRun ? 60 : 20)
                if isRun, reply == nil {
                    // A stream that broke off may have started a run: in doubt, not retried.
                    state.withLock { $0.retries += 1 }
                    break
                }
                switch reply?.status {
                case 200 where isRun:
                    state.withLock { $0.runs.append(correlation) }
                case 200 where isMessage, 201 where isMessage:
                    state.withLock { $0.messages.append(correlation) }
                case 200 where index == 3, 201 where index == 3:
                    chat = (reply?.json["chat_id"] as? String)
                case 200:
                    state.withLock { $0.accepted.append(correlation) }
                case 202:
                    if let reminderTitle { state.withLock { $0.reminders.append((token, reminderTitle)) } }
                case _ where reply.map(Self.asksForRetry) == true:
                    state.withLock { $0.refusals[reply!.status, default: 0] += 1 }
                case nil:
                    state.withLock { $0.retries += 1 }
                default:
                    let text = String(decoding: reply!.body, as: UTF8.self)
                    state.withLock { $0.unexpected.append("\(reply!.status): \(text.prefix(300))") }
                }
                if let reply, !Self.asksForRetry(reply) { break }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    /// 503 (Kafka or Postgres away), or 409 because the same key's first attempt is still running.
    static func asksForRetry(_ reply: HTTPTestClient.Reply) -> Bool {
        reply.status == 503 || (reply.status == 409 && reply.errorCode == "request_in_progress")
    }
}

extension ChaosTraffic {
    /// An administrator adding a document every second, each with its own id and key, retried
    /// like the others.
    fileprivate func librarian() async {
        var admin: GatewayUser?
        while admin == nil, !stopped.load(ordering: .acquiring) {
            if let url = fleet.live.first { admin = try? await GatewayUser.signIn(baseURL: url, name: Self.adminName) }
            if admin == nil { try? await Task.sleep(for: .milliseconds(200)) }
        }
        guard let admin else { return }
        var index = 0
        while !stopped.load(ordering: .acquiring) {
            index += 1
            let id = "chaos-doc-\(UUID().uuidString.prefix(8).lowercased())"
            let body = Data(#"{"id":"\#(id)","kind":"tips","title":"Calm mornings \#(index)","body":"Lay out clothes the night before and keep breakfast simple, tip \#(index)."}"#.utf8)
            let headers = admin.headers(["Idempotency-Key": UUID().uuidString])
            let deadline = ContinuousClock.now + .seconds(180)
            while ContinuousClock.now < deadline {
                let live = fleet.live
                guard !live.isEmpty else {
                    try? await Task.sleep(for: .milliseconds(200))
                    continue
                }
                let url = live[index % live.count]
                let reply = try? await HTTPTestClient.send("POST", url.appendingPathComponent("v1/admin/documents"), body: body, headers: headers, idleTimeout: 20)
                if let status = reply?.status, (200..<300).contains(status) {
                    state.withLock { $0.documents.append(id) }
                    break
                }
                if let reply, !Self.asksForRetry(reply) {
                    let status = reply.status
                    let text = String(decoding: reply.body, as: UTF8.self)
                    state.withLock { $0.unexpected.append("document \(status): \(text.prefix(300))") }
                    break
                }
                try? await Task.sleep(for: .milliseconds(200))
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }
}

/// What the checks read from the chaos run's own database and broker.
enum ChaosCheck {
    struct Archived {
        var events = 0
        var distinctIds = 0
    }

    /// `household.upserted` events in the archive per correlation id.
    static func archive(database: SeparateDatabase) async throws -> [String: Archived] {
        var result: [String: Archived] = [:]
        for try await (correlation, events, distinct) in try await database.client.query(
            """
            SELECT correlation_id, count(*), count(DISTINCT event_id) FROM event_log
            WHERE type = 'household.upserted' AND correlation_id LIKE 'chaos-%' GROUP BY correlation_id
            """, logger: TestEnvironment.logger
        ).decode((String, Int, Int).self) {
            result[correlation] = Archived(events: events, distinctIds: distinct)
        }
        return result
    }

    /// Events of one type per correlation id (0 for those with none).
    static func events(ofType type: String, correlations: [String], database: SeparateDatabase) async throws -> [String: Int] {
        var result = Dictionary(uniqueKeysWithValues: correlations.map { ($0, 0) })
        for try await (correlation, count) in try await database.client.query(
            "SELECT correlation_id, count(*) FROM event_log WHERE type = \(type) AND correlation_id = ANY(\(correlations)) GROUP BY correlation_id",
            logger: TestEnvironment.logger
        ).decode((String, Int).self) {
            result[correlation] = count
        }
        return result
    }

    /// How many times each document was embedded (0: not yet).
    static func embedCounts(_ documents: [String], database: SeparateDatabase) async throws -> [String: Int] {
        var result = Dictionary(uniqueKeysWithValues: documents.map { ($0, 0) })
        for try await (id, count) in try await database.client.query(
            "SELECT document_id, embed_count FROM content_documents WHERE document_id = ANY(\(documents)) AND model IS NOT NULL",
            logger: TestEnvironment.logger
        ).decode((String, Int32).self) {
            result[id] = Int(count)
        }
        return result
    }

    struct RunEvents {
        var requested = 0
        var completed = 0
    }

    /// `assist.requested` and `assist.run_completed` events per correlation id.
    static func runs(_ correlations: [String], database: SeparateDatabase) async throws -> [String: RunEvents] {
        var result = Dictionary(uniqueKeysWithValues: correlations.map { ($0, RunEvents()) })
        for try await (correlation, requested, completed) in try await database.client.query(
            """
            SELECT correlation_id, count(*) FILTER (WHERE type = 'assist.requested'), count(*) FILTER (WHERE type = 'assist.run_completed')
            FROM event_log WHERE correlation_id = ANY(\(correlations)) GROUP BY correlation_id
            """, logger: TestEnvironment.logger
        ).decode((String, Int, Int).self) {
            result[correlation] = RunEvents(requested: requested, completed: completed)
        }
        return result
    }

    /// True when every projection's stored offsets equal its topics' high watermarks.
    static func projectionsAtTheEnd(database: SeparateDatabase, admin: KafkaAdmin) async throws -> Bool {
        var stored: [KafkaTopicPartition: [Int64]] = [:]
        for try await (topic, partition, next) in try await database.client.query(
            "SELECT topic, partition, next_offset FROM projection_offsets", logger: TestEnvironment.logger
        ).decode((String, Int32, Int64).self) {
            stored[KafkaTopicPartition(topic: topic, partition: partition), default: []].append(next)
        }
        guard !stored.isEmpty else { return false }
        let ends = try await admin.watermarks(Array(stored.keys))
        return stored.allSatisfy { partition, offsets in offsets.allSatisfy { $0 == ends[partition]?.high } }
    }
}

/// The suite's Postgres server (`make test` exports its data directory), for the faults that
/// need the server itself: freezing every process of it, and a restart.
struct TestPostgresServer {
    let dataDirectory: String
    let port: String

    static func fromEnvironment() -> TestPostgresServer? {
        let environment = ProcessInfo.processInfo.environment
        guard let data = environment["HEARTH_TEST_PG_DATA"], let port = environment["HEARTH_TEST_PG_PORT"] else { return nil }
        return TestPostgresServer(dataDirectory: data, port: port)
    }

    /// SIGSTOP to the postmaster and its children, SIGCONT after `duration`.
    func freeze(for duration: Duration) async throws {
        let pidLine = try String(contentsOfFile: "\(dataDirectory)/postmaster.pid", encoding: .utf8).split(separator: "\n").first
        guard let postmaster = pidLine.flatMap({ Int32($0) }) else { return }
        let children = (try? String(contentsOfFile: "/proc/\(postmaster)/task/\(postmaster)/children", encoding: .utf8)) ?? ""
        let pids = [postmaster] + children.split(separator: " ").compactMap { Int32($0) }
        for pid in pids { Glibc.kill(pid, SIGSTOP) }
        try? await Task.sleep(for: duration)  // not Thread.sleep: it would hold a cooperative thread
        for pid in pids.reversed() { Glibc.kill(pid, SIGCONT) }
    }

    /// Stops and starts the server with the project's own script. Through `system`, which waits
    /// for the shell alone: Foundation's `Process.waitUntilExit` would wait for ever on the
    /// postmaster the script leaves running (it inherits the descriptor `Process` watches).
    func restart() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../deploy/local/postgres.sh").standardized.path
        for command in ["stop", "start"] {
            let status = system("HEARTH_PG_DATA='\(dataDirectory)' HEARTH_PG_PORT='\(port)' HEARTH_PG_FAST=1 '\(script)' \(command) >/dev/null 2>&1 </dev/null")
            guard status == 0 else { throw ChaosFailure("postgres.sh \(command) exited with \(status)") }
        }
    }
}

struct ChaosFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The table a chaos run prints.
struct ChaosReport {
    var faults: [String]
    var accepted: Int
    var runs: Int
    var runsIncomplete: Int
    var messages: Int
    var messagesNotOnce: Int
    var documents: Int
    var documentsNotOnce: Int
    var reminders: Int
    var remindersPushedTwice: Int
    var remindersNotPushed: Int
    var refused: [Int: Int]
    var retries: Int
    var events: Int
    var lost: Int
    var duplicated: Int
    var recognisableDuplicates: Int
    var parked: Int
    var catchUp: Duration
    var replayIdentical: Bool

    func print() {
        let rows: [(String, String)] = [
            ("faults injected", "\(faults.count): \(faults.joined(separator: "; "))"),
            ("household upserts accepted", "\(accepted)"),
            ("assist runs accepted / not completed once", "\(runs) / \(runsIncomplete)"),
            ("chat messages accepted / not archived once", "\(messages) / \(messagesNotOnce)"),
            ("documents accepted / not embedded once", "\(documents) / \(documentsNotOnce)"),
            ("reminders accepted", "\(reminders)"),
            ("reminders pushed twice (same collapse id) / never", "\(remindersPushedTwice) / \(remindersNotPushed)"),
            ("answered 503 / 409 (retried)", "\(refused[503, default: 0]) / \(refused[409, default: 0])"),
            ("no answer (retried)", "\(retries)"),
            ("events archived", "\(events)"),
            ("lost", "\(lost)"),
            ("duplicated", "\(duplicated)"),
            ("re-sent under the same event id", "\(recognisableDuplicates)"),
            ("parked", "\(parked)"),
            ("catch-up after the last fault", catchUp.formatted(.units(allowed: [.seconds, .milliseconds], width: .narrow))),
            ("read models = rebuild from zero", replayIdentical ? "yes" : "NO"),
        ]
        Swift.print("chaos run:")
        for (name, value) in rows { Swift.print("  \(name.padding(toLength: 50, withPad: " ", startingAt: 0)) \(value)") }
    }
}
