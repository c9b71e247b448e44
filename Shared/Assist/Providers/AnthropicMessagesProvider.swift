import AsyncHTTPClient
import Foundation
import HearthEvents
import Logging
import NIOCore

/// Anthropic's Messages API, streamed: `POST {base}/v1/messages` with `stream: true`, read as
/// `message_start` (input tokens), `content_block_delta` (text), `message_delta` (output tokens,
/// cumulative) and `message_stop`; `ping` is a keep-alive and `error` (e.g. overloaded) fails
/// the call. With tools, a call is a `tool_use` content block whose input arrives as
/// `input_json_delta` slices that the decoder assembles.
public struct AnthropicMessagesProvider: ModelProvider {
    public let name = "anthropic"
    public let model: String
    let baseURL: String
    let apiKey: String
    let transport: StreamingHTTPTransport

    public static let defaultBaseURL = "https://api.anthropic.com"
    public static let apiVersion = "2023-06-01"

    public init(
        model: String, apiKey: String, baseURL: String = AnthropicMessagesProvider.defaultBaseURL, httpClient: HTTPClient,
        retry: RetryPolicy = .default, timeouts: ProviderTimeouts = .default, logger: Logger
    ) {
        self.model = model
        self.apiKey = apiKey
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.transport = StreamingHTTPTransport(
            provider: "anthropic", httpClient: httpClient, retry: retry, timeouts: timeouts, secrets: [apiKey], logger: logger)
    }

    public func complete(_ request: ModelRequest, onToken: @escaping @Sendable (String) async -> Void) async throws -> ProviderResult {
        var http = HTTPClientRequest(url: "\(baseURL)/v1/messages")
        http.method = .POST
        http.headers.add(name: "x-api-key", value: apiKey)
        http.headers.add(name: "anthropic-version", value: Self.apiVersion)
        http.headers.add(name: "Content-Type", value: "application/json")
        http.headers.add(name: "Accept", value: "text/event-stream")
        http.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(Body(request: request, model: model))))
        return try await transport.stream(http, decoder: Decoder(), modelRequest: request, onToken: onToken)
    }

    struct Body: Encodable {
        struct Message: Encodable {
            var role: String
            var content: String
        }

        var model: String
        var system: String?
        var messages: [Message]
        var maxTokens: Int
        var temperature: Double
        var stream = true
        /// `nil` without tools, so the key is left out and such a body stays as it was.
        var tools: [Tool]?

        init(request: ModelRequest, model: String) {
            self.model = model
            system = request.system.isEmpty ? nil : request.system
            messages = [Message(role: "user", content: request.prompt)]
            // The API rejects max_tokens < 1.
            maxTokens = max(1, request.maxOutputTokens)
            temperature = request.temperature
            tools = request.tools.isEmpty ? nil : request.tools.map(Tool.init)
        }

        enum CodingKeys: String, CodingKey {
            case model, system, messages, temperature, stream, tools
            case maxTokens = "max_tokens"
        }

        /// `{"name", "description", "input_schema"}`.
        struct Tool: Encodable {
            var name: String
            var description: String
            var inputSchema: JSONValue

            init(_ tool: ModelTool) {
                name = tool.name
                description = tool.description
                inputSchema = tool.parameters
            }

            enum CodingKeys: String, CodingKey {
                case name, description
                case inputSchema = "input_schema"
            }
        }
    }

    struct Decoder: StreamDecoder {
        private struct Event: Decodable {
            struct Usage: Decodable {
                var inputTokens: Int?
                var outputTokens: Int?
                enum CodingKeys: String, CodingKey {
                    case inputTokens = "input_tokens"
                    case outputTokens = "output_tokens"
                }
            }
            struct Message: Decodable { var usage: Usage? }
            /// The input of a `tool_use` block is not read here: it starts empty and arrives as
            /// `input_json_delta` slices.
            struct ContentBlock: Decodable {
                var type: String?
                var id: String?
                var name: String?
            }
            struct Delta: Decodable {
                var type: String?
                var text: String?
                var partialJSON: String?
                enum CodingKeys: String, CodingKey {
                    case type, text
                    case partialJSON = "partial_json"
                }
            }
            struct APIError: Decodable {
                var type: String?
                var message: String?
            }
            var type: String
            var index: Int?
            var message: Message?
            var contentBlock: ContentBlock?
            var delta: Delta?
            var usage: Usage?
            var error: APIError?
            enum CodingKeys: String, CodingKey {
                case type, index, message, delta, usage, error
                case contentBlock = "content_block"
            }
        }

        private(set) var isFinished = false
        private(set) var reportedInputTokens: Int?
        private(set) var reportedOutputTokens: Int?
        private var assembly = ToolCallAssembly()

        var toolCalls: [ModelToolCall] { assembly.calls }

        mutating func consume(_ event: ServerSentEvent) throws -> String? {
            guard !event.data.isEmpty else { return nil }
            let decoded: Event
            do { decoded = try JSONDecoder().decode(Event.self, from: Data(event.data.utf8)) } catch {
                throw ModelProviderError(provider: "anthropic", kind: .stream, message: "unreadable event: \(event.data.prefix(120))")
            }
            switch decoded.type {
            case "message_start":
                reportedInputTokens = decoded.message?.usage?.inputTokens ?? reportedInputTokens
                reportedOutputTokens = decoded.message?.usage?.outputTokens ?? reportedOutputTokens
            case "content_block_start":
                if decoded.contentBlock?.type == "tool_use", let index = decoded.index {
                    assembly.begin(at: index, id: decoded.contentBlock?.id, name: decoded.contentBlock?.name)
                }
            case "content_block_delta":
                if decoded.delta?.type == nil || decoded.delta?.type == "text_delta" { return decoded.delta?.text }
                // Only into a tool_use block that started: there is no call to give a stray slice to.
                if decoded.delta?.type == "input_json_delta", let index = decoded.index, assembly.contains(index) {
                    assembly.append(decoded.delta?.partialJSON ?? "", at: index)
                }
            case "message_delta":
                // Cumulative for the message, so it replaces rather than adds.
                reportedOutputTokens = decoded.usage?.outputTokens ?? reportedOutputTokens
                if let input = decoded.usage?.inputTokens { reportedInputTokens = input }
            case "message_stop":
                isFinished = true
            case "error":
                let kind = decoded.error?.type ?? "error"
                throw ModelProviderError(provider: "anthropic", kind: .stream, message: "\(kind): \(decoded.error?.message ?? "")")
            default:
                break  // ping, content_block_stop and future event types
            }
            return nil
        }
    }
}
