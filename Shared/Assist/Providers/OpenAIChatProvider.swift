import AsyncHTTPClient
import Foundation
import HearthEvents
import Logging
import NIOCore

/// OpenAI's Chat Completions API (and servers that speak it), streamed:
/// `POST {base}/v1/chat/completions` with `stream: true` and `stream_options.include_usage`, read
/// as `data: {…choices[0].delta.content…}` events until `data: [DONE]`; the usage arrives in a
/// last chunk with empty `choices`.
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

        init(request: ModelRequest, model: String) {
            self.model = model
            messages = request.system.isEmpty ? [] : [Message(role: "system", content: request.system)]
            messages.append(Message(role: "user", content: request.prompt))
            maxCompletionTokens = request.maxOutputTokens
            temperature = request.temperature
            responseFormat = request.responseSchema.map(ResponseFormat.init)
        }

        enum CodingKeys: String, CodingKey {
            case model, messages, temperature, stream
            case maxCompletionTokens = "max_completion_tokens"
            case streamOptions = "stream_options"
            case responseFormat = "response_format"
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
                struct Delta: Decodable { var content: String? }
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
            return chunk.choices?.first?.delta?.content
        }
    }
}
