import Crypto
import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime
import HearthStore
import Hummingbird
import Logging
import PostgresNIO

/// `POST /v1/chats/{id}/media` (the body is the JPEG or PNG itself, at most 10 MB;
/// `?client_id=` required, `?caption=` optional): stores the image and a 200×200 thumbnail (libvips,
/// cropped around the centre) in `chat_media`, then sends a message carrying it
/// (`chat.media_shared`), answered like a text message with `media_type`, `media_url`,
/// `media_thumbnail_url`, `media_size` and `media_dimensions`.
///
/// `GET /v1/chats/{id}/media/{media_id}` and `…/thumbnail` answer the bytes to a member of the chat
/// holding a link signed for it that has not expired (`ChatMediaLinks`); to anyone else the image
/// does not exist (404).
struct ChatMediaRoutes: Sendable {
    let publisher: EventPublisher
    let chats: ChatReadModel
    let thumbnailer: PhotoThumbnailer
    let logger: Logger

    static let thumbnailSize = 200

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        routes.post("chats/{id}/media") { request, context in
            let sent = try await upload(request, context: context)
            return EditedResponse(status: sent.duplicate ? .ok : .created, response: sent)
        }
        routes.get("chats/{id}/media/{media_id}") { request, context in try await bytes(request, context: context, variant: .image) }
        routes.get("chats/{id}/media/{media_id}/thumbnail") { request, context in try await bytes(request, context: context, variant: .thumbnail) }
    }

    func upload(_ request: Request, context: HearthRequestContext) async throws -> ChatRoutes.SentMessage {
        let user = try context.authenticatedUser()
        let chatId = try context.uuidParameter("id", field: "chat_id")
        let householdId = try await chats.requireMember(user, of: chatId)
        let query = request.uri.queryParameters
        let clientId = query.get("client_id")?.trimmingCharacters(in: .whitespaces) ?? ""
        guard !clientId.isEmpty, clientId.unicodeScalars.count <= ChatRoutes.maxClientIdLength else {
            throw APIError.invalid("client_id", "client_id must be 1 to \(ChatRoutes.maxClientIdLength) characters")
        }
        guard !clientId.contains("\u{0}") else { throw APIError.invalid("client_id", "client_id must not contain the NUL character") }
        let caption = query.get("caption")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard !caption.contains("\u{0}") else { throw APIError.invalid("caption", "caption must not contain the NUL character") }
        guard caption.unicodeScalars.count <= ChatRoutes.maxTextLength else {
            throw APIError.invalid("caption", "caption must be at most \(ChatRoutes.maxTextLength) characters")
        }
        let messageId = ChatRoutes.messageId(chat: chatId, author: user, clientId: clientId)
        if let stored = try await chats.message(messageId, in: chatId) {
            return ChatRoutes.SentMessage(message: stored, position: nil, duplicate: true)
        }
        let upload = try await ImageUpload.read(request)
        guard let dimensions = ImageDimensions.read(upload.bytes, format: upload.format) else {
            throw APIError.invalid("body", "the image's size could not be read (damaged?)")
        }
        let thumbnail = try await upload.thumbnail(with: thumbnailer)
        // The media id is the message's: a retried upload stores nothing twice.
        let mediaId = messageId
        let digest = Hex.encode(SHA256.hash(data: upload.bytes))
        try await chats.client.query(
            """
            INSERT INTO chat_media (media_id, chat_id, household_id, content_type, sha256, image, thumbnail, uploaded_by)
            VALUES (\(mediaId), \(chatId), \(householdId), \(upload.format.rawValue), \(digest), \(ByteBuffer(data: upload.bytes)),
                    \(ByteBuffer(data: thumbnail)), \(user))
            ON CONFLICT (media_id) DO NOTHING
            """, logger: logger)
        // A retry must carry the same image: the stored bytes are what the message will show.
        let stored = try await chats.client.query("SELECT sha256 FROM chat_media WHERE media_id = \(mediaId)", logger: logger)
        for try await hash in stored.decode(String.self) where hash != digest {
            throw APIError(.conflict, code: "client_id_reused", message: "client_id was already used for another image", field: "client_id")
        }
        let authorName = try await chats.displayName(of: user) ?? "someone"
        let event = ChatMediaShared(
            messageId: messageId, chatId: chatId, householdId: householdId, authorId: user, authorName: authorName, caption: caption,
            clientId: clientId, mediaId: mediaId, mediaType: upload.format.rawValue, mediaSize: upload.bytes.count, mediaWidth: dimensions.width,
            mediaHeight: dimensions.height, sha256: digest)
        let envelope = publisher.envelope(event, correlationId: context.correlationId)
        let position = try await publisher.publish(envelope)
        let media = ChatMedia(
            mediaId: mediaId, contentType: upload.format.rawValue, size: upload.bytes.count, width: dimensions.width, height: dimensions.height)
        let view = ChatMessageView(
            messageId: messageId.uuidString.lowercased(), chatId: chatId.uuidString.lowercased(), authorId: user.uuidString.lowercased(),
            authorName: authorName, text: caption, clientId: clientId, sentAt: envelope.metadata.occurredAt
        ).carrying(media, links: chats.links)
        context.logger.info("chat image shared", metadata: ["chat_id": "\(chatId)", "bytes": "\(upload.bytes.count)"])
        return ChatRoutes.SentMessage(message: view, position: position.description, duplicate: false)
    }

    func bytes(_ request: Request, context: HearthRequestContext, variant: ChatMediaLinks.Variant) async throws -> Response {
        let user = try context.authenticatedUser()
        guard let chatId = context.parameters.get("id").flatMap(UUID.init(uuidString:)),
              let mediaId = context.parameters.get("media_id").flatMap(UUID.init(uuidString:))
        else { throw APIError.notFound("media") }
        _ = try await chats.requireMember(user, of: chatId)
        let query = request.uri.queryParameters
        switch chats.links.check(chat: chatId, media: mediaId, variant: variant, expires: query.get("expires"), signature: query.get("signature")) {
        case .forged:
            throw APIError.notFound("media")
        case .expired:
            throw APIError(.gone, code: "link_expired", message: "this media link has expired: read the message again for a fresh one")
        case .valid:
            break
        }
        let rows = try await chats.client.query(
            """
            SELECT content_type, \(unescaped: variant == .thumbnail ? "thumbnail" : "image") FROM chat_media
            WHERE media_id = \(mediaId) AND chat_id = \(chatId)
            """, logger: logger)
        for try await (contentType, data) in rows.decode((String, ByteBuffer).self) {
            var headers = HTTPFields()
            headers[.contentType] = variant == .thumbnail ? "image/jpeg" : contentType
            headers[.cacheControl] = "private, max-age=3600"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: data))
        }
        throw APIError.notFound("media")
    }
}
