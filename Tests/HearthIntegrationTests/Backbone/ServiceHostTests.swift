import Foundation
import Testing

extension BackboneSuite {
    /// How an executable ends when it cannot serve.
    @Suite struct ServiceHostFailures {
        @Test func anExecutableWhosePortIsTakenSaysSoInOneLineAndExitsWithOne() async throws {
            let taken = try LoopbackSocket(listening: true)
            defer { taken.close() }
            let notifier = try ServiceProcess("notifier", environment: ["HEARTH_HTTP_PORT": String(taken.port)])
            for _ in 0..<600 where notifier.isRunning { try await Task.sleep(for: .milliseconds(50)) }
            #expect(!notifier.isRunning)
            #expect(notifier.terminationStatus == 1)
            let log = notifier.logTail()
            #expect(log.contains("notifier: stopped: cannot listen on 127.0.0.1:\(taken.port): the address is already in use"))
            #expect(!log.contains("Fatal error"), "a trap, not a clean exit: \(log)")
        }
    }
}
