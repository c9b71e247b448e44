import Foundation
import HearthDomain
import Testing

extension BackboneSuite {
    /// Quotas, usage and the admin views, checked against the runs the test itself makes.
    @Suite struct AssistUsage {
        static func adminId(_ name: String) -> String {
            UserIdentity.userId(provider: .dev, subject: UserIdentity.devSubject(forName: name)).uuidString.lowercased()
        }

        static func stats(_ gateway: ServiceProcess, admin: GatewayUser) async throws -> [String: Any] {
            let reply = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/admin/stats"), headers: admin.headers)
            #expect(reply.status == 200)
            return reply.json
        }

        @Test func theEleventhRunIsOverQuotaAndUsageAddsUp() async throws {
            let adminName = "Assist admin \(UUID().uuidString.prefix(8))"
            try await AssistStack.with(gateway: ["HEARTH_ADMIN_USER_IDS": Self.adminId(adminName), "HEARTH_MONTHLY_QUOTA": "10"]) { gateway, _ in
                let admin = try await GatewayUser.signIn(gateway, name: adminName)
                let user = try await GatewayUser.signIn(gateway)
                let before = try await Self.stats(gateway, admin: admin)

                var runIds: [String] = []
                for index in 0..<10 {
                    let mode = ["meals", "chores", "routines"][index % 3]
                    let (events, _) = try await AssistStack.run(gateway, user: user, ["goal": "Plan for our week", "mode": mode], wire: .ndjson)
                    _ = try expectWellFormedStream(events, terminal: "final", wire: .ndjson)
                    runIds.append(events[0].runId)
                }
                let (over, _) = try await AssistStack.run(gateway, user: user, ["goal": "One more please", "mode": "meals"], wire: .sse)
                let terminals = try expectWellFormedStream(over, terminal: "quota_exceeded", wire: .sse)
                #expect(over.map(\.event) == ["quota_exceeded", "done"])
                let exceeded = terminals[0].object
                #expect(exceeded["quota"] as? Int == 10)
                #expect(exceeded["used"] as? Int == 10)
                let today = CalendarDay(Date(), in: .gmt)
                let reset = today.month == 12 ? CalendarDay(year: today.year + 1, month: 1, day: 1)! : CalendarDay(year: today.year, month: today.month + 1, day: 1)!
                #expect(exceeded["reset_date"] as? String == reset.isoDate)
                #expect((exceeded["message"] as? String)?.contains("10/10") == true)

                // What the read model says each run cost, summed.
                var input = 0, output = 0, models: [String: Int] = [:]
                for runId in runIds {
                    let run = try await AssistStack.finishedRun(gateway, user: user, runId: runId)
                    input += run["input_tokens"] as? Int ?? -1_000_000
                    output += run["output_tokens"] as? Int ?? -1_000_000
                    #expect(run["total_tokens"] as? Int == (run["input_tokens"] as? Int ?? 0) + (run["output_tokens"] as? Int ?? 0))
                    for (model, calls) in run["models_used"] as? [String: Int] ?? [:] { models[model, default: 0] += calls }
                }
                #expect(input > 0 && output > 0, "runs record their tokens")
                #expect(models.values.reduce(0, +) == 20, "a planning and a synthesis call per run: \(models)")

                let usage = try await HTTPTestClient.send(
                    "GET", gateway.baseURL.appendingPathComponent("v1/users/\(user.userId)/usage").appending(queryItems: [.init(name: "days", value: "30")]),
                    headers: user.headers)
                #expect(usage.status == 200)
                let numbers = usage.json
                #expect(numbers["user_id"] as? String == user.userId.lowercased())
                #expect(numbers["period_days"] as? Int == 30)
                #expect(numbers["total_runs"] as? Int == 10)
                #expect(numbers["input_tokens"] as? Int == input)
                #expect(numbers["output_tokens"] as? Int == output)
                #expect(numbers["total_tokens"] as? Int == input + output)
                #expect(numbers["avg_tokens_per_run"] as? Double == (Double(input + output) / 10 * 10).rounded() / 10)
                #expect(numbers["models_used"] as? [String: Int] == models)
                #expect(numbers["total_cost_cents"] is Double || numbers["total_cost_cents"] is Int)
                let quota = numbers["quota"] as? [String: Any] ?? [:]
                #expect(quota["quota"] as? Int == 10 && quota["used"] as? Int == 10 && quota["remaining"] as? Int == 0)
                let mine = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/users/me/usage"), headers: user.headers)
                #expect(mine.json["total_runs"] as? Int == 10)

                // Someone else's usage: not for other users, but for administrators.
                let stranger = try await GatewayUser.signIn(gateway)
                let forbidden = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/users/\(user.userId)/usage"), headers: stranger.headers)
                #expect(forbidden.status == 404)
                let notAnId = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/users/someone/usage"), headers: user.headers)
                #expect(notAnId.status == 400 && notAnId.errorField == "user_id")
                let asAdmin = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/users/\(user.userId)/usage"), headers: admin.headers)
                #expect(asAdmin.json["total_runs"] as? Int == 10)

                // Platform-wide: the runs made here moved the totals by exactly their numbers.
                let after = try await Self.stats(gateway, admin: admin)
                #expect(after["period_days"] as? Int == 30)
                #expect((after["total_runs"] as? Int ?? 0) - (before["total_runs"] as? Int ?? 0) == 10)
                #expect((after["total_tokens"] as? Int ?? 0) - (before["total_tokens"] as? Int ?? 0) == input + output)
                #expect((after["total_users"] as? Int ?? 0) >= 3)
                // The ranking: most tokens first; this user is in it unless ten others used more
                // (the database is shared with every earlier test and benchmark).
                let top = after["top_users"] as? [[String: Any]] ?? []
                let tokens = top.compactMap { $0["total_tokens"] as? Int }
                #expect(!top.isEmpty && top.count <= 10 && tokens == tokens.sorted(by: >))
                if let ranked = top.first(where: { $0["user_id"] as? String == user.userId.lowercased() }) {
                    #expect(ranked["total_tokens"] as? Int == input + output)
                    #expect(ranked["total_runs"] as? Int == 10)
                } else {
                    #expect(top.count == 10 && (tokens.last ?? 0) >= input + output, "\(top)")
                }
                let breakdown = after["models_breakdown"] as? [String: Int] ?? [:]
                let earlier = before["models_breakdown"] as? [String: Int] ?? [:]
                for (model, calls) in models { #expect((breakdown[model] ?? 0) - (earlier[model] ?? 0) == calls, "\(model)") }
                let perDay = after["runs_per_day"] as? [[String: Any]] ?? []
                #expect(perDay.count == 30)
                #expect((perDay.last?["runs"] as? Int ?? 0) >= 10, "today's bar counts today's runs")

                let notAdmin = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/admin/stats"), headers: user.headers)
                #expect(notAdmin.status == 403)

                // The dashboard shows the same figures.
                for days in [7, 30, 90] {
                    let stats = try await HTTPTestClient.send(
                        "GET", gateway.baseURL.appendingPathComponent("v1/admin/stats").appending(queryItems: [.init(name: "days", value: "\(days)")]),
                        headers: admin.headers).json
                    let page = try await HTTPTestClient.send(
                        "GET", gateway.baseURL.appendingPathComponent("v1/admin/dashboard").appending(queryItems: [.init(name: "days", value: "\(days)")]),
                        headers: admin.headers)
                    #expect(page.status == 200)
                    #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
                    let html = String(decoding: page.body, as: UTF8.self)
                    let figures = DashboardFigures(html)
                    #expect(figures.value("total-runs") == "\(stats["total_runs"] as? Int ?? -1)", "\(days) days")
                    #expect(figures.value("total-tokens") == "\(stats["total_tokens"] as? Int ?? -1)")
                    #expect(figures.value("total-users") == "\(stats["total_users"] as? Int ?? -1)")
                    #expect(figures.value("active-users") == "\(stats["active_users"] as? Int ?? -1)")
                    #expect(figures.value("total-cost-usd") != nil)
                    #expect(figures.bars.count == days, "one bar per day")
                    #expect(figures.bars.last?.runs ?? 0 >= 10)
                    let listed = (stats["top_users"] as? [[String: Any]] ?? []).reduce(into: [String: Int]()) { map, row in
                        if let id = row["user_id"] as? String, let tokens = row["total_tokens"] as? Int { map[id] = tokens }
                    }
                    #expect(figures.userTokens == listed)
                    #expect(figures.modelCalls == (stats["models_breakdown"] as? [String: Int] ?? [:]))
                    #expect(html.contains(#"aria-current="page">\#(days) days"#))
                    for period in [7, 30, 90] { #expect(html.contains(#"href="?days=\#(period)""#)) }
                    // Self-contained: nothing to fetch.
                    for external in ["<script", "<link", "src=", "http://", "https://", "@import", "url("] {
                        #expect(!html.contains(external), "the dashboard references \(external)")
                    }
                }
                let forbiddenPage = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/admin/dashboard"), headers: user.headers)
                #expect(forbiddenPage.status == 403)
            }
        }
    }
}

/// The figures of the dashboard page, read back from its `id` and `data-` attributes.
struct DashboardFigures {
    let html: String

