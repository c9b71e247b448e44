import Crypto
import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime
import HearthStore
import Hummingbird
import Logging
import PostgresNIO

/// `POST /v1/children/{id}/photos` (the body is the JPEG or PNG itself, at most 10 MB;
/// `?food_log_id=` links it to a food tried, `?caption=`, `?client_id=`), `GET …/photos` (the
/// gallery, `?food_log_id=` for one food's), `GET …/photos/{log_id}/image` and `…/thumbnail`.
///
/// The bytes and thumbnail are stored in `tracking_photos` before the event is published; the
/// event names the photo by id and SHA-256, never the bytes.
struct TrackingPhotoRoutes: Sendable {
    let publisher: EventPublisher
    let readModel: TrackingReadModel
    let access: ChildAccess
    let consistency: ReadConsistency
    let client: PostgresClient
    let thumbnailer: PhotoThumbnailer
    let logger: Logger

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.post("children/{id}/photos") { request, context in try await upload(request, context: context) }
        routes.get("children/{id}/photos") { request, context in try await gallery(request, context: context) }
        routes.get("children/{id}/photos/{log_id}/image") { request, context in try await bytes(request, context: context, thumbnail: false) }
        routes.get("children/{id}/photos/{log_id}/thumbnail") { request, context in try await bytes(request, context: context, thumbnail: true) }
    }

    func upload(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let (user, child) = try await access.child(request, context: context)
        let query = request.uri.queryParameters
        var clientId: String?
        if let text = query.get("client_id") {
            var fields: [String: JSONValue] = ["client_id": .string(text)]
            clientId = try TrackingLogRoutes.clientId(&fields)
        }
        if let clientId, let first = try await readModel.log(clientId: clientId, child: child.childId) {
            var answer = try TrackingLogRoutes.retried(first, kind: .photo)
            for (key, value) in Self.links(first) { answer.value[key] = value }
            return answer
        }
        var foodLogId: UUID?
        if let text = query.get("food_log_id") {
            guard let id = UUID(uuidString: text), let food = try await readModel.log(id, child: child.childId), food.kind == .food, !food.deleted else {
                throw APIError.invalid("food_log_id", "food_log_id must name a food log of this child")
            }
            foodLogId = id
        }
        let caption = query.get("caption")?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let caption, caption.count > TrackingLogInput.maxTextLength {
            throw APIError.invalid("caption", "caption must be at most \(TrackingLogInput.maxTextLength) characters")
        }
        let upload = try await ImageUpload.read(request)
        let image = upload.bytes
        let format = upload.format
        let thumbnail = try await upload.thumbnail(with: thumbnailer)
        let logId = TrackingLogRoutes.logId(child: child.childId, clientId: clientId)
        let digest = Hex.encode(SHA256.hash(data: image))
        try await client.query(
            """
            INSERT INTO tracking_photos (photo_id, household_id, child_id, content_type, sha256, image, thumbnail, uploaded_by)
            VALUES (\(logId), \(child.householdId), \(child.childId), \(format.rawValue), \(digest), \(ByteBuffer(data: image)),
                    \(ByteBuffer(data: thumbnail)), \(user))
            ON CONFLICT (photo_id) DO NOTHING
            """, logger: logger)
        let detail = PhotoDetail(photoId: logId, sha256: digest, contentType: format.rawValue, byteCount: image.count, foodLogId: foodLogId, caption: caption)
        let position = try await publisher.publish(
            TrackingLogged(logId: logId, childId: child.childId, householdId: child.householdId, loggedBy: user, clientId: clientId, at: Date(), detail: detail),
            correlationId: context.correlationId)
        try await consistency.awaitApplied(position, projections: [TrackingLogRoutes.projection])
        guard let stored = try await readModel.log(logId, child: child.childId) else {
            if let clientId, let first = try await readModel.log(clientId: clientId, child: child.childId) {
                var answer = try TrackingLogRoutes.retried(first, kind: .photo)
                for (key, value) in Self.links(first) { answer.value[key] = value }
                return answer
            }
            throw APIError(.serviceUnavailable, code: "not_applied", message: "the photo was accepted but is not visible yet; retry with the same client_id")
        }
        var answer = TrackingLogRoutes.answer(stored, duplicate: false, status: .created, extra: Self.links(stored))
        answer.value["position"] = .string(position.description)
        return answer
    }

    func gallery(_ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let (_, child) = try await access.child(request, context: context)
        var photos = try await readModel.logs(child: child.childId, kinds: [.photo], from: Date(timeIntervalSince1970: 0), to: .distantFuture)
        if let text = request.uri.queryParameters.get("food_log_id") {
            guard let food = UUID(uuidString: text) else { throw APIError.invalid("food_log_id", "food_log_id must be a UUID") }
            photos = photos.filter { $0.detail["food_log_id"]?.string.flatMap(UUID.init(uuidString:)) == food }
        }
        return TrackingJSON(value: .object(["photos": .array(photos.reversed().map { photo in
            var json = photo.json
            for (key, value) in Self.links(photo) { json[key] = value }
            return json
        })]))
    }

    func bytes(_ request: Request, context: HearthRequestContext, thumbnail: Bool) async throws -> Response {
        let (_, child) = try await access.child(request, context: context)
        guard let id = context.parameters.get("log_id").flatMap(UUID.init(uuidString:)) else { throw APIError.invalid("log_id", "log_id must be a UUID") }
        guard let log = try await readModel.log(id, child: child.childId), log.kind == .photo, !log.deleted else { throw APIError.notFound("photo") }
        let rows = try await client.query(
            """
            SELECT content_type, \(unescaped: thumbnail ? "thumbnail" : "image") FROM tracking_photos
            WHERE photo_id = \(log.logId) AND child_id = \(child.childId)
            """, logger: logger)
        for try await (contentType, data) in rows.decode((String, ByteBuffer).self) {
            var headers = HTTPFields()
            headers[.contentType] = thumbnail ? "image/jpeg" : contentType
            headers[.cacheControl] = "private, max-age=86400, immutable"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: data))
        }
        throw APIError.notFound("photo")
    }

    static func links(_ log: StoredLog) -> [String: JSONValue] {
        let base = "/v1/children/\(log.childId.uuidString.lowercased())/photos/\(log.logId.uuidString.lowercased())"
        return ["image_url": .string(base + "/image"), "thumbnail_url": .string(base + "/thumbnail")]
    }

}
