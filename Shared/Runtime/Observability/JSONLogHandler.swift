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

    public func log(event: LogEvent) {
        FileHandle.standardError.write(Data((line(for: event, at: Date()) + "\n").utf8))
    }

    /// The line `event` is written as. An error given with the event goes in as `error`, unless
    /// the metadata already names one.
    func line(for event: LogEvent, at date: Date) -> String {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let explicit = event.metadata { merged.merge(explicit) { _, new in new } }
        if let error = event.error, merged["error"] == nil { merged["error"] = "\(String(reflecting: error))" }
        let time = Timestamp.format(date)
        switch format {
        case .json:
            var fields: [String: String] = [
                "time": time, "level": event.level.rawValue, "service": service, "logger": label, "message": event.message.description,
            ]
            for (key, value) in merged { fields[key] = Self.flatten(value) }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return (try? String(decoding: encoder.encode(fields), as: UTF8.self)) ?? event.message.description
        case .text:
            let rendered = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.flatten($0.value))" }.joined(separator: " ")
            return "\(time) \(event.level.rawValue.uppercased()) \(service) \(event.message) \(rendered)"
        }
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
