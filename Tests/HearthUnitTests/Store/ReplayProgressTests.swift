import HearthStore
import Testing

/// The line `hearthctl replay` redraws while it rebuilds: how far it has read, at what rate, and
/// how long is left.
@Suite struct ReplayProgressTests {
    @Test func aProjectionThatPassesOverMostEventsStillShowsItsReadingProgress() {
        // household_members reads every household event and applies the few member events: after
        // one second it has read half the topic and applied 3.
        let progress = ReplayProgress(read: 15_000, applied: 3, total: 30_000, elapsed: .seconds(1))
        #expect(progress.line(label: "household_members", width: 10)
            == "household_members [#####-----] 15000/30000 events, 3 applied  15000/s  1 s left")
    }

    @Test func aFinishedReplayShowsAFullBarAndNothingLeft() {
        let progress = ReplayProgress(read: 300, applied: 300, total: 300, elapsed: .milliseconds(250))
        #expect(progress.line(label: "households", width: 4) == "households [####] 300/300 events, 300 applied  1200/s  0 s left")
    }

    @Test func nothingToReadIsAFullBarAndNoDivisionByZero() {
        let progress = ReplayProgress(read: 0, applied: 0, total: 0, elapsed: .zero)
        #expect(progress.line(label: "feedback", width: 4) == "feedback [####] 0/0 events, 0 applied  0/s  0 s left")
    }
}
