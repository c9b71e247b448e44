import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// One span as an OTLP/HTTP JSON export carries it, with the service that sent it.
struct ExportedSpan: Sendable, CustomStringConvertible {
    var service: String
    var name: String
    var traceId: String
    var spanId: String
    var parentSpanId: String
    var attributes: [String: String]

    var description: String { "\(service): \(name) [\(spanId) ← \(parentSpanId)]" }
}

/// A stand-in OTLP collector: takes `POST /v1/traces` in OTLP/HTTP JSON and keeps the spans.
actor FakeOTLPReceiver {
    private(set) var spans: [ExportedSpan] = []

    func record(_ new: [ExportedSpan]) { spans += new }

    nonisolated func receive(_ request: Request) async throws -> Response {
        let bytes = try await request.body.collect(upTo: 16 << 20)
        let document = try JSONSerialization.jsonObject(with: Data(bytes.readableBytesView)) as? [String: Any] ?? [:]
        await record(Self.spans(in: document))
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        return Response(status: .ok, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: "{}")))
    }

    static func spans(in document: [String: Any]) -> [ExportedSpan] {
        var found: [ExportedSpan] = []
        for resourceSpans in document["resourceSpans"] as? [[String: Any]] ?? [] {
            let resource = attributes(of: (resourceSpans["resource"] as? [String: Any])?["attributes"])
            for scopeSpans in resourceSpans["scopeSpans"] as? [[String: Any]] ?? [] {
                for span in scopeSpans["spans"] as? [[String: Any]] ?? [] {
                    found.append(ExportedSpan(
                        service: resource["service.name"] ?? "?", name: span["name"] as? String ?? "",
                        traceId: span["traceId"] as? String ?? "", spanId: span["spanId"] as? String ?? "",
                        parentSpanId: span["parentSpanId"] as? String ?? "", attributes: attributes(of: span["attributes"])))
                }
            }
        }
        return found
    }

    /// A trace or span id as hex: swift-otel's JSON carries ids as base64 (protobuf's JSON form
    /// of bytes), the OTLP specification as hex; either is read.
    static func hex(_ id: String) -> String {
        if id.count % 2 == 0, id.allSatisfy(\.isHexDigit) { return id.lowercased() }
        guard let bytes = Data(base64Encoded: id) else { return id }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// OTLP's `[{"key", "value": {"stringValue" | "intValue" | …}}]` as text.
    static func attributes(of list: Any?) -> [String: String] {
        var attributes: [String: String] = [:]
        for entry in list as? [[String: Any]] ?? [] {
            guard let key = entry["key"] as? String, let value = entry["value"] as? [String: Any], let first = value.first else { continue }
            attributes[key] = "\(first.value)"
        }
        return attributes
    }

    /// Runs `body` with the receiver listening on 127.0.0.1 (an ephemeral port).
    func serve<T: Sendable>(_ body: @Sendable @escaping (_ baseURL: String) async throws -> T) async throws -> T {
        let router = Router()
        router.post("/v1/traces") { request, _ in try await self.receive(request) }
        var logger = Logger(label: "fake-otlp-receiver")
        logger.logLevel = .critical
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
        return try await app.test(.live) { client in
            try await body("http://127.0.0.1:\(try #require(client.port))")
        }
    }
}

