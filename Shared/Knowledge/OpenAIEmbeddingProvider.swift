import AsyncHTTPClient
import Foundation
import NIOCore

/// OpenAI's embeddings API (`POST {base}/v1/embeddings`). Asks for `dimension` dimensions (the
/// text-embedding-3 models shorten their vectors on request), so the vectors fit the index, and
/// normalises them to unit length as MiniLM's are.
public struct OpenAIEmbeddingProvider: EmbeddingProvider {
    public static let defaultBaseURL = "https://api.openai.com"
    public static let defaultModel = "text-embedding-3-small"

    public let model: EmbeddingModel
    let modelName: String
    let apiKey: String
    let baseURL: String
    let client: HTTPClient
    let timeout: TimeAmount

    public init(
        apiKey: String, modelName: String = defaultModel, baseURL: String = defaultBaseURL, dimension: Int = EmbeddingIndex.dimension,
        client: HTTPClient = .shared, timeout: TimeAmount = .seconds(30)
    ) {
        self.model = EmbeddingModel(name: "openai/\(modelName)", dimension: dimension)
        self.modelName = modelName
        self.apiKey = apiKey
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.client = client
        self.timeout = timeout
    }

    struct RequestBody: Encodable {
        let model: String
        let input: [String]
        let dimensions: Int
        let encoding_format = "float"
    }

    struct ResponseBody: Decodable {
        struct Item: Decodable {
            let index: Int
            let embedding: [Float]
        }
        let data: [Item]
    }

    public func embed(_ texts: [String]) async throws -> [[Float]] {
        guard !texts.isEmpty else { return [] }
        var request = HTTPClientRequest(url: "\(baseURL)/v1/embeddings")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(apiKey)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(RequestBody(model: modelName, input: texts, dimensions: model.dimension))))
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: timeout)
        } catch {
            throw EmbeddingProviderError("openai embeddings: \(error)", retriable: true)
        }
        let body = try await response.body.collect(upTo: 64 << 20)
        guard response.status == .ok else {
            let code = response.status.code
            throw EmbeddingProviderError(
                "openai embeddings answered \(code): \(String(decoding: body.readableBytesView, as: UTF8.self).prefix(200))", retriable: code == 429 || code >= 500)
        }
        let decoded: ResponseBody
        do {
            decoded = try JSONDecoder().decode(ResponseBody.self, from: Data(body.readableBytesView))
        } catch {
            throw EmbeddingProviderError("openai embeddings: unreadable answer: \(error)", retriable: false)
        }
        let ordered = decoded.data.sorted { $0.index < $1.index }
        guard ordered.count == texts.count, ordered.map(\.index) == Array(0..<texts.count) else {
            throw EmbeddingProviderError("openai embeddings: \(ordered.count) vectors for \(texts.count) texts", retriable: false)
        }
        return try ordered.map { item in
            guard item.embedding.count == model.dimension else {
                throw EmbeddingProviderError("openai embeddings: \(item.embedding.count) dimensions, expected \(model.dimension)", retriable: false)
            }
            let norm = item.embedding.reduce(0) { $0 + $1 * $1 }.squareRoot()
            return norm > 0 ? item.embedding.map { $0 / norm } : item.embedding
        }
    }
}
