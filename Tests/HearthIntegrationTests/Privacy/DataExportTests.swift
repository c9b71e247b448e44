import Foundation
import Testing

extension BackboneSuite {
    /// `POST /v1/me/export` → `GET /v1/me/export/{id}`: a ZIP (read by Python's zipfile, an
    /// independent reader) of what the user can see, and nothing of anyone else's.
    @Suite struct DataExport {
        @Test func anExportHoldsWhatTheUserCanSeeAndNothingElse() async throws {
            let tag = UUID().uuidString.prefix(8).lowercased()
            try await ServiceProcess.with("gateway") { gateway in
                let base = gateway.baseURL
                @Sendable func url(_ path: String) -> URL { base.appendingPathComponent(path) }
                let (ada, household) = try await GatewayUser.withHousehold(gateway, name: "Exporters \(tag)")
                #expect(try await HTTPTestClient.postJSON(url("v1/users/upsert"), ["display_name": "Ada \(tag)"], headers: ada.headers).status == 200)
                let invite = try await HTTPTestClient.send("POST", url("v1/households/\(household)/invites"), headers: ada.headers)
                let ben = try await GatewayUser.signIn(gateway)
                let code = try #require(invite.json["code"] as? String)
                #expect(try await HTTPTestClient.send("POST", url("v1/invites/\(code)/accept"), headers: ben.headers).status == 200)
                let shared = try await HTTPTestClient.postJSON(url("v1/chats"), ["title": "Shared \(tag)", "member_ids": [ben.userId]], headers: ada.headers)
                let sharedId = try #require(shared.json["chat_id"] as? String)
                let own = try await HTTPTestClient.postJSON(url("v1/chats"), ["title": "Ben alone \(tag)"], headers: ben.headers)
                let ownId = try #require(own.json["chat_id"] as? String)
                for (chat, text, user) in [(sharedId, "Ada says hi \(tag)", ada), (sharedId, "Ben answers \(tag)", ben), (ownId, "Ben's diary \(tag)", ben)] {
                    #expect(try await HTTPTestClient.postJSON(url("v1/chats/\(chat)/messages"), ["text": text, "client_id": UUID().uuidString], headers: user.headers).status == 201)
                }
                // A child and a log Ben made for her (tracking writes wait for their projection).
                let child = try await HTTPTestClient.postJSON(
                    url("v1/households/\(household)/members"), ["name": "Tilly \(tag)", "role": "child", "birthdate": "2026-06-01"], headers: ada.headers)
                let childId = try #require(child.json["member_id"] as? String)
                let childPosition = try #require(child.json["position"] as? String)
                _ = try await HTTPTestClient.send("GET", url("v1/households/\(household)"), headers: ada.headers(["X-Consistency-Token": childPosition]))
                let feed = try await HTTPTestClient.postJSON(
                    url("v1/children/\(childId)/feeds"), ["method": "bottle", "amount": 90, "unit": "ml", "notes": "Bottle note \(tag)"], headers: ben.headers)
                #expect(feed.status == 201, "\(String(decoding: feed.body, as: UTF8.self))")
                // Each one's own wellbeing check-in: only Ada's is in Ada's export.
                for (user, note) in [(ada, "Ada's calm evening \(tag)"), (ben, "Ben's private urge \(tag)")] {
                    let checkIn = try await HTTPTestClient.postJSON(url("v1/wellbeing/checkins"), ["mood": 6, "urge_level": 3, "note": note], headers: user.headers)
                    #expect(checkIn.status == 201, "\(String(decoding: checkIn.body, as: UTF8.self))")
                }
                // Written by the projections before the export reads them.
                #expect(try await KafkaTestEnvironment.eventually {
                    let messages = try await HTTPTestClient.send("GET", url("v1/chats/\(ownId)/messages"), headers: ben.headers)
                    return String(decoding: messages.body, as: UTF8.self).contains("Ben's diary \(tag)")
                })

