import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A read-only, memory-mapped `.safetensors` file.
///
/// Layout: 8-byte little-endian header length `n`, `n` bytes of JSON
/// (`{"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, "__metadata__": {..}}`),
/// then the tensor data; offsets are relative to the first byte after the header.
///
/// `@unchecked Sendable`: the mapping is `PROT_READ` + `MAP_PRIVATE`, created in `init`, never
/// written through and only unmapped in `deinit` (when no one can reference it any more), and the
/// tensor table is immutable; concurrent reads are therefore safe.
public final class SafeTensorsFile: @unchecked Sendable {
    public enum DType: String, Sendable {
        case f64 = "F64", f32 = "F32", f16 = "F16", bf16 = "BF16", f8e4m3 = "F8_E4M3", f8e5m2 = "F8_E5M2"
        case i64 = "I64", i32 = "I32", i16 = "I16", i8 = "I8", u64 = "U64", u32 = "U32", u16 = "U16", u8 = "U8", bool = "BOOL"

        var byteSize: Int {
            switch self {
            case .f64, .i64, .u64: return 8
            case .f32, .i32, .u32: return 4
            case .f16, .bf16, .i16, .u16: return 2
            case .f8e4m3, .f8e5m2, .i8, .u8, .bool: return 1
            }
        }
    }

    public struct TensorInfo: Sendable {
        public let dtype: DType
        public let shape: [Int]
        /// Byte range relative to the start of the data section.
        public let range: Range<Int>
        public var elementCount: Int { shape.reduce(1, *) }
    }

    public let path: String
    public let tensors: [String: TensorInfo]
    /// Tensors whose dtype this reader does not know (name → dtype); they are skipped, not fatal.
    public let skippedTensors: [String: String]
    private let base: UnsafeRawPointer
    private let mappedLength: Int
    private let dataOffset: Int

