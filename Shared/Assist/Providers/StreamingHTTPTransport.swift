import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// POSTs a streaming request and reads its server-sent events: retries 429, 5xx and transport
/// failures with exponential back-off (honouring `Retry-After`) as long as no text has been
/// passed on, bounds the wait for the response head and the silence inside the stream, and
/// turns every failure into a `ModelProviderError` scrubbed of the credentials it was given.
struct StreamingHTTPTransport: Sendable {
    var provider: String
    var httpClient: HTTPClient
    var retry: RetryPolicy
    var timeouts: ProviderTimeouts
    /// Values that must never appear in an error message or log (API keys).
    var secrets: [String]
    var logger: Logger

    func stream<Decoder: StreamDecoder>(
        _ request: HTTPClientRequest, decoder: Decoder, modelRequest: ModelRequest,
        onToken: @escaping @Sendable (String) async -> Void
    ) async throws -> ProviderResult {
        var attempt = 1
        while true {
            do {
                return try await once(request, decoder: decoder, modelRequest: modelRequest, onToken: onToken)
            } catch let error as ModelProviderError {
                guard let delay = retry.delay(after: attempt, error: error) else { throw error }
                logger.notice("model provider call failed; retrying", metadata: [
                    "provider": "\(provider)", "run_id": "\(modelRequest.runId)", "attempt": "\(attempt)",
                    "error": "\(error)", "retry_in_ms": "\(delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000)",
                ])
                try await Task.sleep(for: delay)
                attempt += 1
            }
        }
    }

    private func once<Decoder: StreamDecoder>(
        _ request: HTTPClientRequest, decoder: Decoder, modelRequest: ModelRequest,
        onToken: @escaping @Sendable (String) async -> Void
    ) async throws -> ProviderResult {
        let response: HTTPClientResponse
        do {
            response = try await httpClient.execute(request, timeout: ProviderTimeouts.timeAmount(timeouts.head), logger: logger)
        } catch let error as HTTPClientError where error == .deadlineExceeded {
            throw failure(.timeout, message: "no response within \(timeouts.head)")
        } catch {
            if error is CancellationError || Task.isCancelled { throw CancellationError() }
            throw failure(.transport, message: "\(error)")
        }

        guard response.status == .ok else {
            throw await statusFailure(response)
        }

        let progress = StreamProgress()
        return try await withThrowingTaskGroup(of: ProviderResult?.self) { group in
            group.addTask {
                try await readEvents(response, decoder: decoder, modelRequest: modelRequest, progress: progress, onToken: onToken)
            }
            group.addTask {
                try await watchIdle(progress)
                return nil
            }
            defer { group.cancelAll() }
            while let outcome = try await group.next() {
                if let result = outcome { return result }
                // The watchdog gave up: cancelling the reader makes it throw the timeout.
                group.cancelAll()
            }
            throw CancellationError()
        }
    }

    private func readEvents<Decoder: StreamDecoder>(
        _ response: HTTPClientResponse, decoder: Decoder, modelRequest: ModelRequest, progress: StreamProgress,
        onToken: @escaping @Sendable (String) async -> Void
    ) async throws -> ProviderResult {
        var decoder = decoder
        var parser = ServerSentEventParser()
        var text = ""
        func partial() -> ProviderResult? {
            guard !text.isEmpty || decoder.reportedInputTokens != nil else { return nil }
            return decoder.result(text: text, request: modelRequest)
        }
        func handle(_ events: [ServerSentEvent]) async throws {
            for event in events where !decoder.isFinished {
                if let delta = try decoder.consume(event), !delta.isEmpty {
                    text += delta
                    progress.beginDelivery()
                    await onToken(delta)
                    progress.endDelivery()
                }
            }
        }
        do {
            for try await chunk in response.body {
                progress.touch()
                try await handle(parser.feed(chunk.readableBytesView))
                if decoder.isFinished { break }
            }
            if !decoder.isFinished { try await handle(parser.finish()) }
        } catch var error as ModelProviderError {
            error.partial = error.partial ?? partial()
            throw error
        } catch {
            if progress.timedOut {
                throw failure(.timeout, message: "the stream was silent for longer than \(timeouts.idle)", partial: partial())
            }
            if error is CancellationError || Task.isCancelled { throw CancellationError() }
            throw failure(.transport, message: "the stream broke off: \(error)", partial: partial())
        }
        guard decoder.isFinished else {
            throw failure(.stream, message: "the stream ended without its end marker", partial: partial())
        }
        return decoder.result(text: text, request: modelRequest)
    }

    private func watchIdle(_ progress: StreamProgress) async throws {
        let step = max(min(timeouts.idle / 4, .seconds(1)), .milliseconds(10))
        while true {
            try await Task.sleep(for: step)
            if progress.idleFor > timeouts.idle {
                progress.markTimedOut()
                return
            }
        }
    }

    private func statusFailure(_ response: HTTPClientResponse) async -> ModelProviderError {
        let status = Int(response.status.code)
        let kind: ModelProviderError.Kind
        switch status {
        case 429: kind = .rateLimited
        case 408, 500...599: kind = .server
        default: kind = .rejected
        }
        // The error body is small JSON; bound the read in size and time so a misbehaving server
        // cannot hold the call.
        let body = try? await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask { try await response.body.collect(upTo: 16 * 1024) }
            group.addTask {
                try await Task.sleep(for: min(timeouts.idle, .seconds(5)))
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        let retryAfter = RetryAfter.parse(
            retryAfter: response.headers.first(name: "retry-after"), retryAfterMs: response.headers.first(name: "retry-after-ms"))
        return failure(kind, status: status, message: Self.errorMessage(from: body), retryAfter: retryAfter)
    }

    /// The `error.message` of the providers' JSON error bodies, else the start of the body.
    static func errorMessage(from body: ByteBuffer?) -> String {
        guard let body, body.readableBytes > 0 else { return "(no body)" }
        let data = Data(body.readableBytesView)
        if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
           let error = object["error"] as? [String: Any], let message = error["message"] as? String {
            return message
        }
        return String(decoding: data.prefix(300), as: UTF8.self)
    }

    func failure(
        _ kind: ModelProviderError.Kind, status: Int? = nil, message: String, retryAfter: Duration? = nil, partial: ProviderResult? = nil
    ) -> ModelProviderError {
        ModelProviderError(provider: provider, kind: kind, status: status, message: scrub(message), retryAfter: retryAfter, partial: partial)
    }

    /// Error bodies and transport errors may echo what was sent; keys must not travel on.
    func scrub(_ message: String) -> String {
        var message = message
        for secret in secrets where secret.count >= 4 {
            message = message.replacingOccurrences(of: secret, with: "[redacted]")
        }
        return message.count > 300 ? String(message.prefix(300)) + "…" : message
    }
}