                let files = try await Self.export(url: url, user: ada, body: nil)
                #expect(Set(files.keys) == [
                    "README.txt", "profile.json", "households.json", "chats.json", "assistant_runs.json", "assistant_actions.json", "calendar.json",
                    "tracking.json", "wellbeing.json", "reminders.json", "consents.json", "feedback.json", "usage.json", "coaching.json", "activity_submissions.json", "activity_history.json",
                ])
                for (name, text) in files where name.hasSuffix(".json") {
                    #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)) != nil, "\(name) is JSON")
                    #expect(files["README.txt"]?.contains(name) == true, "README.txt describes \(name)")
                }
                #expect(files["profile.json"]?.contains("Ada \(tag)") == true)
                #expect(files["households.json"]?.contains("Exporters \(tag)") == true)
                let chats = files["chats.json"] ?? ""
                #expect(chats.contains("Ada says hi \(tag)") && chats.contains("Ben answers \(tag)"), "\(chats)")
                #expect(!files.values.contains { $0.contains("Ben's diary") || $0.contains("Ben alone") }, "nothing of a chat Ada is not in")
                #expect(files["tracking.json"]?.contains("Bottle note \(tag)") == true, "\(files["tracking.json"] ?? "")")
                #expect(files["wellbeing.json"]?.contains("Ada's calm evening \(tag)") == true, "\(files["wellbeing.json"] ?? "")")
                #expect(!files.values.contains { $0.contains("Ben's private urge") }, "nothing of Ben's wellbeing")

                // The household's shared data, for its owner only.
                let householdFiles = try await Self.export(url: url, user: ada, body: ["scope": "household"])
                #expect(Set(householdFiles.keys) == ["README.txt", "household.json", "calendar.json", "tracking.json", "profile_facts.json", "coaches.json"])
                #expect(householdFiles["household.json"]?.contains("Exporters \(tag)") == true)
                #expect(householdFiles["tracking.json"]?.contains("Bottle note \(tag)") == true)
                let refused = try await HTTPTestClient.postJSON(url("v1/me/export"), ["scope": "household"], headers: ben.headers)
                #expect(refused.status == 403)
                let bad = try await HTTPTestClient.postJSON(url("v1/me/export"), ["scope": "everything"], headers: ben.headers)
                #expect(bad.status == 400)
                #expect(String(decoding: bad.body, as: UTF8.self).contains("scope"))

                // Another user's export id is as unknown as a made-up one.
                let adas = try await HTTPTestClient.send("POST", url("v1/me/export"), headers: ada.headers)
                let adaExport = try #require(adas.json["export_id"] as? String)
                #expect(try await HTTPTestClient.send("GET", url("v1/me/export/\(adaExport)"), headers: ben.headers).status == 404)
                #expect(try await HTTPTestClient.send("GET", url("v1/me/export/\(UUID().uuidString)"), headers: ada.headers).status == 404)
            }
        }

        /// Asks for an export, waits for its archive, and reads every entry with Python's zipfile.
        static func export(url: @Sendable (String) -> URL, user: GatewayUser, body: [String: String]?) async throws -> [String: String] {
            let asked: HTTPTestClient.Reply
            if let body {
                asked = try await HTTPTestClient.postJSON(url("v1/me/export"), body, headers: user.headers)
            } else {
                asked = try await HTTPTestClient.send("POST", url("v1/me/export"), headers: user.headers)
            }
            #expect(asked.status == 202, "\(String(decoding: asked.body, as: UTF8.self))")
            let id = try #require(asked.json["export_id"] as? String)
            let token = try #require(asked.json["position"] as? String)
            var archive: Data?
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                let reply = try await HTTPTestClient.send("GET", url("v1/me/export/\(id)"), headers: user.headers(["X-Consistency-Token": token]))
                if reply.status == 200 {
                    #expect(reply.headers["Content-Type"] == "application/zip")
                    archive = reply.body
                    break
                }
                #expect(reply.status == 202)
                try await Task.sleep(for: .milliseconds(300))
            }
            let zip = try #require(archive, "the export was built")
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(id).zip")
            try zip.write(to: path)
            defer { try? FileManager.default.removeItem(at: path) }
            let reader = "import json, sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; print(json.dumps({n: z.read(n).decode() for n in z.namelist()}))"
            let python = Process()
            python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            python.arguments = ["python3", "-c", reader, path.path]
            let output = Pipe()
            python.standardOutput = output
            try python.run()
            let printed = output.fileHandleForReading.readDataToEndOfFile()
            python.waitUntilExit()
            #expect(python.terminationStatus == 0, "zipfile could not read the archive")
            return try JSONDecoder().decode([String: String].self, from: printed)
        }
    }
}
