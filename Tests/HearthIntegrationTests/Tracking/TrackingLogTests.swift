import Foundation
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif

extension BackboneSuite {
    /// Baby tracking over HTTP through Kafka: every kind of log created (and a retry answered as
    /// the same log), read, edited (and a stale edit refused), deleted; bad input refused naming
    /// its field with nothing stored; photos; sync by the log's own time and a changes cursor.
    @Suite struct Tracking {
        @Test func everyKindIsLoggedEditedAndDeletedAndARetryIsTheSameLog() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let family = try await TrackingFamily.make(gateway)
                let cases: [(kind: String, body: [String: Any], patch: [String: Any], check: (String, Any?))] = [
                    ("feeds", ["method": "bottle", "amount": 4, "unit": "oz", "milk": "formula", "at": TrackingTime.ago(3600)],
                     ["amount": 150, "unit": "ml"], ("amount_ml", 150.0)),
                    ("sleeps", ["at": TrackingTime.ago(7200), "ended_at": TrackingTime.ago(5400)], ["period": "night"], ("period", "night")),
                    ("diapers", ["contents": "wet", "at": TrackingTime.ago(600)], ["contents": "both", "colour": "yellow"], ("contents", "both")),
                    ("growth", ["weight": 7.2, "weight_unit": "kg", "length": 66, "length_unit": "cm", "at": TrackingTime.ago(60)],
                     ["head": 42, "head_unit": "cm"], ("head_cm", 42.0)),
                    ("medications", ["name": "Paracetamol", "dose": 2.5, "dose_unit": "ml", "interval_hours": 4, "at": TrackingTime.ago(120)],
                     ["dose": 2], ("dose", 2.0)),
                    ("foods", ["food": "Banana", "colour": "yellow", "liked": true, "at": TrackingTime.ago(300)], ["liked": false], ("liked", false)),
                ]
                for item in cases {
                    let clientId = "client-\(item.kind)-\(UUID().uuidString.prefix(6))"
                    var body = item.body
                    body["client_id"] = clientId
                    let created = try await family.send("POST", item.kind, body)
                    #expect(created.status == 201, "\(item.kind): \(created.text)")
                    #expect(created.json["duplicate"] as? Bool == false)
                    let log = try #require(created.json["log"] as? [String: Any], "\(created.text)")
                    let logId = try #require(log["log_id"] as? String)
                    #expect(log["version"] as? Int == 1)
                    #expect(log["logged_by"] as? String == family.user.userId.lowercased())

                    // The same client_id again (a retry after a lost answer): the first log, 200.
                    let retried = try await family.send("POST", item.kind, body)
                    #expect(retried.status == 200, "\(item.kind) retry: \(retried.text)")
                    #expect(retried.json["duplicate"] as? Bool == true)
                    #expect((retried.json["log"] as? [String: Any])?["log_id"] as? String == logId)

                    let shown = try await family.send("GET", "\(item.kind)/\(logId)")
                    #expect(shown.status == 200 && shown.json["log_id"] as? String == logId)

                    var patch = item.patch
                    patch["version"] = 1
                    let edited = try await family.send("PATCH", "\(item.kind)/\(logId)", patch)
                    #expect(edited.status == 200, "\(item.kind) edit: \(edited.text)")
                    let after = try #require(edited.json["log"] as? [String: Any])
                    #expect(after["version"] as? Int == 2)
                    let (field, expected) = item.check
                    #expect((after[field] as? NSObject)?.isEqual(expected) == true, "\(item.kind): \(field) is \(after[field] ?? "nil")")

                    // An edit made from version 1 now is stale: 409 with the log as it is.
                    let stale = try await family.send("PATCH", "\(item.kind)/\(logId)", patch)
                    #expect(stale.status == 409 && stale.errorCode == "stale_version", "\(item.kind): \(stale.text)")
                    #expect((stale.json["current"] as? [String: Any])?["version"] as? Int == 2)

                    let deleted = try await family.send("DELETE", "\(item.kind)/\(logId)", query: ["version": "2"])
                    #expect(deleted.status == 204, "\(item.kind) delete: \(deleted.text)")
                    #expect(try await family.send("GET", "\(item.kind)/\(logId)").status == 404)
                }

