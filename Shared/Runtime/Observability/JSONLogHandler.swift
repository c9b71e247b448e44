import Foundation
import HearthEvents
import Logging

public enum LogFormat: String, Sendable { case json, text }

/// One JSON object per line on stderr: time, level, service, message and all metadata
/// (request_id, correlation_id, ...), so logs can be grepped and shipped as they are.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let service: String
    private let format: LogFormat

    public init(label: String, service: String, level: Logger.Level, format: LogFormat) {
        self.label = label
        self.service = service
        self.logLevel = level
        self.format = format
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(
        level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?,
        source: String, file: String, function: String, line: UInt
    ) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let explicit { merged.merge(explicit) { _, new in new } }
        let time = Timestamp.format(Date())
        let text: String
        switch format {
        case .json:
            var fields: [String: String] = ["time": time, "level": level.rawValue, "service": service, "logger": label, "message": message.description]
            for (key, value) in merged { fields[key] = Self.flatten(value) }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            text = (try? String(decoding: encoder.encode(fields), as: UTF8.self)) ?? message.description
        case .text:
            let rendered = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.flatten($0.value))" }.joined(separator: " ")
            text = "\(time) \(level.rawValue.uppercased()) \(service) \(message) \(rendered)"
        }
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func flatten(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): "[" + values.map(flatten).joined(separator: ",") + "]"
        case .dictionary(let values): "{" + values.sorted { $0.key < $1.key }.map { "\($0.key)=\(flatten($0.value))" }.joined(separator: ",") + "}"
        }
    }
}

public enum LoggingSetup {
    /// Call once per process, before any logger is made.
    public static func bootstrap(service: String, level: Logger.Level, format: LogFormat) {
        LoggingSystem.bootstrap { label in
            JSONLogHandler(label: label, service: service, level: level, format: format)
        }
    }
}
