import AsyncHTTPClient
import Foundation
import HearthAssist
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// One scripted answer of a fake model API.
enum FakeModelReply: Sendable {
    /// A plain response (errors): status, extra headers, body.
    case status(Int, headers: [String: String] = [:], body: String)
    /// A 200 `text/event-stream` written in these chunks, `pause` apart; with `stallAfter`, the
    /// server goes silent for `stall` after that many chunks.
    case stream([String], pause: Duration = .milliseconds(5), stallAfter: Int? = nil, stall: Duration = .seconds(3))
}

/// What the fake server received.
struct FakeModelRequest: Sendable {
    var path: String
    var headers: [String: String]
    var body: [String: any Sendable]
    var receivedAt: ContinuousClock.Instant
}

/// A local stand-in for the OpenAI and Anthropic APIs: each path answers from its script in order
/// (the last reply repeats) and records the requests.
actor FakeModelServer {
    private var scripts: [String: [FakeModelReply]]
    private(set) var requests: [FakeModelRequest] = []

    init(_ scripts: [String: [FakeModelReply]]) {
        self.scripts = scripts
    }

    func requests(to path: String) -> [FakeModelRequest] { requests.filter { $0.path == path } }

    private func next(for path: String, recording request: FakeModelRequest) -> FakeModelReply {
        requests.append(request)
        guard var script = scripts[path], !script.isEmpty else { return .status(404, body: "{}") }
        let reply = script.count > 1 ? script.removeFirst() : script[0]
        scripts[path] = script
        return reply
    }

    nonisolated func respond(to request: Request, path: String) async throws -> Response {
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        let bytes = try await request.body.collect(upTo: 1 << 20)
        let body = (try? JSONSerialization.jsonObject(with: Data(bytes.readableBytesView))) as? [String: Any] ?? [:]
        // JSON values are plain data; the copy into Sendable keeps the record simple to assert on.
        let sendableBody = body.mapValues { "\($0)" as any Sendable }
        let reply = await next(for: path, recording: FakeModelRequest(path: path, headers: headers, body: sendableBody, receivedAt: .now))
        switch reply {
        case .status(let code, let extra, let text):
            var fields = HTTPFields()
            fields[.contentType] = "application/json"
            for (name, value) in extra { fields[HTTPField.Name(name)!] = value }
            return Response(status: .init(code: code), headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        case .stream(let chunks, let pause, let stallAfter, let stall):
            var fields = HTTPFields()
            fields[.contentType] = "text/event-stream"
            return Response(status: .ok, headers: fields, body: ResponseBody { writer in
                for (index, chunk) in chunks.enumerated() {
                    if index == stallAfter { try await Task.sleep(for: stall) }
                    try await writer.write(ByteBuffer(string: chunk))
                    try await Task.sleep(for: pause)
                }
                try await writer.finish(nil)
            })
        }
    }

    /// Runs `body` with the server listening on 127.0.0.1 (an ephemeral port) and an HTTP client.
    func serve<T: Sendable>(_ body: @Sendable @escaping (_ baseURL: String, _ client: HTTPClient) async throws -> T) async throws -> T {
        let router = Router()
        router.post("/v1/chat/completions") { request, _ in try await self.respond(to: request, path: "/v1/chat/completions") }
        router.post("/v1/messages") { request, _ in try await self.respond(to: request, path: "/v1/messages") }
        // Quiet: a test that makes the server stall ends with the handler cancelled, which
        // Hummingbird reports at error level.
        var logger = Logger(label: "fake-model-server")
        logger.logLevel = .critical
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
        return try await app.test(.live) { client in
            let port = try #require(client.port)
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: ProviderTimeoutsForTests.clientConfiguration)
            do {
                let result = try await body("http://127.0.0.1:\(port)", http)
                try await http.shutdown()
                return result
            } catch {
                try? await http.shutdown()
                throw error
            }
        }
    }
}

enum ProviderTimeoutsForTests {
    /// Generous: the machine running the tests may be busy building.
    static let timeouts = ProviderTimeouts(connect: .seconds(5), head: .seconds(10), idle: .seconds(5))
    /// For the tests about silence: short, but well apart from the stalls they provoke.
    static let shortIdle = ProviderTimeouts(connect: .seconds(5), head: .seconds(10), idle: .seconds(1))
    static let clientConfiguration = ProviderTimeouts(connect: .seconds(2), head: .seconds(5), idle: .seconds(10)).httpClientConfiguration
    /// Short back-off, so a test that sees a one-second wait knows it came from Retry-After.
    static let retry = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(20), maxDelay: .milliseconds(100), maxRetryAfter: .seconds(5))
}

