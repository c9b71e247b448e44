import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// Bounds a graceful shutdown. When SIGTERM or SIGINT arrives, a thread of its own waits
/// `seconds`; if the process is still running then, it logs so and exits with status 1.
///
/// Why: with the broker gone, librdkafka can block a consumer's close (leaving the group) or a
/// handle's destroy for as long as the broker stays away, and the process then never exits: an
/// orchestrator's stop hangs, a test's teardown hangs. Exiting there loses nothing: a request
/// was answered only after Kafka acknowledged its event, and a projection's offsets commit with
/// its rows, so what was not committed is read again on the next start.
///
/// It listens to the signals itself rather than waiting for its own graceful shutdown, which
/// the service group hands out in reverse order, one service after the other: the deadline
/// must start when shutdown does, not when everything else has already stopped. The wait runs
/// on a thread, not a task, so that a blocked cooperative pool cannot delay it.
struct ShutdownDeadline: Service {
    let seconds: Int
    let logger: Logger

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        try? await cancelWhenGracefulShutdown {
            for await signal in signals {
                arm(after: signal)
                break
            }
            // Stays until the group stops it, as every other service does.
            try await gracefulShutdown()
        }
    }

    private func arm(after signal: UnixSignal) {
        let seconds = seconds
        let logger = logger
        let thread = Thread {
            Thread.sleep(forTimeInterval: TimeInterval(seconds))
            logger.critical(
                "shutdown did not finish in time; exiting",
                metadata: ["signal": "\(signal)", "limit_s": "\(seconds)", "setting": "HEARTH_SHUTDOWN_TIMEOUT_S"])
            fflush(nil)
            _exit(1)
        }
        thread.name = "shutdown-deadline"
        thread.start()
    }
}
