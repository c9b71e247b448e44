import Foundation
import Testing

extension BackboneSuite {
    /// The notifier's `/metrics`: the reminder families issue dashboards are built from, next to
    /// the backbone families every executable has, all parseable as Prometheus text.
    @Suite struct NotifierMetricFamilies {
        @Test func remindersDueSentAndFailedAreCountedPerChannel() async throws {
            try await NotifierStack.with { stack, notifiers in
                let notifier = try #require(notifiers.first)
                let user = try await GatewayUser.signIn(stack.gateway)
                _ = try await stack.postReminder(user, title: "Water the plants", at: Date().addingTimeInterval(1), channels: ["inbox"])

                var text = ""
                let deadline = ContinuousClock.now + .seconds(30)
                while ContinuousClock.now < deadline {
                    let (status, body) = try await HTTPTestClient.get(notifier.baseURL.appendingPathComponent("metrics"))
                    #expect(status == 200)
                    text = String(decoding: body, as: UTF8.self)
                    if (PrometheusText.sample(text, #"hearth_reminders_sent_total{channel="inbox"}"#) ?? 0) >= 1 { break }
                    try await Task.sleep(for: .milliseconds(300))
                }
                #expect((PrometheusText.sample(text, #"hearth_reminders_sent_total{channel="inbox"}"#) ?? 0) >= 1, "\(text)")

                let types = PrometheusText.families(text)
                let expected: [String: String] = [
                    "hearth_reminders_due": "gauge", "hearth_reminders_sent_total": "counter", "hearth_reminders_failed_total": "counter",
                    "hearth_events_consumed_total": "counter", "hearth_projection_lag": "gauge",
                    "hearth_projection_apply_duration_seconds": "histogram", "hearth_dlq_events_total": "counter",
                    "hearth_http_requests_total": "counter",
                ]
                for (family, type) in expected { #expect(types[family] == type, "\(family): \(types[family] ?? "missing")") }
                #expect(PrometheusText.sample(text, #"hearth_reminders_failed_total{channel="apns"}"#) != nil, "failures are registered at zero")
                for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                    #expect(Double(line.split(separator: " ").last ?? "") != nil, "unparsable sample: \(line)")
                }
            }
        }
    }

    /// `deploy/grafana/hearth-dashboard.json` is built from the families above: every query names
    /// a family some executable exposes, and filters or groups only by labels that family carries
    /// (`service` is the scrape config's target label, `le` a histogram's bucket bound).
    @Suite struct DashboardQueries {
        static var dashboard: URL {
            URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("deploy/grafana/hearth-dashboard.json")
        }

        /// Every `expr` of the dashboard's panels.
        static func queries() throws -> [String] {
            func walk(_ node: Any) -> [String] {
                if let object = node as? [String: Any] {
                    return object.flatMap { key, value in key == "expr" ? [value as? String].compactMap { $0 } : walk(value) }
                }
                return (node as? [Any])?.flatMap(walk) ?? []
            }
            return walk(try JSONSerialization.jsonObject(with: Data(contentsOf: dashboard)))
        }

        @Test func everyQueryNamesAnExposedFamilyAndOnlyItsLabels() async throws {
            let exposed = try await AssistStack.with { gateway, orchestrator in
                try await ServiceProcess.with("notifier") { notifier in
                    // One upsert and one run: events produced and consumed, model calls counted.
                    let user = try await AssistFlow.family(gateway)
                    _ = try await AssistStack.run(gateway, user: user, ["goal": "Quick dinners", "mode": "meals", "days": 1])
                    try await Task.sleep(for: .seconds(3))
                    var labels: [String: Set<String>] = [:]
                    for service in [gateway, orchestrator, notifier] {
                        let (status, body) = try await HTTPTestClient.get(service.baseURL.appendingPathComponent("metrics"))
                        #expect(status == 200)
                        labels.merge(PrometheusText.labelNames(String(decoding: body, as: UTF8.self))) { $0.union($1) }
                    }
                    return labels
                }
            }
            let queries = try Self.queries()
            #expect(queries.count >= 20, "\(queries)")
            var families = Set<String>()
            for query in queries {
                let named = Set(query.matches(of: /hearth_[a-z0-9_]+/).map { match in
                    let name = String(match.output)
                    return name.hasSuffix("_bucket") ? String(name.dropLast("_bucket".count)) : name
                })
                let matched = query.matches(of: /([a-z_]+)\s*(?:=~|!~|!=|=)\s*"/).map { String($0.output.1) }
                let grouped = query.matches(of: /by\s*\(([^)]*)\)/).flatMap { $0.output.1.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
                let used = Set(matched + grouped).subtracting(["service", "le"])
                for family in named {
                    families.insert(family)
                    let carried = exposed[family]
                    #expect(carried != nil, "no executable exposes \(family): \(query)")
                    #expect(used.isSubset(of: carried ?? []), "\(family) carries \(carried ?? []), the query uses \(used): \(query)")
                }
            }
            // The families the issue names each have a panel.
            for family in [
                "hearth_http_requests_total", "hearth_http_request_duration_seconds", "hearth_events_produced_total", "hearth_events_consumed_total",
                "hearth_projection_lag", "hearth_projection_apply_duration_seconds", "hearth_dlq_events_total", "hearth_model_calls_total",
                "hearth_model_tokens_total", "hearth_model_cost_cents_total", "hearth_reminders_due", "hearth_reminders_sent_total",
                "hearth_reminders_failed_total",
            ] {
                #expect(families.contains(family), "no panel shows \(family)")
            }
        }
    }
}