                // Growth is answered with WHO percentiles for the child's age and sex.
                let growth = try await family.send("POST", "growth", ["weight": 7.3, "weight_unit": "kg", "at": TrackingTime.ago(30)])
                let weight = try #require((growth.json["percentiles"] as? [String: Any])?["weight"] as? [String: Any], "\(growth.text)")
                let percentile = try #require(weight["percentile"] as? Double)
                #expect((1.0...99.0).contains(percentile))
                #expect(weight["indicator"] as? String == "weight_for_age")

                // A medication with an interval answers when the next dose is due; one given early is accepted with a warning.
                let firstDose = try await family.send(
                    "POST", "medications", ["name": "Ibuprofen", "dose": 2.5, "dose_unit": "ml", "interval_hours": 6, "at": TrackingTime.ago(3600)])
                #expect(firstDose.json["next_dose_due_at"] is String, "\(firstDose.text)")
                let early = try await family.send("POST", "medications", ["name": "ibuprofen", "dose": 2.5, "dose_unit": "ml", "interval_hours": 6])
                #expect(early.status == 201)
                #expect((early.json["warnings"] as? [[String: Any]])?.contains { $0["code"] as? String == "dose_too_early" } == true, "\(early.text)")

                // A weight no infant gains in a day: accepted, with a warning.
                let jump = try await family.send("POST", "growth", ["weight": 9.5, "weight_unit": "kg"])
                #expect(jump.status == 201)
                #expect((jump.json["warnings"] as? [[String: Any]])?.contains { $0["code"] as? String == "implausible_weight_change" } == true, "\(jump.text)")

