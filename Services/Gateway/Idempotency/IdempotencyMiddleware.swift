import Crypto
import Foundation
import HearthRuntime
import HearthStore
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import HearthEvents

extension HTTPField.Name {
    static let idempotencyKey = Self("Idempotency-Key")!
    static let idempotentReplayed = Self("Idempotent-Replayed")!
}

/// Makes every authenticated POST idempotent when the client sends an `Idempotency-Key`: the
/// first request with a key runs, and its events get ids derived from the user and the key;
/// a retry of the same request (same method, path and body) gets the first successful answer
/// without running again, a retry after a failure runs again under the same event ids, and the
/// key sent with a different request is refused. Keys are per user and kept for a day.
struct IdempotencyMiddleware: RouterMiddleware {
    typealias Context = HearthRequestContext

    let store: IdempotencyStore
    static let maxKeyLength = 255
    /// Answers that carry a secret (a refreshed token, a calendar feed's URL, a rotated webhook
    /// secret) are never kept, and those requests are not made idempotent: a retry simply asks
    /// for a new secret.
    static func carriesSecret(_ path: String) -> Bool {
        path.hasPrefix("/v1/auth/") || path.hasPrefix("/v1/calendar/feeds") || (path.hasPrefix("/v1/webhooks/") && path.hasSuffix("/rotate"))
    }
    /// Uploads (a photo: up to 10 MB of image) are not held in memory to be fingerprinted; they
    /// are made idempotent by their own `client_id`.
    static func isUpload(_ request: Request) -> Bool {
        request.headers[.contentType].map { $0.lowercased().hasPrefix("image/") } ?? false
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post, let key = request.headers[.idempotencyKey],
              !Self.carriesSecret(request.uri.path), !Self.isUpload(request)
        else { return try await next(request, context) }
        guard (1...Self.maxKeyLength).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw APIError.invalid("Idempotency-Key", "must be 1 to \(Self.maxKeyLength) visible ASCII characters (a UUID is a good key)")
        }
        let user = try context.authenticatedUser()
        var request = request
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        request.body = RequestBody(buffer: body)
        let fingerprint = Self.fingerprint(method: request.method.rawValue, path: request.uri.description, body: body)

        let claim = UUID()
        switch try await store.claim(user: user, key: key, fingerprint: fingerprint, claim: claim) {
        case .answered(let status, let contentType, let stored):
            var headers: HTTPFields = [.idempotentReplayed: "true"]
            if let contentType { headers[.contentType] = contentType }
            return Response(status: HTTPResponse.Status(code: status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: stored)))
        case .reusedForAnotherRequest:
            throw APIError(.unprocessableContent, code: "idempotency_key_reused",
                           message: "this Idempotency-Key was sent with a different request; use a new key for a new request", field: "Idempotency-Key")
        case .inProgress:
            throw APIError(.conflict, code: "request_in_progress",
                           message: "a request with this Idempotency-Key is still running; retry shortly", field: "Idempotency-Key",
                           headers: [.retryAfter: "1"])
        case .claimed:
            break
        }

        let ids = EventIdSource { label, index in Self.eventId(user: user, key: key, label: label, index: index) }
        let response: Response
        do {
            response = try await EventIdentity.$source.withValue(ids) { try await next(request, context) }
        } catch {
            try? await store.release(user: user, key: key, claim: claim)
            throw error
        }
        // Only a success is an answer to keep; a stream (a body of unknown length: SSE, NDJSON)
        // is neither kept nor held back, its events are what a retry finds by id.
        let contentType = response.headers[.contentType]
        guard (200..<300).contains(response.status.code), response.body.contentLength != nil else {
            try? await store.release(user: user, key: key, claim: claim)
            return response
        }
        let collector = CollectingBodyWriter()
        try await response.body.write(collector)
        do {
            try await store.complete(user: user, key: key, claim: claim, status: response.status.code, contentType: contentType, body: collector.collected)
        } catch {
            // The change is made; a retry would make it again under the same event ids, which
            // readers that key on event ids tell apart. The client gets its answer now.
            context.logger.warning("cannot store the answer of an idempotent request", metadata: ["error": "\(error)"])
        }
        var headers = response.headers
        headers[.contentLength] = nil
        return Response(status: response.status, headers: headers, body: .init(byteBuffer: collector.collected))
    }

    /// What makes two requests "the same request".
    static func fingerprint(method: String, path: String, body: ByteBuffer) -> String {
        var hash = SHA256()
        hash.update(data: Data(method.utf8))
        hash.update(data: [0])
        hash.update(data: Data(path.utf8))
        hash.update(data: [0])
        hash.update(data: Data(body.readableBytesView))
        return Hex.encode(hash.finalize())
    }

    /// A UUID (version 8, RFC 9562's custom layout) from SHA-256 of the user, the key, what the id
    /// is for (an event type, a kind of thing) and its place among the request's ids of that
    /// label: the same on every attempt, even one that takes another branch, unguessable without
    /// the key, and never equal across users.
    static func eventId(user: UUID, key: String, label: String, index: Int) -> UUID {
        var bytes = Array(SHA256.hash(data: Data("hearth.idempotency\n\(user.uuidString.lowercased())\n\(key)\n\(label)\n\(index)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}

/// Reads a response body into one buffer, so it can be kept and sent again. A class: the body
/// consumes the writer it is given, and the collected bytes are read after.
final class CollectingBodyWriter: ResponseBodyWriter {
    private(set) var collected = ByteBuffer()

    func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        collected.writeBuffer(&buffer)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
