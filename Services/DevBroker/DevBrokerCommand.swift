import Dispatch
import Foundation
import NIOCore

/// A Kafka-compatible broker for development and tests: librdkafka's mock cluster with the
/// Hearth topic catalogue, reachable on a fixed port. It keeps everything in memory.
///
/// Environment: HEARTH_DEVBROKER_BROKERS (1), HEARTH_KAFKA_PORT (9092; 0 = any free port),
/// HEARTH_DEVBROKER_BOOTSTRAP_FILE (optional; receives the same line as stdout).
/// Stdout gets exactly one line, `bootstrap.servers=127.0.0.1:<port>`, once the broker is
/// ready and a SIGTERM/SIGINT would stop it cleanly.
public enum DevBrokerCommand {
    public static func main() {
        // Signal handling comes first: a harness may send SIGTERM as soon as it has the
        // bootstrap line, and a signal before this point would kill the process uncleanly.
        let stopRequested = DispatchSemaphore(value: 0)
        let signalSources = installSignalHandlers(signalling: stopRequested)

        let cluster: MockCluster
        let forwarder: BootstrapForwarder
        do {
            let settings = try DevBrokerSettings.fromEnvironment()
            cluster = try MockCluster(brokers: settings.brokers)
            let topics = try cluster.createCatalogue()
            let target = try mockBootstrapAddress(cluster.bootstrapServers)
            do {
                forwarder = try BootstrapForwarder(port: settings.port, target: target, control: ControlCommandHandler(cluster: cluster))
            } catch {
                cluster.destroy()
                throw DevBrokerFailure("cannot listen on 127.0.0.1:\(settings.port): \(error)")
            }
            let line = "bootstrap.servers=127.0.0.1:\(forwarder.port)"
            if let file = settings.bootstrapFile {
                // Written whole, then renamed, so that a watcher never reads half a line.
                let temporary = file + ".tmp"
                try (line + "\n").write(toFile: temporary, atomically: false, encoding: .utf8)
                guard rename(temporary, file) == 0 else { throw DevBrokerFailure("cannot write \(file): errno \(errno)") }
            }
            log("mock cluster \(cluster.bootstrapServers) with \(settings.brokers) broker(s), \(topics.count) topics; forwarding 127.0.0.1:\(forwarder.port)")
            print(line)
            fflush(nil)
        } catch {
            log("error: \(error)")
            exit(1)
        }

        stopRequested.wait()
        log("stopping")
        forwarder.stop()
        cluster.destroy()
        withExtendedLifetime(signalSources) {}
        exit(0)
    }

    /// Nonisolated: `main` is main-actor isolated, and a handler closure formed there would
    /// inherit that isolation and trap when Dispatch runs it on another thread.
    private nonisolated static func installSignalHandlers(signalling stop: DispatchSemaphore) -> [any DispatchSourceSignal] {
        [SIGTERM, SIGINT].map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { stop.signal() }
            source.resume()
            return source
        }
    }

    private static func mockBootstrapAddress(_ servers: String) throws -> SocketAddress {
        let first = servers.split(separator: ",").first.map(String.init) ?? servers
        guard let colon = first.lastIndex(of: ":"), let port = Int(first[first.index(after: colon)...]) else {
            throw DevBrokerFailure("unexpected mock bootstrap address \(servers)")
        }
        return try SocketAddress(ipAddress: String(first[..<colon]), port: port)
    }

    /// Diagnostics go to stderr: stdout carries only the bootstrap line.
    private static func log(_ message: String) {
        FileHandle.standardError.write(Data("devbroker: \(message)\n".utf8))
    }
}
