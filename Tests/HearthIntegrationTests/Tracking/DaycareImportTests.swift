import Foundation
@testable import HearthCtlCommands
import HearthDomain
import Testing

extension BackboneSuite.Tracking {
    /// Daycare reports end to end: the sample sheets as text, CSV, JSON, a PDF (written by Hearth's
    /// PDF writer, read by pdftotext) and a photo (rendered by libvips, read by tesseract) become
    /// the expected suggestions; conflicts with the child's logs are shown; suggestions are dropped
    /// and edited; the commit writes the kept ones as logs once; bad files are clear 4xx.
    @Test func aDaycareReportBecomesSuggestionsWithConflictsAndCommitsOnce() async throws {
        try await ServiceProcess.with("gateway") { gateway in
            let family = try await TrackingFamily.make(gateway, birthdate: "2025-09-01")
            let yesterday = String(TrackingTime.iso(Date().addingTimeInterval(-86_400)).prefix(10))
            func at(_ clock: String) -> String { "\(yesterday)T\(clock):00Z" }
            // Already logged by the parents: a sleep over the daycare's afternoon nap, and a bottle 5 minutes after its 11:00 one.
            let sleep = try await family.log("sleeps", ["at": at("12:45"), "ended_at": at("13:30"), "period": "nap"])
            let bottle = try await family.log("feeds", ["method": "bottle", "amount": 100, "unit": "ml", "at": at("11:05")])

            func upload(_ data: Data, type: String, name: String, day: String? = nil) async throws -> HTTPTestClient.Reply {
                try await HTTPTestClient.send(
                    "POST", family.url("imports", ["day": day ?? yesterday, "filename": name]), body: data, headers: family.user.headers(["Content-Type": type]))
            }
            func suggestions(_ reply: HTTPTestClient.Reply) -> [[String: Any]] { reply.json["suggestions"] as? [[String: Any]] ?? [] }
            func kindsAndStarts(_ items: [[String: Any]]) -> [String] { items.map { "\($0["kind"] as? String ?? "?")@\($0["start"] as? String ?? "?")" } }

            // Text, CSV and JSON: exactly the expected suggestions.
            for (name, type) in [("01_plain.txt", "text/plain"), ("04_sheet.csv", "text/csv"), ("06_entries.json", "application/json")] {
                let reply = try await upload(try DaycareSheet.data(name), type: type, name: name)
                #expect(reply.status == 201, "\(name): \(reply.text)")
                let expected = try DaycareSheet.expected(name)
                #expect(kindsAndStarts(suggestions(reply)) == expected, "\(name)")
                #expect(reply.json["parser"] as? String == "rules")
            }

            // Conflicts of the first sheet with what the parents logged.
            let plain = try await upload(try DaycareSheet.data("01_plain.txt"), type: "text/plain", name: "01_plain.txt")
            let importId = try #require(plain.json["import_id"] as? String)
            let items = suggestions(plain)
            let nap = try #require(items.first { $0["kind"] as? String == "nap" && $0["start"] as? String == "12:30" })
            #expect((nap["conflicts"] as? [[String: Any]])?.contains { $0["code"] as? String == "overlapping_sleep" && $0["log_id"] as? String == sleep["log_id"] as? String } == true, "\(nap)")
            let elevenBottle = try #require(items.first { $0["kind"] as? String == "feed" && $0["start"] as? String == "11:00" })
            #expect((elevenBottle["conflicts"] as? [[String: Any]])?.contains { $0["code"] as? String == "possible_duplicate" && $0["log_id"] as? String == bottle["log_id"] as? String } == true)

            // The parent drops the duplicate bottle and corrects another amount.
            let dropIndex = try #require(elevenBottle["index"] as? Int)
            let dropped = try await family.send("PATCH", "imports/\(importId)/suggestions/\(dropIndex)", ["keep": false])
            #expect(dropped.status == 200, "\(dropped.text)")
            let firstBottle = try #require(items.first { $0["kind"] as? String == "feed" && $0["start"] as? String == "08:15" })
            let edited = try await family.send("PATCH", "imports/\(importId)/suggestions/\(firstBottle["index"] as? Int ?? -1)", ["amount_ml": 125])
            #expect(suggestions(edited).first { $0["index"] as? Int == firstBottle["index"] as? Int }?["amount_ml"] as? Double == 125)
            #expect(try await family.send("PATCH", "imports/\(importId)/suggestions/\(dropIndex)", ["start": "25:00"]).errorField == "start")
            #expect(try await family.send("PATCH", "imports/\(importId)/suggestions/999", ["keep": false]).status == 404)

            // Commit: the kept suggestions become logs, marked as the import's; the nap over the parents' sleep is skipped.
            let before = try await family.timeline(["from": yesterday, "limit": "200"]).count
            let committed = try await family.send("POST", "imports/\(importId)/commit")
            #expect(committed.status == 200 && committed.json["committed"] as? Bool == true, "\(committed.text)")
            let skipped = committed.json["skipped"] as? [[String: Any]] ?? []
            #expect(skipped.contains { $0["index"] as? Int == nap["index"] as? Int })
            let logs = try await family.timeline(["from": yesterday, "limit": "200"])
            let imported = logs.filter { $0["import_id"] as? String == importId }
            let expectedLogs = items.filter { !["note"].contains($0["kind"] as? String) }.count - 2  // the dropped bottle, the skipped nap
            #expect(imported.count == expectedLogs, "\(imported.count) of \(items.count)")
            #expect(imported.allSatisfy { $0["source"] as? String == "daycare_import" })
            #expect(imported.contains { $0["kind"] as? String == "feed" && $0["amount_ml"] as? Double == 125 })
            #expect(logs.count == before + imported.count)
            // A second commit is a no-op; changes after it are refused.
            let again = try await family.send("POST", "imports/\(importId)/commit")
            #expect(again.status == 200 && again.json["committed"] as? Bool == true)
            #expect(try await family.timeline(["from": yesterday, "limit": "200"]).count == logs.count)
            #expect(try await family.send("PATCH", "imports/\(importId)/suggestions/0", ["keep": false]).status == 409)

            // A PDF of a printed sheet (pdftotext) and a photo of one (tesseract).
            let pdf = try await upload(ImportEval.printedPDF(try DaycareSheet.text("08_printed.txt")), type: "application/pdf", name: "08.pdf")
            #expect(pdf.status == 201, "\(pdf.text)")
            let expectedPDF = try DaycareSheet.expected("08_printed.txt")
            #expect(kindsAndStarts(suggestions(pdf)) == expectedPDF)
            let photo = try await upload(try await ImportEval.photo(of: try DaycareSheet.text("09_printed.txt")), type: "image/png", name: "09.png")
            #expect(photo.status == 201, "\(photo.text)")
            let read = Set(kindsAndStarts(suggestions(photo)))
            let wanted = Set(try DaycareSheet.expected("09_printed.txt"))
            #expect(Double(read.intersection(wanted).count) >= 0.9 * Double(wanted.count), "OCR read \(read.sorted()) for \(wanted.sorted())")

            // Bad files: a clear 4xx naming the body, nothing stored.
            #expect(try await upload(Data(), type: "text/plain", name: "empty.txt").status == 400)
            var heic = Data([0, 0, 0, 0x18]) + Data("ftypheic".utf8)
            heic.append(Data(repeating: 0, count: 32))
            #expect(try await upload(heic, type: "image/heic", name: "x.heic").status == 415)
            #expect(try await upload(Data([0x00, 0x01, 0xFE, 0xFF, 0x00]), type: "application/octet-stream", name: "x.bin").status == 415)
            #expect(try await upload(Data("Had a lovely day, no times to report.".utf8), type: "text/plain", name: "x.txt").status == 422)
            #expect(try await upload(Data("%PDF-1.7\ngarbage".utf8), type: "application/pdf", name: "x.pdf").status == 400)
            #expect(try await upload(try TrackingImages.make("blank.png"), type: "image/png", name: "blank.png").status == 422)
            let tomorrow = String(TrackingTime.iso(Date().addingTimeInterval(2 * 86_400)).prefix(10))
            #expect(try await upload(try DaycareSheet.data("01_plain.txt"), type: "text/plain", name: "x.txt", day: tomorrow).errorField == "day")
            let stranger = try await TrackingFamily.make(gateway, name: "Leo")
            #expect(try await HTTPTestClient.send("GET", family.url("imports/\(importId)"), headers: stranger.user.headers).status == 404)
        }
    }
}

