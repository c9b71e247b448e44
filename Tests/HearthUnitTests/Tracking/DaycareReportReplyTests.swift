import Foundation
import HearthDomain
import Testing

/// A model's reading of a daycare sheet: kept only where it is well-formed and every time it gives
/// is written on the sheet.
@Suite struct DaycareReportReplyTests {
    static let sheet = """
        Daily report - Robins room
        Bottle 4 oz 8:15
        Nap 12:30-2:05
        Diaper BM 11:20
        Lunch at 11.45am sweet potato
        """

    static func log(_ kind: String, _ start: String, end: String? = nil, amount: Double? = nil, details: String = "x", line: Int = 2) -> String {
        let endText = end.map { "\"\($0)\"" } ?? "null"
        let amountText = amount.map { "\($0)" } ?? "null"
        return #"{"kind":"\#(kind)","start":"\#(start)","end":\#(endText),"amount_ml":\#(amountText),"details":"\#(details)","line":\#(line)}"#
    }

    static func reply(_ logs: [String]) -> String { #"{"logs":["# + logs.joined(separator: ",") + "]}" }

    @Test func wellFormedLogsOnTheSheetAreKeptInTimeOrder() throws {
        let text = Self.reply([
            Self.log("nap", "12:30", end: "14:05", details: "Nap", line: 3),
            Self.log("feed", "08:15", amount: 118.29, details: "Bottle 4 oz", line: 2),
            Self.log("diaper", "11:20", details: "BM", line: 4),
            Self.log("solids", "11:45", details: "sweet potato", line: 5),
        ])
        let reply = try DaycareReportReply.parse("```json\n\(text)\n```", source: Self.sheet)
        #expect(reply.dropped.isEmpty)
        #expect(reply.logs.map(\.start) == [495, 680, 705, 750])
        #expect(reply.logs[0] == SuggestedLog(kind: .feed, start: 495, amountMl: 118.3, details: "Bottle 4 oz", line: 2))
        #expect(reply.logs[1].details == "dirty", "a diaper's details are wet, dirty or both")
        #expect(reply.logs[3].end == 845, "2:05 on a sheet is 14:05")
    }

    @Test func logsThatAreMalformedOrNotOnTheSheetAreDroppedWithTheirReason() throws {
        let reply = try DaycareReportReply.parse(Self.reply([
            Self.log("feed", "09:40", amount: 120, details: "invented bottle"),   // 9:40 is nowhere on the sheet
            Self.log("bath", "08:15"),                                            // not a kind
            Self.log("nap", "12:30", end: "12:00", line: 3),                      // ends before it starts
            Self.log("feed", "8:15", amount: 900),                                // no bottle holds 900 ml
            Self.log("feed", "08:15", amount: 118, line: 40),                     // no such line
            Self.log("feed", "8.15"),                                             // not HH:mm
            #"{"kind":"note","start":"08:15","end":null,"amount_ml":null,"details":"x","line":2,"mood":"happy"}"#,
            Self.log("feed", "08:15", amount: 118, details: "Bottle 4 oz"),
        ]), source: Self.sheet)
        #expect(reply.logs.count == 1)
        #expect(reply.dropped.map(\.index) == [0, 1, 2, 3, 4, 5, 6])
        #expect(reply.dropped[0].reason == "a time the report does not give")
        #expect(reply.dropped[2].reason == "end must be after start")
        #expect(reply.dropped[4].reason == "line must be a line of the report")
    }

    @Test func aReplyThatIsNotTheJSONAskedForIsRefusedWhole() {
        #expect(throws: DaycareReportReplyError.notJSON) { try DaycareReportReply.parse("Sure! Here are the logs: nap at 12:30", source: Self.sheet) }
        #expect(throws: DaycareReportReplyError.notMatchingSchema("the reply must have exactly the key logs")) {
            try DaycareReportReply.parse(#"{"entries":[]}"#, source: Self.sheet)
        }
        #expect(throws: DaycareReportReplyError.notMatchingSchema("logs must be an array")) { try DaycareReportReply.parse(#"{"logs":{}}"#, source: Self.sheet) }
        let tooMany = Self.reply(Array(repeating: Self.log("feed", "08:15"), count: DaycareReportSchema.maxLogs + 1))
        #expect(throws: DaycareReportReplyError.self) { try DaycareReportReply.parse(tooMany, source: Self.sheet) }
    }

    @Test func thePromptNumbersTheLinesTheSchemaNamesEveryKind() throws {
        let prompt = DaycareReportSchema.prompt("a\nb", format: .text)
        #expect(prompt.contains("1: a\n2: b\n"))
        #expect(DaycareReportSchema.systemPrompt.contains("\"medication\""))
        #expect(!DaycareReportSchema.systemPrompt.contains("Maya"))
    }
}
