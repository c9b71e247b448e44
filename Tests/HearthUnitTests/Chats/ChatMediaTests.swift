import Crypto
import Foundation
import Testing

import HearthRuntime

@testable import GatewayService

/// The pure parts of chat images: the pixel size read from a header, the signed links, and the
/// household a request acts in.
@Suite struct ChatMediaTests {
    @Test func aPNGsSizeIsReadFromItsHeader() {
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        png += [0, 0, 0x02, 0x80, 0, 0, 0x01, 0xE0, 8, 6, 0, 0, 0]
        #expect(ImageDimensions.read(Data(png), format: .png) == ImageDimensions(width: 640, height: 480))
        #expect(ImageDimensions.read(Data(png.prefix(20)), format: .png) == nil)
    }

    @Test func aJPEGsSizeIsReadFromItsFrameHeaderPastOtherSegments() {
        // SOI, an APP0 segment of 16 bytes, a DHT-marked segment that is not a frame, then SOF2.
        var jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array(repeating: 0, count: 14)
        jpeg += [0xFF, 0xC4, 0x00, 0x04, 0x00, 0x00]
        jpeg += [0xFF, 0xC2, 0x00, 0x11, 0x08, 0x03, 0x20, 0x04, 0xB0, 0x03] + Array(repeating: 0, count: 9)
        #expect(ImageDimensions.read(Data(jpeg), format: .jpeg) == ImageDimensions(width: 1200, height: 800))
        // Scan data before any frame header: no size.
        #expect(ImageDimensions.read(Data([0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x08] + Array(repeating: 0, count: 10)), format: .jpeg) == nil)
    }

    @Test func aLinkIsValidForItsOwnImageAndVariantUntilItExpires() throws {
        let links = ChatMediaLinks(key: SymmetricKey(size: .bits256), lifetime: 60)
        let chat = UUID(), media = UUID()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let link = links.link(chat: chat, media: media, variant: .thumbnail, now: now)
        #expect(link.hasPrefix("/v1/chats/\(chat.uuidString.lowercased())/media/\(media.uuidString.lowercased())/thumbnail?expires="))
        let query = try #require(URLComponents(string: link)?.queryItems)
        let expires = query.first { $0.name == "expires" }?.value
        let signature = query.first { $0.name == "signature" }?.value
        #expect(links.check(chat: chat, media: media, variant: .thumbnail, expires: expires, signature: signature, now: now) == .valid)
        #expect(links.check(chat: chat, media: media, variant: .thumbnail, expires: expires, signature: signature, now: now + 61) == .expired)
        #expect(links.check(chat: chat, media: media, variant: .image, expires: expires, signature: signature, now: now) == .forged)
        #expect(links.check(chat: UUID(), media: media, variant: .thumbnail, expires: expires, signature: signature, now: now) == .forged)
        #expect(links.check(chat: chat, media: media, variant: .thumbnail, expires: "9999999999", signature: signature, now: now) == .forged)
        #expect(links.check(chat: chat, media: media, variant: .thumbnail, expires: expires, signature: "zz", now: now) == .forged)
        let other = ChatMediaLinks(key: SymmetricKey(size: .bits256))
        #expect(other.check(chat: chat, media: media, variant: .thumbnail, expires: expires, signature: signature, now: now) == .forged)
    }

    @Test func theHouseholdIsTheHeadersOrTheOnlyOneAndNeverAGuess() throws {
        let a = UUID(), b = UUID()
        #expect(try MembershipReadModel.select(from: [a], header: nil) == a)
        #expect(try MembershipReadModel.select(from: [], header: nil) == nil)
        #expect(try MembershipReadModel.select(from: [a, b], header: b.uuidString.lowercased()) == b)
        #expect(Self.refusal { try MembershipReadModel.select(from: [a, b], header: nil) } == "400 X-Hearth-Household")
        #expect(Self.refusal { try MembershipReadModel.select(from: [a], header: "family") } == "400 X-Hearth-Household")
        #expect(Self.refusal { try MembershipReadModel.select(from: [a], header: UUID().uuidString) } == "404 -")
    }

    /// "<status> <field>" of the APIError `body` throws; nil when it throws nothing.
    static func refusal(_ body: () throws -> UUID?) -> String? {
        do {
            _ = try body()
            return nil
        } catch let error as APIError {
            return "\(error.status.code) \(error.field ?? "-")"
        } catch {
            return "\(error)"
        }
    }
}