extension BackboneSuite.Tracking {
    /// `HEARTH_DAYCARE_IMPORT_PARSER=model` against a local fake of OpenAI's API: the model's
    /// reading becomes the suggestions (a log at a time the sheet never gives is dropped), a reply
    /// that is not the JSON asked for falls back to the rules, and the imports rebuild from their
    /// events alone.
    @Test func aModelConfiguredImportReadsTheSheetWithTheModelAndTheRulesBehindIt() async throws {
        func log(_ kind: String, _ start: String, _ end: String?, _ amount: Double?, _ details: String, _ line: Int) -> String {
            #"{"kind":"\#(kind)","start":"\#(start)","end":\#(end.map { "\"\($0)\"" } ?? "null"),"amount_ml":\#(amount.map { "\($0)" } ?? "null"),"details":"\#(details)","line":\#(line)}"#
        }
        let logs = [
            log("feed", "08:15", nil, 118, "Bottle 4 oz", 6), log("nap", "09:30", "10:45", nil, "Nap", 8),
            log("diaper", "11:20", nil, nil, "BM", 10), log("nap", "12:30", "14:05", nil, "Nap", 12),
            log("feed", "16:40", nil, 150, "Bottle", 14),  // no 4:40 on the sheet: dropped
        ]
        let reply = #"{"logs":["# + logs.joined(separator: ",") + "]}"
        let server = FakeModelServer(["/v1/chat/completions": [
            .stream(ModelWire.openAI([reply], prompt: 600, completion: 200)),
            .stream(ModelWire.openAI(["I could not read this sheet, sorry."], prompt: 600, completion: 10)),
        ]])
        try await server.serve { base, _ in
            let environment = [
                "HEARTH_DAYCARE_IMPORT_PARSER": "model", "HEARTH_MODEL_CHAIN_EXTRACTION": "openai:gpt-4o-mini",
                "HEARTH_OPENAI_API_KEY": "sk-test-import", "HEARTH_OPENAI_BASE_URL": base,
            ]
            try await ServiceProcess.with("gateway", environment: environment) { gateway in
                let family = try await TrackingFamily.make(gateway, birthdate: "2025-09-01")
                let yesterday = String(TrackingTime.iso(Date().addingTimeInterval(-86_400)).prefix(10))
                func upload() async throws -> HTTPTestClient.Reply {
                    try await HTTPTestClient.send(
                        "POST", family.url("imports", ["day": yesterday, "filename": "01_plain.txt"]), body: try DaycareSheet.data("01_plain.txt"),
                        headers: family.user.headers(["Content-Type": "text/plain"]))
                }
                let byModel = try await upload()
                #expect(byModel.status == 201, "\(byModel.text)")
                #expect(byModel.json["parser"] as? String == "openai:gpt-4o-mini")
                let items = byModel.json["suggestions"] as? [[String: Any]] ?? []
                #expect(items.map { "\($0["kind"] as? String ?? "?")@\($0["start"] as? String ?? "?")" } == ["feed@08:15", "nap@09:30", "diaper@11:20", "nap@12:30"])
                #expect(items.first { $0["start"] as? String == "12:30" }?["end"] as? String == "14:05")
                #expect(items.first { $0["kind"] as? String == "diaper" }?["details"] as? String == "dirty")

                let byRules = try await upload()
                #expect(byRules.status == 201, "\(byRules.text)")
                #expect(byRules.json["parser"] as? String == "rules", "an unusable reply falls back to the rules")
                #expect((byRules.json["suggestions"] as? [Any])?.count == (try DaycareSheet.expected("01_plain.txt")).count)

                let importId = try #require(byModel.json["import_id"] as? String)
                #expect(try await family.send("GET", "imports/\(importId)").json["parser"] as? String == "openai:gpt-4o-mini")
            }
        }
        let requests = await server.requests(to: "/v1/chat/completions")
        #expect(requests.count == 2)
        #expect(requests.allSatisfy { $0.headers["authorization"] == "Bearer sk-test-import" })
        #expect(requests.first.map { ($0.body["response_format"] as? String)?.contains("daycare_logs") == true } == true)
        #expect(requests.first.map { "\($0.body)".contains("Bottle 5 oz 11:00") } == true, "the sheet is in the prompt")

        // The model's reading is in the events: a rebuild gives the same tables without it.
        let replay = try await CommandLineTool.run(["replay", "tracking_logs"])
        #expect(replay.status == 0 && replay.output.contains("identical"), "\(replay.output)\n\(replay.errors)")
    }
}

/// The sample daycare sheets of the parser's unit tests, and their expected suggestions.
enum DaycareSheet {
    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("HearthUnitTests/Tracking/DaycareSheets")
    }

    static func data(_ name: String) throws -> Data { try Data(contentsOf: directory.appendingPathComponent(name)) }

    static func text(_ name: String) throws -> String { String(decoding: try data(name), as: UTF8.self) }

    /// `kind@HH:MM` of each expected suggestion.
    static func expected(_ name: String) throws -> [String] {
        let stem = (name as NSString).deletingPathExtension
        let items = try JSONDecoder().decode([SuggestedLog].self, from: try data("\(stem).expected.json"))
        return items.map { "\($0.kind.rawValue)@\(SuggestedLog.clock($0.start))" }
    }
}
