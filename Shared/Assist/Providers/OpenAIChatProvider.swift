import AsyncHTTPClient
import Foundation
import HearthEvents
import Logging
import NIOCore

/// OpenAI's Chat Completions API (and servers that speak it), streamed:
/// `POST {base}/v1/chat/completions` with `stream: true` and `stream_options.include_usage`, read
/// as `data: {…choices[0].delta.content…}` events until `data: [DONE]`; the usage arrives in a
/// last chunk with empty `choices`. With tools, the model's calls arrive as
/// `choices[0].delta.tool_calls[]` fragments that the decoder assembles.
public struct OpenAIChatProvider: ModelProvider {
    public let name = "openai"
    public let model: String
    let baseURL: String
    let apiKey: String
    let transport: StreamingHTTPTransport

    public static let defaultBaseURL = "https://api.openai.com"

    public init(
        model: String, apiKey: String, baseURL: String = OpenAIChatProvider.defaultBaseURL, httpClient: HTTPClient,
        retry: RetryPolicy = .default, timeouts: ProviderTimeouts = .default, logger: Logger
    ) {
        self.model = model
        self.apiKey = apiKey
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.transport = StreamingHTTPTransport(
            provider: "openai", httpClient: httpClient, retry: retry, timeouts: timeouts, secrets: [apiKey], logger: logger)
    }

    public func complete(_ request: ModelRequest, onToken: @escaping @Sendable (String) async -> Void) async throws -> ProviderResult {
        var http = HTTPClientRequest(url: "\(baseURL)/v1/chat/completions")
        http.method = .POST
        http.headers.add(name: "Authorization", value: "Bearer \(apiKey)")
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
        struct StreamOptions: Encodable {
            var includeUsage = true
            enum CodingKeys: String, CodingKey { case includeUsage = "include_usage" }
        }

        var model: String
        var messages: [Message]
        var maxCompletionTokens: Int
        var temperature: Double
        var stream = true
        var streamOptions = StreamOptions()
        var responseFormat: ResponseFormat?
        /// Both `nil` without tools, so the keys are left out and such a body stays as it was.
        var tools: [Tool]?
        var toolChoice: String?

        init(request: ModelRequest, model: String) {
            self.model = model
            messages = request.system.isEmpty ? [] : [Message(role: "system", content: request.system)]
            messages.append(Message(role: "user", content: request.prompt))
            maxCompletionTokens = request.maxOutputTokens
            temperature = request.temperature
            responseFormat = request.responseSchema.map(ResponseFormat.init)
            if !request.tools.isEmpty {
                tools = request.tools.map(Tool.init)
                // The default when tools are present; said outright so the body shows the intent.
                toolChoice = "auto"
            }
        }

        enum CodingKeys: String, CodingKey {
            case model, messages, temperature, stream
            case maxCompletionTokens = "max_completion_tokens"
            case streamOptions = "stream_options"
            case responseFormat = "response_format"
            case tools
            case toolChoice = "tool_choice"
        }

        /// `{"type": "function", "function": {"name", "description", "parameters"}}`.
        struct Tool: Encodable {
            struct Function: Encodable {
                var name: String
                var description: String
                var parameters: JSONValue
            }
            var type = "function"
            var function: Function

            init(_ tool: ModelTool) {
                function = Function(name: tool.name, description: tool.description, parameters: tool.parameters)
            }
        }

        /// `{"type": "json_schema", "json_schema": {"name", "strict": true, "schema"}}`.
        struct ResponseFormat: Encodable {
            struct Schema: Encodable {
                var name: String
                var strict = true
                var schema: JSONValue
            }
            var type = "json_schema"
            var jsonSchema: Schema

            init(_ schema: ModelResponseSchema) {
                jsonSchema = Schema(name: schema.name, schema: schema.schema)
            }

            enum CodingKeys: String, CodingKey {
                case type
                case jsonSchema = "json_schema"
            }
        }
    }

    struct Decoder: StreamDecoder {
        private struct Chunk: Decodable {
            struct Choice: Decodable {
                struct Delta: Decodable {
                    var content: String?
                    var toolCalls: [ToolCall]?
                    enum CodingKeys: String, CodingKey {
                        case content
                        case toolCalls = "tool_calls"
                    }
                }
                /// One fragment of a call: the first of an index carries `id` and `function.name`,
                /// any may carry a slice of `function.arguments`.
                struct ToolCall: Decodable {
                    struct Function: Decodable {
                        var name: String?
                        var arguments: String?
                    }
                    var index: Int?
                    var id: String?
                    var function: Function?
                }
                var delta: Delta?
            }
            struct Usage: Decodable {
                var promptTokens: Int?
                var completionTokens: Int?
                enum CodingKeys: String, CodingKey {
                    case promptTokens = "prompt_tokens"
                    case completionTokens = "completion_tokens"
                }
            }
            struct APIError: Decodable { var message: String? }
            var choices: [Choice]?
            var usage: Usage?
            var error: APIError?
        }

        private(set) var isFinished = false
        private(set) var reportedInputTokens: Int?
        private(set) var reportedOutputTokens: Int?
        private var assembly = ToolCallAssembly()

        var toolCalls: [ModelToolCall] { assembly.calls }

        mutating func consume(_ event: ServerSentEvent) throws -> String? {
            let data = event.data.trimmingCharacters(in: .whitespaces)
            if data == "[DONE]" {
                isFinished = true
                return nil
            }
            guard !data.isEmpty else { return nil }
            let chunk: Chunk
            do { chunk = try JSONDecoder().decode(Chunk.self, from: Data(data.utf8)) } catch {
                throw ModelProviderError(provider: "openai", kind: .stream, message: "unreadable chunk: \(data.prefix(120))")
            }
            if let error = chunk.error {
                throw ModelProviderError(provider: "openai", kind: .stream, message: error.message ?? "error event")
            }
            if let usage = chunk.usage {
                reportedInputTokens = usage.promptTokens ?? reportedInputTokens
                reportedOutputTokens = usage.completionTokens ?? reportedOutputTokens
            }
            let delta = chunk.choices?.first?.delta
            for fragment in delta?.toolCalls ?? [] { assemble(fragment) }
            return delta?.content
        }

        private mutating func assemble(_ fragment: Chunk.Choice.ToolCall) {
            let index: Int
            if let given = fragment.index {
                index = given
            } else if let last = assembly.lastIndex {
                // Some OpenAI-compatible servers leave the index out: a new id starts the next
                // call, a fragment without one continues the last.
                let startsNew = fragment.id.map { !$0.isEmpty && $0 != assembly.id(at: last) } ?? false
                index = startsNew ? last + 1 : last
            } else {
                index = 0
            }
            assembly.begin(at: index, id: fragment.id, name: fragment.function?.name)
            assembly.append(fragment.function?.arguments ?? "", at: index)
        }
    }
}
