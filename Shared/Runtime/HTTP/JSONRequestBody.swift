import Foundation
import Hummingbird
import NIOCore

/// Reads a JSON body into a `Decodable`, turning decoding failures into 400s that name the field.
/// Unknown fields are ignored; a body over the context's limit is a 413; a NUL character anywhere
/// in the body is a 400 (see `JSONBodyDiagnosis`).
public enum JSONRequestBody {
    /// For routes whose body is optional: nil when the request carries none (no Content-Length or
    /// 0, and not chunked); a body that is there must be valid.
    public static func decodeIfPresent<T: Decodable>(_ type: T.Type, from request: Request, context: HearthRequestContext) async throws -> T? {
        let hasBody = request.headers[.contentLength].map { $0 != "0" } ?? (request.headers[.transferEncoding] != nil)
        return hasBody ? try await decode(type, from: request, context: context) : nil
    }

    public static func decode<T: Decodable>(_ type: T.Type, from request: Request, context: HearthRequestContext) async throws -> T {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: context.maxUploadSize)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, code: "payload_too_large", message: "the body is larger than \(context.maxUploadSize) bytes")
        } catch {
            // A broken chunked encoding or a client gone mid-body: the body never arrived whole.
            throw APIError.invalid("body", "the body could not be read: \(error)")
        }
        guard buffer.readableBytes > 0 else {
            throw APIError.invalid("body", "a JSON object is required")
        }
        let body = Data(buffer: buffer)
        let decoded: T
        do {
            decoded = try JSONDecoder().decode(T.self, from: body)
        } catch let error as DecodingError {
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty,
               let field = JSONBodyDiagnosis.pathOfNonIntegerNumber(in: body) {
                throw APIError.invalid(field, "\(field) must be a whole number between -2^63 and 2^63-1")
            }
            throw describe(error)
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError.invalid("body", "the body is not valid JSON")
        }
        if let field = JSONBodyDiagnosis.pathOfNULCharacter(in: body) {
            throw APIError.invalid(field, "\(field) must not contain the NUL character (\\u0000)")
        }
        return decoded
    }

    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }

    /// The field a value error names: the body itself when the value is the whole body.
    private static func fieldName(_ codingPath: [any CodingKey]) -> String {
        let field = path(codingPath)
        return field.isEmpty ? "body" : field
    }

    static func describe(_ error: DecodingError) -> APIError {
        switch error {
        case .keyNotFound(let key, let context):
            let field = path(context.codingPath + [key])
            return .invalid(field, "\(field) is required")
        case .typeMismatch(let type, let context):
            let field = fieldName(context.codingPath)
            return .invalid(field, "\(field) must be \(expected(type))")
        case .valueNotFound(let type, let context):
            let field = fieldName(context.codingPath)
            return .invalid(field, "\(field) must be \(expected(type)), not null")
        case .dataCorrupted(let context):
            let field = path(context.codingPath)
            if field.isEmpty { return .invalid("body", "the body is not valid JSON") }
            return .invalid(field, "\(field): \(context.debugDescription)")
        @unknown default:
            return .invalid("body", "the body could not be read")
        }
    }

    static func expected(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int32.Type, is Int64.Type: "a whole number"
        case is Double.Type, is Float.Type: "a number"
        case is Bool.Type: "true or false"
        case is UUID.Type: "a UUID"
        default:
            String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }
}
