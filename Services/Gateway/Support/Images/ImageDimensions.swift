import Foundation

/// The pixel size a JPEG or PNG declares in its header (PNG's IHDR chunk; JPEG's start-of-frame
/// segment), read without decoding the image.
struct ImageDimensions: Equatable, Sendable {
    let width: Int
    let height: Int

    static func read(_ bytes: Data, format: PhotoFormat) -> ImageDimensions? {
        let data = [UInt8](bytes)
        switch format {
        case .png:
            // Signature (8), chunk length (4), "IHDR" (4), then width and height, big-endian.
            guard data.count >= 24, Array(data[12..<16]) == Array("IHDR".utf8) else { return nil }
            return positive(be32(data, 16), be32(data, 20))
        case .jpeg:
            var index = 2
            while index + 9 < data.count {
                guard data[index] == 0xFF else { return nil }
                let marker = data[index + 1]
                // Fill bytes and markers without a length.
                if marker == 0xFF { index += 1; continue }
                if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { index += 2; continue }
                let length = Int(data[index + 2]) << 8 | Int(data[index + 3])
                guard length >= 2 else { return nil }
                // SOF0–SOF15 but DHT (C4), JPG (C8) and DAC (CC) carry the frame's size.
                if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                    let height = Int(data[index + 5]) << 8 | Int(data[index + 6])
                    let width = Int(data[index + 7]) << 8 | Int(data[index + 8])
                    return positive(width, height)
                }
                if marker == 0xDA { return nil }
                index += 2 + length
            }
            return nil
        }
    }

    private static func be32(_ data: [UInt8], _ at: Int) -> Int {
        Int(data[at]) << 24 | Int(data[at + 1]) << 16 | Int(data[at + 2]) << 8 | Int(data[at + 3])
    }

    private static func positive(_ width: Int, _ height: Int) -> ImageDimensions? {
        width > 0 && height > 0 ? ImageDimensions(width: width, height: height) : nil
    }
}
