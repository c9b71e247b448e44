import Foundation

/// Everything that can go wrong while loading or running the MiniLM embedder.
public enum EmbeddingError: Error, CustomStringConvertible, Sendable {
    /// The model directory could not be found; the message says where we looked.
    case modelNotFound(String)
    /// A model file exists but is unreadable or malformed.
    case invalidModelFile(path: String, reason: String)
    /// A tensor the model needs is missing or has an unexpected shape / dtype.
    case invalidTensor(name: String, reason: String)
    /// Raw bytes given to `embed(bytes:strict: true)` were not valid UTF-8.
    case invalidUTF8(byteOffset: Int)
    /// The kernel path asked for (`HEARTH_ENCODER_KERNEL`) is unknown or this CPU cannot run it,
    /// or an x86-64 CPU lacks the floor (AVX2, FMA and F16C); the message says which.
    case unsupportedKernel(String)

    public var description: String {
        switch self {
        case .modelNotFound(let message): return message
        case .invalidModelFile(let path, let reason): return "invalid model file \(path): \(reason)"
        case .invalidTensor(let name, let reason): return "invalid tensor \(name): \(reason)"
        case .invalidUTF8(let offset): return "input is not valid UTF-8 (first bad byte at offset \(offset))"
        case .unsupportedKernel(let message): return message
        }
    }
}
