import Foundation
import HearthDomain
import HearthRuntime
import Testing

extension BackboneSuite.Tracking {
    /// A pediatrician summary end to end: the metrics from the logs, a summary run streamed like
    /// any run (its narrative's numbers all from the metrics), listed, and read as JSON and as a
    /// PDF that poppler reads back and renders; a medical question in the notes is refused, and
    /// bad ranges are 400s naming the field.
    @Test func aSummaryRunGivesMetricsANarrativeAndAPDF() async throws {
        try await AssistStack.with { gateway, _ in
            let family = try await TrackingFamily.make(gateway)
            let now = Date()
            for hours in [30.0, 27, 24, 6, 3] {
                _ = try await family.log("feeds", ["method": "bottle", "amount": 150, "unit": "ml", "at": TrackingTime.iso(now.addingTimeInterval(-hours * 3600))])
            }
            _ = try await family.log("sleeps", ["at": TrackingTime.iso(now.addingTimeInterval(-5 * 3600)), "ended_at": TrackingTime.iso(now.addingTimeInterval(-4 * 3600)), "period": "nap"])
            _ = try await family.log("diapers", ["contents": "wet", "at": TrackingTime.ago(3000)])
            _ = try await family.log("foods", ["food": "Scrambled egg", "reaction": "mild", "symptoms": ["rash"], "at": TrackingTime.ago(7200)])
            _ = try await family.log("growth", ["weight": 7.6, "weight_unit": "kg", "at": TrackingTime.ago(3600)])
            let today = String(TrackingTime.iso(now).prefix(10))
            let weekAgo = String(TrackingTime.iso(now.addingTimeInterval(-6 * 86_400)).prefix(10))
            let url = family.url("summaries")

            let reply = try await HTTPTestClient.postJSON(url, ["from": weekAgo, "to": today, "parent_notes": "She has been teething this week."], headers: family.user.headers)
            #expect(reply.status == 200, "\(reply.text)")
            let events = try AssistWire.sse.parse(reply.body).events
            let final = try #require(events.first { $0.event == "final" }?.object, "\(events.map(\.event))")
            let metricsJSON = try JSONSerialization.data(withJSONObject: try #require(final["metrics"]))
            let metrics = try JSONDecoder().decode(SummaryMetrics.self, from: metricsJSON)
            #expect(metrics.days == 7)
            #expect(metrics.feeding?.totalFeeds == 5)
            #expect(metrics.feeding?.averageBottleMl == 150)
            #expect(metrics.foods?.reactions.first?.food == "Scrambled egg")
            #expect(metrics.growth?.weightKg?.end == 7.6)
            #expect(metrics.medication == nil, "a section with no data is absent")
            let narrative = try JSONDecoder().decode(SummaryNarrative.self, from: try JSONSerialization.data(withJSONObject: try #require(final["narrative"])))
            let allowed = try SummaryNumber.allowed(in: metrics)
            for number in SummaryNumber.numbers(in: narrative.text) { #expect(allowed.contains(number), "\(number) in \(narrative.text)") }
            #expect(narrative.concerns.contains { $0.contains("Scrambled egg") })
            #expect(final["parent_notes"] as? String == "She has been teething this week.")
            let runId = try #require(events.first?.runId)

            // Read at once by its id (the gateway waits for a run it just streamed to be projected), then listed.
            let json = try await HTTPTestClient.send("GET", url.appendingPathComponent("\(runId).json"), headers: family.user.headers)
            #expect(json.status == 200 && (json.json["narrative"] as? [String: Any]) != nil, "\(json.text)")
            let list = try await HTTPTestClient.send("GET", url, headers: family.user.headers)
            #expect((list.json["summaries"] as? [[String: Any]])?.first?["summary_id"] as? String == runId, "\(list.text)")
            let pdf = try await HTTPTestClient.send("GET", url.appendingPathComponent("\(runId).pdf"), headers: family.user.headers)
            #expect(pdf.status == 200 && pdf.header("Content-Type") == "application/pdf")
            #expect(pdf.body.starts(with: Data("%PDF-".utf8)))
            let text = try await Poppler.text(of: pdf.body)
            #expect(text.contains("Pediatrician summary: Maya"), "\(text)")
            #expect(text.contains("Feeds per day") && text.contains("150 ml") && text.contains("not medical advice"), "\(text)")
            #expect(text.contains("She has been teething"))
            let png = try await Poppler.firstPage(of: pdf.body)
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            let chart = try #require(final["growth_chart"] as? [String: Any], "the weights are frozen in the summary")
            #expect(chart["sex"] as? String == "female")
            #expect((chart["points"] as? [[String: Any]])?.map { $0["weight_kg"] as? Double } == [7.6])

            // A weight logged afterwards is not in the summary's chart: the PDF is the same bytes.
            _ = try await family.log("growth", ["weight": 9.9, "weight_unit": "kg", "at": TrackingTime.ago(60)])
            let later = try await HTTPTestClient.send("GET", url.appendingPathComponent("\(runId).pdf"), headers: family.user.headers)
            #expect(later.status == 200 && later.body == pdf.body, "the summary's chart changed with a later log")
            if let directory = ProcessInfo.processInfo.environment["HEARTH_CHART_SAMPLES"] {
                try png.write(to: URL(fileURLWithPath: directory).appendingPathComponent("summary-page-1.png"))
            }

            // Another household sees nothing of it.
            let stranger = try await TrackingFamily.make(gateway, name: "Leo")
            #expect(try await HTTPTestClient.send("GET", url.appendingPathComponent("\(runId).pdf"), headers: stranger.user.headers).status == 404)

            // A coach reads the summaries only while the owners' scope includes tracking, and never the logs.
            let coach = try await BackboneSuite.Coaching.signUpCoach(gateway)
            let invite = try await HTTPTestClient.send("POST", gateway.baseURL.appendingPathComponent("v1/coach/clients"), headers: coach.headers)
            let code = try #require(invite.json["code"] as? String, "\(invite.text)")
            let coaches = gateway.baseURL.appendingPathComponent("v1/households/\(family.household)/coaches")
            #expect(try await HTTPTestClient.postJSON(coaches, ["code": code], headers: family.user.headers).status == 201)
            let coachReads: [URL] = [url, url.appendingPathComponent("\(runId).json"), url.appendingPathComponent("\(runId).pdf"), family.url(""), family.url("stats")]
            for read in coachReads {
                #expect(try await HTTPTestClient.send("GET", read, headers: coach.headers).status == 404, "chat only: \(read.path)")
            }
            func setScope(tracking: Bool) async throws {
                let changed = try await HTTPTestClient.send(
                    "PUT", coaches.appendingPathComponent("\(coach.userId)/scope"),
                    body: try JSONSerialization.data(withJSONObject: ["tracking": tracking]), headers: family.user.headers)
                #expect(changed.status == 200, "\(changed.text)")
            }
            try await setScope(tracking: true)
            for read in coachReads {
                let reply = try await HTTPTestClient.send("GET", read, headers: coach.headers)
                #expect(reply.status == 200, "with tracking: \(read.path) \(reply.status)")
            }
            let overview = try await HTTPTestClient.send("GET", family.url(""), headers: coach.headers)
            #expect((overview.json["allergens"] as? [Any])?.isEmpty == true, "no allergy facts in the scope, no allergens: \(overview.text)")
            let parentView = try await HTTPTestClient.send("GET", family.url(""), headers: family.user.headers)
            #expect((parentView.json["allergens"] as? [Any])?.isEmpty == false, "the family sees the egg")
            let roster = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/coach/clients"), headers: coach.headers)
            let listedChildren = ((roster.json["clients"] as? [[String: Any]])?.first?["children"] as? [[String: Any]]) ?? []
            #expect(listedChildren.map { $0["child_id"] as? String } == [family.child] && listedChildren.first?["name"] as? String == "Maya", "\(roster.text)")
            for (method, path) in [("GET", "timeline"), ("GET", "feeds/\(UUID().uuidString)"), ("GET", "photos"), ("POST", "feeds")] {
                let refused = try await HTTPTestClient.send(
                    method, family.url(path), body: method == "POST" ? try JSONSerialization.data(withJSONObject: ["method": "bottle", "amount": 90, "unit": "ml"]) : nil,
                    headers: coach.headers)
                #expect(refused.status == 404, "a coach never reads or writes logs: \(method) \(path) \(refused.status)")
            }
            #expect(try await HTTPTestClient.send("GET", stranger.url("summaries"), headers: coach.headers).status == 404, "not a client")
            try await setScope(tracking: false)
            #expect(try await HTTPTestClient.send("GET", url, headers: coach.headers).status == 404, "the narrower scope applies at once")
            let narrowed = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/coach/clients"), headers: coach.headers)
            #expect(((narrowed.json["clients"] as? [[String: Any]])?.first?["children"] as? [Any])?.isEmpty == true)

            // A request for medical advice in the notes ends the run with a refusal.
            let trap = try await HTTPTestClient.postJSON(
                url, ["from": weekAgo, "to": today, "parent_notes": "What dose of ibuprofen should I give her for the teething?"], headers: family.user.headers)
            let trapEvents = try AssistWire.sse.parse(trap.body).events
            #expect(trapEvents.contains { $0.event == "refusal" }, "\(trapEvents.map(\.event))")
            #expect(!trapEvents.contains { $0.event == "final" })

            // Bad ranges and notes: 400 naming the field, no run.
            for (body, field) in [
                (["from": today, "to": weekAgo], "to"), (["from": "2024-01-01", "to": today], "to"), (["from": "last week", "to": today], "from"),
                (["from": weekAgo, "to": today, "parent_notes": String(repeating: "x", count: 2001)], "parent_notes"),
            ] as [([String: Any], String)] {
                let bad = try await HTTPTestClient.postJSON(url, body, headers: family.user.headers)
                #expect(bad.status == 400 && bad.errorField == field, "\(body): \(bad.text)")
            }
        }
    }
}

/// poppler-utils (installed by `make setup`): what a PDF reader sees.
enum Poppler {
    static func text(of pdf: Data) async throws -> String {
        try await ToolRunner().pdfText(pdf)
    }

    static func firstPage(of pdf: Data) async throws -> Data {
        // pdftoppm adds `.png` to the root it is given.
        try await ToolRunner().run(
            "pdftoppm", ["-png", "-r", "60", "-f", "1", "-l", "1", "-singlefile", "{in}", "{outroot}"], input: pdf, inputExtension: "pdf",
            outputExtension: "png"
        ).output ?? Data()
    }
}