                // A food can be un-marked as tried (kept, with unmarked_at) and marked again.
                let pear = try await family.log("foods", ["food": "Pear", "colour": "green"])
                let pearId = try #require(pear["log_id"] as? String)
                let unmarked = try await family.send("PATCH", "foods/\(pearId)", ["tried": false, "version": 1])
                #expect((unmarked.json["log"] as? [String: Any])?["unmarked_at"] is String, "\(unmarked.text)")
                let remarked = try await family.send("PATCH", "foods/\(pearId)", ["tried": true, "version": 2])
                #expect((remarked.json["log"] as? [String: Any])?["unmarked_at"] == nil, "\(remarked.text)")
            }
        }

        @Test func badInputIsRefusedNamingTheFieldAndNothingIsStored() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let family = try await TrackingFamily.make(gateway)
                let inAnHour = TrackingTime.iso(Date().addingTimeInterval(3600))
                let cases: [(String, [String: Any], String)] = [
                    ("feeds", ["method": "bottle", "amount": 120, "unit": "ml", "at": inAnHour], "at"),
                    ("feeds", ["method": "bottle", "amount": 5, "unit": "l"], "unit"),
                    ("feeds", ["method": "bottle", "amount": 5000, "unit": "ml"], "amount"),
                    ("feeds", ["method": "bottle", "amount": 0, "unit": "ml"], "amount"),
                    ("feeds", ["method": "bottle", "amount": -20, "unit": "ml"], "amount"),
                    ("feeds", ["method": "bottle"], "amount"),
                    ("feeds", ["method": "teaspoon"], "method"),
                    ("feeds", ["method": "nursing", "side": "left", "at": TrackingTime.ago(600), "ended_at": TrackingTime.ago(1200)], "ended_at"),
                    ("sleeps", ["at": TrackingTime.ago(600), "ended_at": TrackingTime.ago(1200)], "ended_at"),
                    ("sleeps", ["at": "yesterday evening"], "at"),
                    ("diapers", ["contents": "sparkly"], "contents"),
                    ("growth", ["weight": 7, "weight_unit": "stone"], "weight_unit"),
                    ("growth", ["notes": "forgot the scale"], "weight"),
                    ("growth", ["weight": 300, "weight_unit": "kg"], "weight"),
                    ("medications", ["dose": 2, "dose_unit": "ml"], "name"),
                    ("medications", ["name": "Paracetamol", "dose": 2, "dose_unit": "spoonful"], "dose_unit"),
                    ("foods", ["food": "Egg", "reaction": "explosive"], "reaction"),
                    ("foods", ["food": 42], "food"),
                    ("feeds", ["method": "bottle", "amount": 100, "unit": "ml", "client_id": 7], "client_id"),
                    ("feeds", ["method": "bottle", "amount": 100, "unit": "ml", "at": "2020-01-01T00:00:00Z"], "at"),
                    ("feeds", ["method": "bottle", "amount": 1e308, "unit": "oz"], "amount"),
                    ("feeds", ["method": "bottle", "amount": 0.01, "unit": "ml"], "amount"),
                ]
                for (kind, body, field) in cases {
                    let reply = try await family.send("POST", kind, body)
                    #expect(reply.status == 400, "\(kind) \(body): \(reply.status) \(reply.text)")
                    #expect(reply.errorField == field, "\(kind) \(body): \(reply.text)")
                }
                let patchWithoutVersion = try await family.log("diapers", ["contents": "wet"])
                let noVersion = try await family.send("PATCH", "diapers/\(patchWithoutVersion["log_id"] as? String ?? "")", ["contents": "dirty"])
                #expect(noVersion.status == 400 && noVersion.errorField == "version")
                let hugeVersion = try await family.send("PATCH", "diapers/\(patchWithoutVersion["log_id"] as? String ?? "")", ["contents": "dirty", "version": 1e300])
                #expect(hugeVersion.status == 400 && hugeVersion.errorField == "version")
                #expect(try await family.send("GET", "timeline", query: ["cursor": "9223372036854775807_\(UUID().uuidString)"]).errorField == "cursor")

                // A client_id names one log: reused for another kind, it is a 409, not that log.
                _ = try await family.log("diapers", ["contents": "wet", "client_id": "phone-1-42"])
                let otherKind = try await family.send("POST", "feeds", ["method": "bottle", "amount": 90, "unit": "ml", "client_id": "phone-1-42"])
                #expect(otherKind.status == 409 && otherKind.errorField == "client_id", "\(otherKind.text)")

                // Overlapping sleeps: 409 naming the other log.
                let night = try await family.log("sleeps", ["at": TrackingTime.ago(5 * 3600), "ended_at": TrackingTime.ago(2 * 3600)])
                let overlap = try await family.send("POST", "sleeps", ["at": TrackingTime.ago(3 * 3600), "ended_at": TrackingTime.ago(3600)])
                #expect(overlap.status == 409 && overlap.errorCode == "overlapping_sleep", "\(overlap.text)")
                #expect((overlap.json["current"] as? [String: Any])?["log_id"] as? String == night["log_id"] as? String)
                #expect(overlap.text.contains(night["log_id"] as? String ?? "?"))

                // Nothing refused was stored: the timeline holds the two accepted logs only.
                let logs = try await family.timeline(["from": TrackingTime.ago(30 * 86_400)])
                #expect(logs.count == 3, "\(logs)")

                // A child's sex may come with the member; a parent's is refused.
                let members = gateway.baseURL.appendingPathComponent("v1/households/\(family.household)/members")
                let parent = try await HTTPTestClient.postJSON(members, ["name": "Pat", "role": "parent", "sex": "female"], headers: family.user.headers)
                #expect(parent.status == 400 && parent.errorField == "sex")
                let oddSex = try await HTTPTestClient.postJSON(members, ["name": "Noor", "role": "child", "sex": "unknown"], headers: family.user.headers)
                #expect(oddSex.status == 400 && oddSex.errorField == "sex")
                let noor = try await HTTPTestClient.postJSON(members, ["name": "Noor", "role": "child", "birthdate": "2026-01-10", "sex": "male"], headers: family.user.headers)
                let noorId = try #require(noor.json["member_id"] as? String)
                let noorURL = gateway.baseURL.appendingPathComponent("v1/children/\(noorId)")
                let headers = family.user.headers
                #expect(try await KafkaTestEnvironment.eventually {
                    try await HTTPTestClient.send("GET", noorURL, headers: headers).json["sex"] as? String == "male"
                }, "the child's sex reaches tracking")

                // Another household's child, and a child id that is no child, are 404.
                let stranger = try await TrackingFamily.make(gateway, name: "Leo")
                let foreign = try await HTTPTestClient.send(
                    "POST", family.url("feeds"), body: try JSONSerialization.data(withJSONObject: ["method": "bottle", "amount": 90, "unit": "ml"]),
                    headers: stranger.user.headers)
                #expect(foreign.status == 404)
                let foreignRead = try await HTTPTestClient.send("GET", family.url("timeline"), headers: stranger.user.headers)
                #expect(foreignRead.status == 404)
                let notAChild = try await HTTPTestClient.send(
                    "GET", gateway.baseURL.appendingPathComponent("v1/children/\(UUID().uuidString.lowercased())"), headers: family.user.headers)
                #expect(notAChild.status == 404)
            }
        }

        @Test func photosAreJPEGOrPNGUpToTenMegabytesWithAThumbnailAndLinkedToTheirFood() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let family = try await TrackingFamily.make(gateway)
                let carrot = try await family.log("foods", ["food": "Carrot", "colour": "orange"])
                let carrotId = try #require(carrot["log_id"] as? String)
                func upload(_ data: Data, type: String, query: [String: String] = [:]) async throws -> HTTPTestClient.Reply {
                    try await HTTPTestClient.send("POST", family.url("photos", query), body: data, headers: family.user.headers(["Content-Type": type]))
                }
                let png = try TrackingImages.make("face.png")
                let jpeg = try TrackingImages.make("face.jpg")
                let first = try await upload(png, type: "image/png", query: ["food_log_id": carrotId, "caption": "Messy!"])
                #expect(first.status == 201, "\(first.text)")
                let photo = try #require(first.json["log"] as? [String: Any])
                #expect(photo["content_type"] as? String == "image/png")
                #expect(photo["food_log_id"] as? String == carrotId)
                #expect(photo["byte_count"] as? Int == png.count)
                let second = try await upload(jpeg, type: "image/jpeg")
                #expect(second.status == 201, "\(second.text)")

                let image = try await HTTPTestClient.send("GET", try #require(URL(string: first.json["image_url"] as? String ?? "", relativeTo: gateway.baseURL)), headers: family.user.headers)
                #expect(image.status == 200 && image.body == png)
                let thumbnail = try await HTTPTestClient.send("GET", try #require(URL(string: first.json["thumbnail_url"] as? String ?? "", relativeTo: gateway.baseURL)), headers: family.user.headers)
                #expect(thumbnail.status == 200 && thumbnail.header("Content-Type") == "image/jpeg")
                #expect(thumbnail.body.starts(with: [0xFF, 0xD8, 0xFF]))

                let all = try await family.send("GET", "photos")
                #expect((all.json["photos"] as? [[String: Any]])?.count == 2)
                let carrots = try await family.send("GET", "photos", query: ["food_log_id": carrotId])
                #expect((carrots.json["photos"] as? [[String: Any]])?.count == 1)

                // HEIC, text and anything over 10 MB are refused; the gallery is unchanged.
                var heic = Data([0, 0, 0, 0x18]) + Data("ftypheic".utf8)
                heic.append(Data(repeating: 0, count: 64))
                let heicReply = try await upload(heic, type: "image/heic")
                #expect(heicReply.status == 415 && heicReply.text.contains("HEIC"), "\(heicReply.text)")
                #expect(try await upload(Data("not a photo".utf8), type: "image/png").status == 415)
                var huge = Data([0xFF, 0xD8, 0xFF, 0xE0])
                huge.append(Data(repeating: 0x41, count: 10 * 1024 * 1024))
                // (With an Idempotency-Key too: an upload is not held in memory to be fingerprinted.)
                let tooBig = try await HTTPTestClient.send(
                    "POST", family.url("photos"), body: huge, headers: family.user.headers(["Content-Type": "image/jpeg", "Idempotency-Key": "upload-1"]))
                #expect(tooBig.status == 413, "\(tooBig.status) \(tooBig.text)")
                var broken = jpeg.prefix(20)
                broken.append(Data(repeating: 0, count: 200))
                #expect(try await upload(Data(broken), type: "image/jpeg").status == 400)
                let badFood = try await upload(png, type: "image/png", query: ["food_log_id": UUID().uuidString])
                #expect(badFood.status == 400 && badFood.errorField == "food_log_id")
                #expect((try await family.send("GET", "photos").json["photos"] as? [[String: Any]])?.count == 2)

                // Another household cannot read the bytes.
                let stranger = try await GatewayUser.signIn(gateway)
                #expect(try await HTTPTestClient.send("GET", try #require(URL(string: first.json["image_url"] as? String ?? "", relativeTo: gateway.baseURL)), headers: stranger.headers).status == 404)

                // Deleting the photo's log removes it from the gallery and its bytes.
                let photoId = try #require(photo["log_id"] as? String)
                #expect(try await family.send("DELETE", "photos/\(photoId)").status == 204)
                #expect(try await family.send("GET", "photos/\(photoId)/image").status == 404)
            }
        }

        @Test func syncOrdersByTheLogsOwnTimeWarnsOfDuplicatesAndFollowsACursor() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let family = try await TrackingFamily.make(gateway)
                let partner = try await family.caregiver()

                // Logged offline and arriving out of order: the timeline goes by the log's own time.
                let late = try await family.log("feeds", ["method": "bottle", "amount": 120, "unit": "ml", "at": TrackingTime.ago(3600)])
                let early = try await family.log("feeds", ["method": "bottle", "amount": 100, "unit": "ml", "at": TrackingTime.ago(4 * 3600)], as: partner)
                let timeline = try await family.timeline()
                #expect(timeline.compactMap { $0["log_id"] as? String } == [late["log_id"] as? String, early["log_id"] as? String].compactMap { $0 })

                // The partner logs the same feed six minutes later: accepted, and answered with the other as a possible duplicate.
                let again = try await family.send("POST", "feeds", ["method": "bottle", "amount": 120, "unit": "ml", "at": TrackingTime.ago(3600 - 360)], as: partner)
                #expect(again.status == 201)
                let duplicates = try #require(again.json["possible_duplicates"] as? [[String: Any]], "\(again.text)")
                #expect(duplicates.compactMap { $0["log_id"] as? String } == [late["log_id"] as? String].compactMap { $0 })

                // The changes cursor: everything so far, then only what changed after it (a delete included).
                let all = try await family.send("GET", "changes")
                let changes = try #require(all.json["changes"] as? [[String: Any]])
                #expect(changes.count == 3)
                let cursor = try #require(all.json["cursor"] as? String)
                let quiet = try await family.send("GET", "changes", query: ["since": cursor])
                #expect((quiet.json["changes"] as? [[String: Any]])?.isEmpty == true)
                #expect(quiet.json["cursor"] as? String == cursor)
                let duplicateId = try #require((again.json["log"] as? [String: Any])?["log_id"] as? String)
                #expect(try await family.send("DELETE", "feeds/\(duplicateId)").status == 204)
                let edited = try await family.send("PATCH", "feeds/\(late["log_id"] as? String ?? "")", ["amount": 130, "unit": "ml", "version": 1])
                #expect(edited.status == 200)
                let next = try await family.send("GET", "changes", query: ["since": cursor])
                let changed = try #require(next.json["changes"] as? [[String: Any]])
                #expect(changed.map { $0["log_id"] as? String } == [duplicateId, late["log_id"] as? String])
                #expect(changed.first?["deleted"] as? Bool == true)
                let paged = try await family.send("GET", "changes", query: ["limit": "1"])
                #expect((paged.json["changes"] as? [[String: Any]])?.count == 1 && paged.json["has_more"] as? Bool == true)
                #expect(try await family.send("GET", "changes", query: ["since": "yesterday"]).errorField == "since")

                // Two caregivers edit the same version: one wins, the other is 409 with the current log.
                let target = try #require(early["log_id"] as? String)
                async let first = family.send("PATCH", "feeds/\(target)", ["amount": 90, "unit": "ml", "version": 1])
                async let second = family.send("PATCH", "feeds/\(target)", ["amount": 95, "unit": "ml", "version": 1], as: partner)
                let outcomes = try await [first, second]
                #expect(outcomes.map(\.status).sorted() == [200, 409], "\(outcomes.map(\.text))")
                let loser = try #require(outcomes.first { $0.status == 409 })
                let winner = try #require(outcomes.first { $0.status == 200 })
                #expect((loser.json["current"] as? [String: Any])?["amount_ml"] as? Double == (winner.json["log"] as? [String: Any])?["amount_ml"] as? Double)

                // Two phones start the same nap at once: one is kept, the other told of it (409).
                let napStart = TrackingTime.ago(20 * 60)
                async let nap1 = family.send("POST", "sleeps", ["at": napStart, "period": "nap"])
                async let nap2 = family.send("POST", "sleeps", ["at": napStart, "period": "nap"], as: partner)
                let naps = try await [nap1, nap2]
                #expect(naps.map(\.status).sorted() == [201, 409], "\(naps.map(\.text))")
                #expect(naps.first { $0.status == 409 }?.errorCode == "overlapping_sleep")

                // The timeline pages newest first.
                let page = try await family.send("GET", "timeline", query: ["limit": "1"])
                let nextCursor = try #require(page.json["next_cursor"] as? String, "\(page.text)")
                let rest = try await family.send("GET", "timeline", query: ["limit": "5", "cursor": nextCursor])
                let restIds = (rest.json["logs"] as? [[String: Any]])?.compactMap { $0["log_id"] as? String } ?? []
                #expect(restIds.last == target && restIds.count == 2, "\(restIds)")

                // The read model rebuilds from the events to the same checksum.
                let replay = try await CommandLineTool.run(["replay", "tracking_logs"])
                #expect(replay.status == 0, "\(replay.output)\n\(replay.errors)")
                #expect(replay.output.contains("identical"), "\(replay.output)")
            }
        }
    }
}

