/// Reads something a client may ask for the moment a stream showed it, before its projection has
/// it (a run just admitted, an action just proposed): polls briefly, nil when it never appears.
func readOnceProjected<T: Sendable>(within timeout: Duration, _ read: () async throws -> T?) async throws -> T? {
    let deadline = ContinuousClock.now + timeout
    while true {
        if let found = try await read() { return found }
        guard ContinuousClock.now < deadline else { return nil }
        try await Task.sleep(for: .milliseconds(25))
    }
}
