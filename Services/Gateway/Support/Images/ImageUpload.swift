import Foundation
import HearthRuntime
import Hummingbird
import NIOCore

/// An image sent as a request's whole body (tracking photos, chat images): JPEG or PNG, told by
/// its first bytes, at most 10 MB.
struct ImageUpload: Sendable {
    let bytes: Data
    let format: PhotoFormat

    /// The body, refused with 413 past 10 MB (read no further than that) and 415 when it is not
    /// a JPEG or PNG (HEIC named as such: phones send it by default).
    static func read(_ request: Request) async throws -> ImageUpload {
        let bytes = try await body(request)
        do {
            return ImageUpload(bytes: bytes, format: try PhotoFormat.sniff(bytes))
        } catch .heic {
            throw APIError(.unsupportedMediaType, code: "unsupported_image", message: "HEIC/HEIF images are not accepted: send a JPEG or PNG", field: "body")
        } catch {
            throw APIError(.unsupportedMediaType, code: "unsupported_image", message: "the image must be a JPEG or PNG", field: "body")
        }
    }

    /// A file sent as the whole body (an image, a daycare report): not empty, at most 10 MB,
    /// refused with a 413 without reading further.
    static func body(_ request: Request) async throws -> Data {
        do {
            let buffer = try await request.body.collect(upTo: PhotoFormat.maxBytes)
            guard buffer.readableBytes > 0 else { throw APIError.invalid("body", "the body must be the file itself (empty here)") }
            return Data(buffer: buffer)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, code: "body_too_large", message: "the file must be at most 10 MB", field: "body")
        }
    }

    /// The thumbnail `thumbnailer` makes, or a 400 when the image cannot be read.
    func thumbnail(with thumbnailer: PhotoThumbnailer) async throws -> Data {
        do {
            return try await thumbnailer.thumbnail(of: bytes, fileExtension: format.fileExtension)
        } catch PhotoThumbnailer.Failure.unreadable {
            throw APIError.invalid("body", "the image could not be read (damaged or not really a \(format == .jpeg ? "JPEG" : "PNG"))")
        }
    }
}
