import Crypto
import Foundation
import HearthRuntime
import HTTPTypes
import Hummingbird
import Synchronization

/// Activity packs (`GET /v1/activities/packs/manifest`, seed 001's content packs): the feed's live
/// activities as versioned bundles a client downloads whole: `library` (Hearth's own) and
/// `community` (approved submissions). Each is gzip JSON named by its SHA-256
/// (`/v1/activities/packs/<sha256>.json.gz`), so its URL can be cached for ever; a new version is
/// a new URL in the manifest, and an old one answers 404 (the client reads the manifest again).
final class ActivityPacks: Sendable {
    struct Pack: Sendable {
        var id: String
        var title: String
        var version: String
        var count: Int
        var sha256: String
        var body: Data
    }

    static let definitions: [(id: String, title: String, source: String)] = [
        ("library", "Hearth's activity library", "library"),
        ("community", "Ideas from families", "community"),
    ]

    private let feed: ActivityFeed
    /// The packs of the rows they were built from (by the feed's cursor and size).
    private let built = Mutex<(key: String, packs: [Pack])?>(nil)

    init(feed: ActivityFeed) {
        self.feed = feed
    }

    func packs() async throws -> [Pack] {
        let rows = try await feed.allRows(bypassing: false)
        let key = "\((rows.map(\.revision).max() ?? -1) + 1)/\(rows.count)"
        if let cached = built.withLock({ $0 }), cached.key == key { return cached.packs }
        let packs = try Self.build(rows)
        built.withLock { $0 = (key, packs) }
        return packs
    }

    /// One pack per definition: its live activities by id; its version is the revision after the
    /// newest change of any of its rows, withdrawals included (a withdrawal is a new version).
    static func build(_ rows: [ActivityRow]) throws -> [Pack] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        struct Body: Encodable {
            var id: String
            var version: String
            var activities: [ActivityFeedAnswer.Item]
        }
        return try definitions.map { definition in
            let own = rows.filter { $0.source == definition.source }
            let live = own.filter { !$0.withdrawn }.sorted { $0.id < $1.id }
            let version = String((own.map(\.revision).max() ?? -1) + 1)
            let items = live.map { ActivityFeedAnswer.Item(id: $0.id, withdrawn: false, revision: $0.revision, source: $0.source, content: $0.content) }
            let body = try Gzip.compress(try encoder.encode(Body(id: definition.id, version: version, activities: items)))
            let sha = SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined()
            return Pack(id: definition.id, title: definition.title, version: version, count: live.count, sha256: sha, body: body)
        }
    }

    struct Manifest: ResponseEncodable {
        struct Entry: Encodable {
            let id: String
            let title: String
            let version: String
            let count: Int
            let sha256: String
            let url: String
        }
        let packs: [Entry]
        /// On-device models to download: none yet (the seed's Core ML generator has no Hearth model).
        let models: [Entry]
    }

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.get("activities/packs/manifest") { _, context in
            _ = try context.authenticatedUser()
            return Manifest(
                packs: try await self.packs().map {
                    .init(id: $0.id, title: $0.title, version: $0.version, count: $0.count, sha256: $0.sha256, url: "/v1/activities/packs/\($0.sha256).json.gz")
                },
                models: [])
        }
        routes.get("activities/packs/{file}") { _, context in
            _ = try context.authenticatedUser()
            let file = try context.parameters.require("file")
            guard file.hasSuffix(".json.gz"), file.count == 64 + 8, file.prefix(64).allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
                throw APIError.invalid("file", "a pack is named <sha256>.json.gz (64 lower-case hex digits)")
            }
            guard let pack = try await self.packs().first(where: { $0.sha256 == String(file.prefix(64)) }) else { throw APIError.notFound("pack") }
            return Response(
                status: .ok,
                headers: [
                    .contentType: "application/gzip", .contentLength: String(pack.body.count), .eTag: "\"\(pack.sha256)\"",
                    .cacheControl: "public, max-age=31536000, immutable",
                ],
                body: .init(byteBuffer: ByteBuffer(bytes: pack.body)))
        }
    }
}
