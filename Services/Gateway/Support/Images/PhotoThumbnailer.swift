import Foundation
import HearthRuntime

/// Makes a photo's thumbnail with libvips' `vipsthumbnail` (Debian `libvips-tools`, installed by
/// `make setup`): it decodes JPEG and PNG, honours the EXIF orientation, and never holds more of a
/// large image in memory than the thumbnail needs. Tracking photos get one that fits in a 320 px
/// square; chat images a square of exactly 200 px, cropped around the centre (`crop`).
struct PhotoThumbnailer: Sendable {
    var executable = "vipsthumbnail"
    var size = 320
    var crop = false
    var runner = ToolRunner()

    enum Failure: Error {
        /// The tool could not read the image: it is not a picture it knows, or it is damaged.
        case unreadable(String)
    }

    func thumbnail(of image: Data, fileExtension: String) async throws -> Data {
        do {
            let result = try await runner.run(
                executable, ["{in}", "--size", "\(size)x\(size)"] + (crop ? ["--smartcrop", "centre"] : []) + ["-o", "{out}[Q=80,strip]"],
                input: image, inputExtension: fileExtension,
                outputExtension: "jpg")
            guard let thumbnail = result.output, !thumbnail.isEmpty else { throw Failure.unreadable("no thumbnail was written") }
            return thumbnail
        } catch ToolRunner.Failure.failed(_, let messages) {
            throw Failure.unreadable(messages)
        }
    }
}

/// The picture formats a photo may be, told by the file's first bytes (not by what the client
/// says it is).
enum PhotoFormat: String {
    case jpeg = "image/jpeg"
    case png = "image/png"

    static let maxBytes = 10 * 1024 * 1024

    var fileExtension: String { self == .jpeg ? "jpg" : "png" }

    enum Refusal: Error, Equatable {
        case heic
        case other
    }

    static func sniff(_ bytes: Data) throws(Refusal) -> PhotoFormat {
        let head = [UInt8](bytes.prefix(16))
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        // ISO base media files: `ftyp` at offset 4, then the brand (heic, heix, mif1, ...).
        if head.count >= 12, Array(head[4..<8]) == Array("ftyp".utf8) {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            if ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "avif"].contains(brand) { throw .heic }
        }
        throw .other
    }
}