extension BackboneSuite {
    /// Operators see one trace per request: an assist run's spans, exported over OTLP by the
    /// gateway and the orchestrator, share one trace id and form one tree from the HTTP request
    /// through the Kafka hops to the run's model call, tool and projections.
    @Suite struct DistributedTracing {
        @Test func oneAssistRunIsOneTraceAcrossGatewayOrchestratorAndProjections() async throws {
            let receiver = FakeOTLPReceiver()
            try await receiver.serve { endpoint in
                let tracing = ["HEARTH_OTLP_ENDPOINT": endpoint, "HEARTH_OTLP_PROTOCOL": "http/json"]
                try await AssistStack.with(gateway: tracing, orchestrator: tracing) { gateway, _ in
                    let user = try await AssistFlow.family(gateway)
                    let (events, _) = try await AssistStack.run(
                        gateway, user: user, ["goal": "Quick dinners", "mode": "meals", "days": 3, "start_date": "2026-05-04"], wire: .ndjson)
                    let runId = try #require(events.first?.runId)
                    _ = try await AssistStack.finishedRun(gateway, user: user, runId: runId)

                    // Spans leave in batches (each service's exporter sends every second).
                    var trace: [ExportedSpan] = []
                    var request: ExportedSpan?
                    let wanted = ["assist run", "model local", "tool fetch_recipes", "publish assist.events", "project assist_runs"]
                    let deadline = ContinuousClock.now + .seconds(20)
                    while ContinuousClock.now < deadline {
                        let spans = await receiver.spans
                        request = spans.first { $0.service == "hearth-gateway" && $0.name == "HTTP POST /v1/assist/stream" }
                        if let request {
                            trace = spans.filter { $0.traceId == request.traceId }
                            let names = Set(trace.map(\.name))
                            if wanted.allSatisfy(names.contains) && names.contains("deliver assist.events")
                                && trace.contains(where: { $0.service == "hearth-gateway" && $0.name.hasPrefix("project ") }) {
                                break
                            }
                        }
                        try await Task.sleep(for: .milliseconds(250))
                    }
                    let received = await receiver.spans
                    let root = try #require(request, "no span of the stream request among \(received.count): \(received.prefix(20))")

                    // The request's span is the root; every other span of the trace hangs from a span of it.
                    #expect(root.parentSpanId.isEmpty, "\(root)")
                    let ids = Set(trace.map(\.spanId))
                    let orphans = trace.filter { $0.spanId != root.spanId && !ids.contains($0.parentSpanId) }
                    #expect(orphans.isEmpty, "spans whose parent is not in the trace: \(orphans)")

                    // Gateway → Kafka → orchestrator: the run's span is the child of the gateway's publish.
                    let publish = try #require(trace.first { $0.service == "hearth-gateway" && $0.name == "publish assist.requests" }, "\(trace)")
                    #expect(publish.parentSpanId == root.spanId)
                    let run = try #require(trace.first { $0.name == "assist run" }, "\(trace)")
                    #expect(run.service == "hearth-assist-orchestrator")
                    #expect(run.parentSpanId == publish.spanId)
                    for name in ["model local", "tool fetch_recipes", "publish assist.events"] {
                        let step = try #require(trace.first { $0.name == name }, "no \(name) in \(trace)")
                        #expect(step.service == "hearth-assist-orchestrator" && step.parentSpanId == run.spanId, "\(step)")
                    }
                    // Every event of the run is published under the run, the synthesis text flushed
                    // after its model call too (not under the model's span, which had ended).
                    let runPublishes = trace.filter { $0.name == "publish assist.events" }
                    #expect(runPublishes.count >= 5 && runPublishes.allSatisfy { $0.parentSpanId == run.spanId }, "\(runPublishes)")
                    // Orchestrator → Kafka → projections in both services.
                    let runEventPublishes = Set(trace.filter { $0.name == "publish assist.events" }.map(\.spanId))
                    let projected = trace.filter { $0.name.hasPrefix("project ") && runEventPublishes.contains($0.parentSpanId) }
                    #expect(projected.contains { $0.service == "hearth-assist-orchestrator" && $0.name == "project assist_runs" }, "\(projected)")
                    // The gateway's archive keeps every event; a projection that reads none of these
                    // types (assistant turns, on the same topics) makes no span for them.
                    #expect(projected.contains { $0.service == "hearth-gateway" && $0.name == "project event_log" }, "\(projected)")
                    #expect(!trace.contains { $0.name == "project assistant_turns" }, "\(trace.map(\.name))")
                    // And the run's events reach the stream waiting for them in the gateway.
                    let delivered = trace.filter { $0.service == "hearth-gateway" && $0.name == "deliver assist.events" }
                    #expect(!delivered.isEmpty && delivered.allSatisfy { runEventPublishes.contains($0.parentSpanId) }, "\(delivered)")

                    // What the request span records identifies the call, never what a user typed.
                    #expect(root.attributes["http.route"] == "/v1/assist/stream")
                    #expect(root.attributes["http.response.status_code"] == "200")
                    #expect(root.attributes["url.path"] == nil && root.attributes["url.query"] == nil)
                    // Ops routes make no trace.
                    #expect(!received.contains { $0.name.contains("/readyz") || $0.name.contains("/metrics") }, "\(received.filter { $0.name.contains("/readyz") })")

                    // A caller's own traceparent is not trusted: the gateway starts its own trace.
                    let forgedTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
                    let reply = try await HTTPTestClient.send(
                        "GET", gateway.baseURL.appendingPathComponent("v1/assist/runs/\(runId)"),
                        headers: user.headers(["traceparent": "00-\(forgedTrace)-00f067aa0ba902b7-01", "tracestate": "vendor=forged"]))
                    #expect(reply.status == 200)
                    var read: ExportedSpan?
                    let readDeadline = ContinuousClock.now + .seconds(10)
                    while read == nil && ContinuousClock.now < readDeadline {
                        read = await receiver.spans.first { $0.service == "hearth-gateway" && $0.attributes["http.route"]?.hasPrefix("/v1/assist/runs/") == true && $0.attributes["http.route"]?.hasSuffix("/events") == false }
                        if read == nil { try await Task.sleep(for: .milliseconds(250)) }
                    }
                    let readSpan = try #require(read, "no span of the run read")
                    #expect(readSpan.parentSpanId.isEmpty)
                    #expect(FakeOTLPReceiver.hex(readSpan.traceId) != forgedTrace && !readSpan.traceId.isEmpty, "\(readSpan)")
                }
            }
        }
    }
}
