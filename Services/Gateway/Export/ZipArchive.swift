import Foundation

/// A ZIP file of stored (uncompressed) entries, written in one pass: what an export download is.
/// Stored keeps the writer small and the bytes reproducible (no compressor, a fixed timestamp);
/// exports are mostly small JSON files, and any unzip tool reads them.
struct ZipArchive {
    private var body = Data()
    private var central = Data()
    private var count: UInt16 = 0

    /// 1980-01-01 00:00 in MS-DOS form: entries carry no time of their own, so one export's bytes
    /// depend on its contents only.
    private static let dosTime: UInt16 = 0
    private static let dosDate: UInt16 = (0 << 9) | (1 << 5) | 1

    mutating func add(_ name: String, _ contents: Data) {
        let nameBytes = Data(name.utf8)
        let crc = CRC32.checksum(contents)
        let offset = UInt32(body.count)
        var local = Data()
        local.append(le32: 0x0403_4B50)
        local.append(le16: 20)  // version needed: 2.0
        local.append(le16: 0x0800)  // UTF-8 names
        local.append(le16: 0)  // stored
        local.append(le16: Self.dosTime)
        local.append(le16: Self.dosDate)
        local.append(le32: crc)
        local.append(le32: UInt32(contents.count))
        local.append(le32: UInt32(contents.count))
        local.append(le16: UInt16(nameBytes.count))
        local.append(le16: 0)
        body.append(local)
        body.append(nameBytes)
        body.append(contents)

        central.append(le32: 0x0201_4B50)
        central.append(le16: 20)  // made by: 2.0
        central.append(le16: 20)
        central.append(le16: 0x0800)
        central.append(le16: 0)
        central.append(le16: Self.dosTime)
        central.append(le16: Self.dosDate)
        central.append(le32: crc)
        central.append(le32: UInt32(contents.count))
        central.append(le32: UInt32(contents.count))
        central.append(le16: UInt16(nameBytes.count))
        central.append(le16: 0)  // extra
        central.append(le16: 0)  // comment
        central.append(le16: 0)  // disk
        central.append(le16: 0)  // internal attributes
        central.append(le32: 0)  // external attributes
        central.append(le32: offset)
        central.append(nameBytes)
        count += 1
    }

    /// The whole file: the entries, their directory, and its end record.
    func finished() -> Data {
        var out = body
        out.append(central)
        out.append(le32: 0x0605_4B50)
        out.append(le16: 0)
        out.append(le16: 0)
        out.append(le16: count)
        out.append(le16: count)
        out.append(le32: UInt32(central.count))
        out.append(le32: UInt32(body.count))
        out.append(le16: 0)
        return out
    }
}

/// CRC-32 (IEEE 802.3, reflected), as ZIP entries carry it.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}

extension Data {
    fileprivate mutating func append(le16 value: UInt16) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    fileprivate mutating func append(le32 value: UInt32) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