extension BackboneSuite.Tracking {
    /// A day of logs adds up: statistics, the next-feed prediction, the SVG charts (which parse
    /// as XML) and the export in both formats.
    @Test func statisticsPredictionChartsAndExportAddUpTheLogs() async throws {
        try await ServiceProcess.with("gateway") { gateway in
            let family = try await TrackingFamily.make(gateway)
            let now = Date()
            // Four bottles three hours apart, the last an hour ago.
            for hours in [10.0, 7.0, 4.0, 1.0] {
                _ = try await family.log("feeds", ["method": "bottle", "amount": 120, "unit": "ml", "at": TrackingTime.iso(now.addingTimeInterval(-hours * 3600))])
            }
            _ = try await family.log("sleeps", ["at": TrackingTime.iso(now.addingTimeInterval(-6 * 3600)), "ended_at": TrackingTime.iso(now.addingTimeInterval(-4.5 * 3600)), "period": "nap"])
            _ = try await family.log("diapers", ["contents": "both", "at": TrackingTime.ago(1800)])
            _ = try await family.log("diapers", ["contents": "wet", "at": TrackingTime.ago(900)])
            _ = try await family.log("foods", ["food": "Avocado", "colour": "green", "at": TrackingTime.ago(7200)])
            _ = try await family.log("growth", ["weight": 7.4, "weight_unit": "kg", "length": 67, "length_unit": "cm", "head": 43, "head_unit": "cm"])

            let stats = try await family.send("GET", "stats", query: ["days": "7"])
            #expect(stats.status == 200, "\(stats.text)")
            #expect(stats.json["feeds_per_day"] as? Double == 0.6)
            #expect(stats.json["bottle_ml_per_day"] as? Double == 68.6)
            #expect(stats.json["average_feed_interval_minutes"] as? Double == 180)
            #expect(stats.json["longest_sleep_minutes"] as? Double == 90)
            #expect(stats.json["wet_diapers_per_day"] as? Double == 0.3)
            #expect(stats.json["dirty_diapers_per_day"] as? Double == 0.1)
            #expect(stats.json["new_foods"] as? [String] == ["Avocado"])
            #expect(stats.json["colours_this_week"] as? [String] == ["green"])
            #expect(try await family.send("GET", "stats", query: ["days": "14"]).errorField == "days")

            let next = try await family.send("GET", "next-feed")
            let prediction = try #require(next.json["prediction"] as? [String: Any], "\(next.text)")
            #expect(prediction["median_interval_minutes"] as? Double == 180)
            #expect(abs((TrackingTime.date(prediction["predicted_at"])?.timeIntervalSince(now.addingTimeInterval(2 * 3600))) ?? 99) < 1)
            #expect(prediction["overdue"] as? Bool == false)
            #expect((next.json["explanation"] as? String)?.contains("median") == true)

            for (chart, query) in [("growth.svg", ["measure": "weight"]), ("growth.svg", ["measure": "head"]), ("sleep.svg", [:]), ("feeds.svg", ["days": "30"])] {
                let reply = try await family.send("GET", "charts/\(chart)", query: query)
                #expect(reply.status == 200, "\(chart): \(reply.text)")
                #expect(reply.header("Content-Type")?.hasPrefix("image/svg+xml") == true)
                let root = try SVGRoot.parse(reply.body)
                #expect(root == "svg", "\(chart) is not an SVG document")
                if let directory = ProcessInfo.processInfo.environment["HEARTH_CHART_SAMPLES"] {
                    let name = chart.replacingOccurrences(of: ".svg", with: "") + (query["measure"].map { "-\($0)" } ?? "") + ".svg"
                    try reply.body.write(to: URL(fileURLWithPath: directory).appendingPathComponent(name))
                }
            }
            let growth = try await family.send("GET", "charts/growth.svg")
            #expect(growth.text.contains("P97") && growth.text.contains("P3"))
            #expect(try await family.send("GET", "charts/pie.svg").status == 404)
            #expect(try await family.send("GET", "charts/growth.svg", query: ["measure": "shoe"]).errorField == "measure")
            let noSex = try await TrackingFamily.make(gateway, name: "Kit", sex: nil)
            #expect(try await noSex.send("GET", "charts/growth.svg").status == 409)

            let csv = try await family.send("GET", "export", query: ["format": "csv"])
            #expect(csv.header("Content-Type")?.hasPrefix("text/csv") == true)
            let lines = csv.text.split(separator: "\r\n")
            #expect(lines.count == 1 + 9, "\(csv.text)")
            #expect(lines.first?.hasPrefix("log_id,kind,at,logged_by") == true)
            let json = try await family.send("GET", "export", query: ["format": "json"])
            #expect((json.json["logs"] as? [[String: Any]])?.count == 9)
            #expect(try await family.send("GET", "export", query: ["format": "xls"]).errorField == "format")
        }
    }
}

/// The name of a document's root element, read with Foundation's XML parser (so a chart that is
/// not well-formed XML fails).
final class SVGRoot: NSObject, XMLParserDelegate {
    private var root: String?

    static func parse(_ data: Data) throws -> String? {
        let delegate = SVGRoot()
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        guard parser.parse() else { throw parser.parserError ?? CocoaError(.coderReadCorrupt) }
        return delegate.root
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        if root == nil { root = name }
    }
}
