import Foundation
@testable import HearthRuntime
import Logging
import Testing

@Suite struct JSONLogHandlerTests {
    struct Refused: Error {}
    static let date = Date(timeIntervalSince1970: 1_700_000_000)

    func fields(_ line: String) throws -> [String: String] {
        try JSONDecoder().decode([String: String].self, from: Data(line.utf8))
    }

    @Test func aLineHoldsTheEventTheHandlersAndTheCallsMetadata() throws {
        var handler = JSONLogHandler(label: "hearth.gateway", service: "gateway", level: .info, format: .json)
        handler[metadataKey: "request_id"] = "r-1"
        handler[metadataKey: "shared"] = "handler"
        let event = LogEvent(
            level: .warning, message: "slow", metadata: ["shared": "call", "count": .stringConvertible(3)],
            source: "Gateway", file: #fileID, function: #function, line: #line)
        let line = try fields(handler.line(for: event, at: Self.date))
        #expect(line == [
            "time": "2023-11-14T22:13:20.000Z", "level": "warning", "service": "gateway", "logger": "hearth.gateway",
            "message": "slow", "request_id": "r-1", "shared": "call", "count": "3",
        ])
    }

    @Test func anErrorGivenWithTheEventIsLoggedUnlessTheMetadataNamesOne() throws {
        let handler = JSONLogHandler(label: "l", service: "s", level: .info, format: .json)
        let failed = LogEvent(level: .error, message: "failed", error: Refused(), metadata: nil, source: nil, file: #fileID, function: #function, line: #line)
        #expect(try fields(handler.line(for: failed, at: Self.date))["error"]?.contains("Refused") == true)
        let named = LogEvent(level: .error, message: "failed", error: Refused(), metadata: ["error": "timeout"], source: nil, file: #fileID, function: #function, line: #line)
        #expect(try fields(handler.line(for: named, at: Self.date))["error"] == "timeout")
    }

    @Test func theTextFormatIsOneReadableLine() {
        let handler = JSONLogHandler(label: "l", service: "notifier", level: .info, format: .text)
        let event = LogEvent(level: .info, message: "sent", metadata: ["b": "2", "a": "1"], source: nil, file: #fileID, function: #function, line: #line)
        #expect(handler.line(for: event, at: Self.date) == "2023-11-14T22:13:20.000Z INFO notifier sent a=1 b=2")
    }
}
