import Metrics

/// The notifier's metric families (the dashboards and alerts of issue #10 read these names).
struct NotifierMetrics: Sendable {
    /// Reminder generations that are due and not yet delivered.
    let due = Gauge(label: "hearth_reminders_due")

    init() {
        // Registered at zero, so a fresh notifier's /metrics already lists every series.
        due.record(0)
        for channel in DeliveryChannels.all {
            Counter(label: "hearth_reminders_sent_total", dimensions: [("channel", channel)]).increment(by: 0)
            Counter(label: "hearth_reminders_failed_total", dimensions: [("channel", channel)]).increment(by: 0)
        }
    }

    func sent(channel: String, latenessMs: Int64) {
        Counter(label: "hearth_reminders_sent_total", dimensions: [("channel", channel)]).increment()
        // A Timer, so the histogram has the duration buckets (ms to 10 s) rather than value ones.
        Timer(label: "hearth_reminder_lateness_seconds", dimensions: [("channel", channel)]).recordMilliseconds(latenessMs)
    }

    func failed(channel: String) {
        Counter(label: "hearth_reminders_failed_total", dimensions: [("channel", channel)]).increment()
    }
}
