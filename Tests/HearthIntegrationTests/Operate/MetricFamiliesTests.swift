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
}
