import CZlib
import Foundation

/// gzip (RFC 1952) by zlib: the activity packs' wire format, which every HTTP client and the
/// seed's iOS app can read.
enum Gzip {
    struct Failure: Error, CustomStringConvertible {
        let code: Int32
        var description: String { "zlib failed with \(code)" }
    }

    /// `data`, compressed at zlib's best level. Deterministic: the same bytes in give the same
    /// bytes out (no file name or time in the header), so a pack's hash names its content.
    static func compress(_ data: Data) throws -> Data {
        var stream = z_stream()
        // 15 bits of window, +16: a gzip header and trailer instead of zlib's.
        var status = deflateInit2_(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw Failure(code: status) }
        defer { deflateEnd(&stream) }
        var output = Data(count: Int(deflateBound(&stream, uLong(data.count))) + 32)
        var input = data
        let written: Int = try input.withUnsafeMutableBytes { (source: UnsafeMutableRawBufferPointer) in
            try output.withUnsafeMutableBytes { (target: UnsafeMutableRawBufferPointer) in
                stream.next_in = source.bindMemory(to: Bytef.self).baseAddress
                stream.avail_in = uInt(source.count)
                stream.next_out = target.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(target.count)
                status = deflate(&stream, Z_FINISH)
                guard status == Z_STREAM_END else { throw Failure(code: status) }
                return target.count - Int(stream.avail_out)
            }
        }
        return output.prefix(written)
    }
}