    public init(path: String) throws {
        self.path = path
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw EmbeddingError.invalidModelFile(path: path, reason: "cannot open (\(String(cString: strerror(errno))))")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw EmbeddingError.invalidModelFile(path: path, reason: "cannot stat")
        }
        let size = Int(st.st_size)
        guard size >= 8 else { throw EmbeddingError.invalidModelFile(path: path, reason: "file too short (\(size) bytes)") }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
            throw EmbeddingError.invalidModelFile(path: path, reason: "mmap failed (\(String(cString: strerror(errno))))")
        }
        let raw = UnsafeRawPointer(mapped)
        var ok = false
        defer { if !ok { munmap(mapped, size) } }

        var headerLength: UInt64 = 0
        for i in 0..<8 { headerLength |= UInt64(raw.load(fromByteOffset: i, as: UInt8.self)) << (8 * UInt64(i)) }
        guard headerLength <= UInt64(size - 8), headerLength <= 100_000_000 else {
            throw EmbeddingError.invalidModelFile(path: path, reason: "header length \(headerLength) exceeds the file")
        }
        let headerData = Data(bytes: raw + 8, count: Int(headerLength))
        guard let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any] else {
            throw EmbeddingError.invalidModelFile(path: path, reason: "header is not a JSON object")
        }
        let dataOffset = 8 + Int(headerLength)
        let dataSize = size - dataOffset
        var tensors: [String: TensorInfo] = [:]
        var skipped: [String: String] = [:]
        for (name, value) in header where name != "__metadata__" {
            guard let entry = value as? [String: Any],
                  let dtypeName = entry["dtype"] as? String,
                  let shape = (entry["shape"] as? [Any])?.compactMap({ ($0 as? NSNumber)?.intValue }),
                  let offsets = (entry["data_offsets"] as? [Any])?.compactMap({ ($0 as? NSNumber)?.intValue }),
                  offsets.count == 2
            else { throw EmbeddingError.invalidModelFile(path: path, reason: "malformed header entry for \(name)") }
            let (begin, end) = (offsets[0], offsets[1])
            guard let dtype = DType(rawValue: dtypeName) else {
                guard begin >= 0, begin <= end, end <= dataSize else {
                    throw EmbeddingError.invalidTensor(name: name, reason: "data offsets \(offsets) outside the \(dataSize) data bytes")
                }
                skipped[name] = dtypeName
                continue
            }
            guard shape.allSatisfy({ $0 >= 0 }), begin >= 0, begin <= end, end <= dataSize,
                  end - begin == shape.reduce(1, *) * dtype.byteSize
            else { throw EmbeddingError.invalidTensor(name: name, reason: "data offsets \(offsets) do not match shape \(shape) / \(dtypeName) within \(dataSize) data bytes") }
            tensors[name] = TensorInfo(dtype: dtype, shape: shape, range: begin..<end)
        }
        self.tensors = tensors
        self.skippedTensors = skipped
        self.base = raw
        self.mappedLength = size
        self.dataOffset = dataOffset
        ok = true
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: base), mappedLength)
    }

    /// Raw bytes of a tensor, valid as long as `self` is alive.
    public func rawBytes(of info: TensorInfo) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + dataOffset + info.range.lowerBound, count: info.range.count)
    }

    /// A pointer to the tensor's floats if it is stored as 4-byte-aligned F32 (zero-copy), else nil.
    public func mappedFloats(_ name: String) -> UnsafePointer<Float>? {
        guard let info = tensors[name], info.dtype == .f32 else { return nil }
        let p = base + dataOffset + info.range.lowerBound
        guard Int(bitPattern: p) % MemoryLayout<Float>.alignment == 0 else { return nil }
        return p.assumingMemoryBound(to: Float.self)
    }

    /// Drops this process's resident copy of a tensor's pages (those wholly inside it), for a
    /// tensor that has been copied and whose mapping is rarely read afterwards. A later read
    /// faults the pages in again, unchanged: the mapping is read-only and private, so nothing was
    /// ever written to it. Does nothing for a tensor this file does not hold.
    public func releaseResidentPages(of name: String) {
        guard let info = tensors[name] else { return }
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = Int(bitPattern: base + dataOffset + info.range.lowerBound)
        let end = start + info.range.count
        let firstPage = (start + pageSize - 1) / pageSize * pageSize
        let lastPage = end / pageSize * pageSize
        guard lastPage > firstPage, let pages = UnsafeMutableRawPointer(bitPattern: firstPage) else { return }
        _ = madvise(pages, lastPage - firstPage, MADV_DONTNEED)
    }

    /// The tensor converted to `[Float]` (F32, F16, BF16, F64 supported).
    public func floats(_ name: String) throws -> [Float] {
        guard let info = tensors[name] else {
            let reason = skippedTensors[name].map { "unsupported dtype \($0)" } ?? "missing from \(path)"
            throw EmbeddingError.invalidTensor(name: name, reason: reason)
        }
        let bytes = rawBytes(of: info)
        let n = info.elementCount
        switch info.dtype {
        case .f32:
            return [Float](unsafeUninitializedCapacity: n) { buf, count in
                UnsafeMutableRawBufferPointer(buf).copyMemory(from: bytes)
                count = n
            }
        case .f16:
            return (0..<n).map { Self.halfToFloat(bytes.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self).littleEndian) }
        case .bf16:
            return (0..<n).map { Float(bitPattern: UInt32(bytes.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self).littleEndian) << 16) }
        case .f64:
            return (0..<n).map { Float(Double(bitPattern: bytes.loadUnaligned(fromByteOffset: 8 * $0, as: UInt64.self).littleEndian)) }
        default:
            throw EmbeddingError.invalidTensor(name: name, reason: "dtype \(info.dtype.rawValue) is not a floating-point type")
        }
    }

    /// IEEE 754 binary16 → binary32, including subnormals, infinities and NaN.
    static func halfToFloat(_ h: UInt16) -> Float {
        let sign = UInt32(h & 0x8000) << 16
        let exponent = Int((h >> 10) & 0x1F)
        let mantissa = UInt32(h & 0x3FF)
        if exponent == 0 {
            if mantissa == 0 { return Float(bitPattern: sign) }
            let value = Float(mantissa) * 0x1p-24  // subnormal: mantissa · 2^-24
            return sign == 0 ? value : -value
        }
        if exponent == 31 { return Float(bitPattern: sign | 0x7F80_0000 | (mantissa << 13)) }
        return Float(bitPattern: sign | (UInt32(exponent - 15 + 127) << 23) | (mantissa << 13))
    }
}