/// The wire formats, as the real APIs stream them.
enum ModelWire {
    static func openAI(_ deltas: [String], prompt: Int, completion: Int) -> [String] {
        var chunks = [#"data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"# + "\n\n"]
        for delta in deltas {
            let escaped = delta.replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
            chunks.append(#"data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":""# + escaped + #""},"finish_reason":null}]}"# + "\n\n")
        }
        chunks.append(#"data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"# + "\n\n")
        chunks.append(#"data: {"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":\#(prompt),"completion_tokens":\#(completion),"total_tokens":\#(prompt + completion)}}"# + "\n\n")
        chunks.append("data: [DONE]\n\n")
        return chunks
    }

    static func anthropic(_ deltas: [String], input: Int, output: Int) -> [String] {
        var chunks = [
            "event: message_start\n" + #"data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-3-5-haiku-latest","stop_reason":null,"usage":{"input_tokens":\#(input),"output_tokens":1}}}"# + "\n\n",
            "event: content_block_start\n" + #"data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"# + "\n\n",
            "event: ping\n" + #"data: {"type": "ping"}"# + "\n\n",
        ]
        for delta in deltas {
            let escaped = delta.replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
            chunks.append("event: content_block_delta\n" + #"data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""# + escaped + #""}}"# + "\n\n")
        }
        chunks.append("event: content_block_stop\n" + #"data: {"type":"content_block_stop","index":0}"# + "\n\n")
        chunks.append("event: message_delta\n" + #"data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":\#(output)}}"# + "\n\n")
        chunks.append("event: message_stop\n" + #"data: {"type":"message_stop"}"# + "\n\n")
        return chunks
    }

    /// OpenAI streaming one tool call (id `call_1`) after `text`: the first `tool_calls` fragment
    /// names it, the arguments follow in up to three slices, and the choice ends in `tool_calls`.
    static func openAIToolCall(name: String, arguments: String, text: String = "", prompt: Int, completion: Int) -> [String] {
        var chunks = [#"data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"# + "\n\n"]
        if !text.isEmpty {
            chunks.append(#"data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":""# + escaped(text) + #""},"finish_reason":null}]}"# + "\n\n")
        }
        chunks.append(#"data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":""# + escaped(name) + #"","arguments":""}}]},"finish_reason":null}]}"# + "\n\n")
        for fragment in fragments(of: arguments) {
            chunks.append(#"data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":""# + escaped(fragment) + #""}}]},"finish_reason":null}]}"# + "\n\n")
        }
        chunks.append(#"data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"# + "\n\n")
        chunks.append(#"data: {"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":\#(prompt),"completion_tokens":\#(completion),"total_tokens":\#(prompt + completion)}}"# + "\n\n")
        chunks.append("data: [DONE]\n\n")
        return chunks
    }

    /// Anthropic streaming one `tool_use` block (id `toolu_1`) after a text block with `text`:
    /// the block starts with empty input, which follows as an empty `input_json_delta` and then
    /// up to three slices, and the message stops for `tool_use`.
    static func anthropicToolUse(name: String, arguments: String, text: String = "", input: Int, output: Int) -> [String] {
        var chunks = [
            "event: message_start\n" + #"data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-3-5-haiku-latest","stop_reason":null,"usage":{"input_tokens":\#(input),"output_tokens":1}}}"# + "\n\n",
        ]
        var index = 0
        if !text.isEmpty {
            chunks.append("event: content_block_start\n" + #"data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"# + "\n\n")
            chunks.append("event: content_block_delta\n" + #"data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""# + escaped(text) + #""}}"# + "\n\n")
            chunks.append("event: content_block_stop\n" + #"data: {"type":"content_block_stop","index":0}"# + "\n\n")
            index = 1
        }
        chunks.append("event: content_block_start\n" + #"data: {"type":"content_block_start","index":\#(index),"content_block":{"type":"tool_use","id":"toolu_1","name":""# + escaped(name) + #"","input":{}}}"# + "\n\n")
        chunks.append("event: ping\n" + #"data: {"type": "ping"}"# + "\n\n")
        for fragment in [""] + fragments(of: arguments) {
            chunks.append("event: content_block_delta\n" + #"data: {"type":"content_block_delta","index":\#(index),"delta":{"type":"input_json_delta","partial_json":""# + escaped(fragment) + #""}}"# + "\n\n")
        }
        chunks.append("event: content_block_stop\n" + #"data: {"type":"content_block_stop","index":\#(index)}"# + "\n\n")
        chunks.append("event: message_delta\n" + #"data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":\#(output)}}"# + "\n\n")
        chunks.append("event: message_stop\n" + #"data: {"type":"message_stop"}"# + "\n\n")
        return chunks
    }

    /// `text` in up to three slices of about equal length, none empty (none at all for ""), so
    /// the providers have to join arguments that arrive in pieces.
    static func fragments(of text: String) -> [String] {
        let characters = Array(text)
        let size = max(1, (characters.count + 2) / 3)
        return stride(from: 0, to: characters.count, by: size).map { String(characters[$0..<min($0 + size, characters.count)]) }
    }

    /// `text` as the inside of a JSON string. Unlike the text helpers above it escapes
    /// backslashes too: arguments are JSON and their strings carry escapes of their own.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
    }
}
