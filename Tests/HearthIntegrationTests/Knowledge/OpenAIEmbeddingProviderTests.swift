import AsyncHTTPClient
import Foundation
import HearthKnowledge
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import Testing

/// The OpenAI embedder against a local stand-in for `POST /v1/embeddings`.
@Suite struct OpenAIEmbeddingProviderTests {
    /// Answers each request with `reply(body)` and keeps the request bodies and headers.
    final class FakeEmbeddingsAPI: Sendable {
        /// Each request's Authorization header and JSON body (as bytes: `Data` crosses tasks safely).
        let requests = Mutex<[(authorization: String?, body: Data)]>([])
        let reply: @Sendable ([String: Any]) -> (Int, String)

        init(reply: @escaping @Sendable ([String: Any]) -> (Int, String)) {
            self.reply = reply
        }

        @discardableResult
        func serve<T: Sendable>(_ body: @Sendable @escaping (_ baseURL: String) async throws -> T) async throws -> T {
            let router = Router()
            router.post("/v1/embeddings") { request, _ -> Response in
                let bytes = try await request.body.collect(upTo: 1 << 20)
                let data = Data(bytes.readableBytesView)
                let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
                self.requests.withLock { $0.append((request.headers[.authorization], data)) }
                let (status, text) = self.reply(json)
                var headers = HTTPFields()
                headers[.contentType] = "application/json"
                return Response(status: .init(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
            }
            var logger = Logger(label: "fake-embeddings")
            logger.logLevel = .critical
            let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
            return try await app.test(.live) { client in
                try await body("http://127.0.0.1:\(try #require(client.port))")
            }
        }
    }

    /// A vector of `dimension` values whose first component encodes the input's length.
    static func answer(for body: [String: Any], dimension: Int = 384, reversed: Bool = false) -> String {
        let inputs = body["input"] as? [String] ?? []
        var items = inputs.enumerated().map { index, text in
            var vector = [Double](repeating: 0, count: dimension)
            vector[0] = Double(text.count) * 3
            vector[1] = 4
            return #"{"object":"embedding","index":\#(index),"embedding":[\#(vector.map { String($0) }.joined(separator: ","))]}"#
        }
        if reversed { items.reverse() }
        return #"{"object":"list","model":"text-embedding-3-small","data":[\#(items.joined(separator: ","))],"usage":{"prompt_tokens":3,"total_tokens":3}}"#
    }

    @Test func embedsInOrderAsksFor384DimensionsAndNormalises() async throws {
        let api = FakeEmbeddingsAPI { (200, OpenAIEmbeddingProviderTests.answer(for: $0, reversed: true)) }
        try await api.serve { baseURL in
            let provider = OpenAIEmbeddingProvider(apiKey: "sk-test", baseURL: baseURL)
            #expect(provider.model == EmbeddingModel(name: "openai/text-embedding-3-small", dimension: 384))
            let vectors = try await provider.embed(["a", "abcd"])
            #expect(vectors.count == 2)
            // Index order is restored although the API answered in reverse.
            #expect(abs(vectors[0][0] - 0.6) < 1e-6 && abs(vectors[0][1] - 0.8) < 1e-6)  // (3, 4) / 5
            #expect(abs(vectors[1][0] - 12 / Float(160).squareRoot()) < 1e-6)
            for vector in vectors { #expect(abs(vector.reduce(0) { $0 + $1 * $1 } - 1) < 1e-5) }
        }
        let requests = api.requests.withLock { $0 }
        #expect(requests.count == 1)
        #expect(requests.first?.authorization == "Bearer sk-test")
        let body = try #require(try JSONSerialization.jsonObject(with: requests.first?.body ?? Data()) as? [String: Any])
        #expect(body["model"] as? String == "text-embedding-3-small")
        #expect(body["dimensions"] as? Int == 384)
        #expect(body["input"] as? [String] == ["a", "abcd"])
    }

    @Test func rateLimitsAreRetriableAndBadAnswersAreNot() async throws {
        let limited = FakeEmbeddingsAPI { _ in (429, #"{"error":{"message":"slow down"}}"#) }
        try await limited.serve { baseURL in
            let error = await #expect(throws: EmbeddingProviderError.self) { try await OpenAIEmbeddingProvider(apiKey: "k", baseURL: baseURL).embed(["x"]) }
            #expect(error?.retriable == true)
        }
        let unauthorised = FakeEmbeddingsAPI { _ in (401, #"{"error":{"message":"bad key"}}"#) }
        try await unauthorised.serve { baseURL in
            let error = await #expect(throws: EmbeddingProviderError.self) { try await OpenAIEmbeddingProvider(apiKey: "k", baseURL: baseURL).embed(["x"]) }
            #expect(error?.retriable == false)
        }
        let wrongSize = FakeEmbeddingsAPI { (200, OpenAIEmbeddingProviderTests.answer(for: $0, dimension: 1536)) }
        try await wrongSize.serve { baseURL in
            let error = await #expect(throws: EmbeddingProviderError.self) { try await OpenAIEmbeddingProvider(apiKey: "k", baseURL: baseURL).embed(["x"]) }
            #expect(error?.description.contains("1536") == true)
        }
        let missing = FakeEmbeddingsAPI { _ in (200, #"{"data":[]}"#) }
        try await missing.serve { baseURL in
            await #expect(throws: EmbeddingProviderError.self) { try await OpenAIEmbeddingProvider(apiKey: "k", baseURL: baseURL).embed(["x", "y"]) }
        }
    }

    @Test func theConfigurationChoosesTheProvider() throws {
        #expect(try EmbeddingSettings.provider(environment: [:]).model.name == "all-MiniLM-L6-v2")
        let openAI = try EmbeddingSettings.provider(environment: [
            "HEARTH_EMBEDDING_PROVIDER": "openai", "HEARTH_OPENAI_API_KEY": "k", "HEARTH_OPENAI_EMBEDDING_MODEL": "text-embedding-3-large",
        ])
        #expect(openAI.model.name == "openai/text-embedding-3-large")
        #expect(openAI.model.dimension == 384)
        #expect(throws: EmbeddingSettings.Invalid.self) { try EmbeddingSettings.provider(environment: ["HEARTH_EMBEDDING_PROVIDER": "openai"]) }
        #expect(throws: EmbeddingSettings.Invalid.self) { try EmbeddingSettings.provider(environment: ["HEARTH_EMBEDDING_PROVIDER": "word2vec"]) }
    }
}