    init(_ html: String) { self.html = html }

    /// `data-value` of the element with this id.
    func value(_ id: String) -> String? {
        guard let range = html.range(of: #"id="\#(id)" data-value=""#) else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    private func attributes(of tag: String) -> [[String: String]] {
        var found: [[String: String]] = []
        var rest = html[...]
        while let start = rest.range(of: "<\(tag) ") {
            let end = rest[start.upperBound...].firstIndex(of: ">") ?? rest.endIndex
            let text = rest[start.upperBound..<end]
            var attributes: [String: String] = [:]
            var scan = text[...]
            while let equals = scan.range(of: "=\"") {
                let name = scan[..<equals.lowerBound].split(separator: " ").last.map(String.init) ?? ""
                let valueEnd = scan[equals.upperBound...].firstIndex(of: "\"") ?? scan.endIndex
                attributes[name] = String(scan[equals.upperBound..<valueEnd])
                scan = valueEnd < scan.endIndex ? scan[scan.index(after: valueEnd)...] : ""
            }
            found.append(attributes)
            rest = rest[end...]
        }
        return found
    }

    var bars: [(date: String, runs: Int)] {
        attributes(of: "rect").compactMap { bar in
            guard let date = bar["data-date"], let runs = bar["data-runs"].flatMap(Int.init) else { return nil }
            return (date, runs)
        }
    }

    var userTokens: [String: Int] {
        var tokens: [String: Int] = [:]
        for row in attributes(of: "tr") {
            if let user = row["data-user-id"], let value = row["data-tokens"].flatMap(Int.init) { tokens[user] = value }
        }
        return tokens
    }

    var modelCalls: [String: Int] {
        var calls: [String: Int] = [:]
        for row in attributes(of: "tr") {
            if let model = row["data-model"], let value = row["data-calls"].flatMap(Int.init) { calls[model] = value }
        }
        return calls
    }
}
