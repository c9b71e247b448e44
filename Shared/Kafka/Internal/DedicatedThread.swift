import Foundation

/// Runs blocking librdkafka calls on their own OS threads, so that they never occupy one of the
/// few threads of Swift's cooperative pool (on 2 cores a single blocked poll would halve it).
enum DedicatedThread {
    /// Starts `body` on a new thread and suspends until it returns.
    static func run<T: Sendable>(name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            start(name: name) {
                continuation.resume(with: Result { try body() })
            }
        }
    }

    static func run<T: Sendable>(name: String, _ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            start(name: name) {
                continuation.resume(returning: body())
            }
        }
    }

    /// Fire-and-forget; used for the long-lived poll loops, which report their end themselves.
    static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        thread.start()
    }
}
