import Foundation
import HearthDomain
import Testing

extension BackboneSuite {
    /// schemathesis (PyPI, in `.run/venv`) against the gateway's own `/openapi.json`, as a signed-in
    /// member with a household who is also an admin: no answer is a 5xx, every status is one the
    /// document gives for the operation, and every body (errors included) and content type conform
    /// to the schema the document gives for it. What client generators trust is what the gateway
    /// does.
    ///
    /// `make test` runs a short pass with a fixed seed (the same cases on every machine);
    /// `make fuzz` a long one with a fresh seed (`HEARTH_FUZZ_EXAMPLES`, `HEARTH_FUZZ_SEED`).
    @Suite struct SchemaFuzzing {
        /// Operations left out, and why: each would end the fuzzer's own session (logout, deleting
        /// the account) or needs an identity provider this stack has none of (Apple's keys,
        /// Google's OAuth); their hostile inputs have tests of their own (Sessions, AccountDeletion,
        /// AppleNonce, GoogleOAuthReturn).
        static let excludedOperations = ["logout", "deleteMe", "signInWithApple", "connectGoogle", "googleCallback"]
        static let checks = ["not_a_server_error", "status_code_conformance", "content_type_conformance", "response_schema_conformance"]

        @Test func theGatewayAnswersWhatItsOpenAPIDocumentSays() async throws {
            let environment = ProcessInfo.processInfo.environment
            let examples = environment["HEARTH_FUZZ_EXAMPLES"].flatMap(Int.init) ?? 3
            let seed = environment["HEARTH_FUZZ_SEED"] ?? "20261127"
            let name = "Schema Fuzzer"
            let fuzzer = UserIdentity.userId(provider: .dev, subject: UserIdentity.devSubject(forName: name)).uuidString.lowercased()
            let gatewayEnvironment = [
                "HEARTH_ADMIN_USER_IDS": fuzzer, "HEARTH_AUTH_RATE_LIMIT_PER_MIN": "10000000", "HEARTH_RATE_LIMIT_PER_MIN": "10000000",
                "HEARTH_DEVICE_SIGNUPS_PER_HOUR": "1000000", "HEARTH_MONTHLY_QUOTA": "1000000",
                // One sign-in serves the whole run, and `make fuzz` runs longer than an access token lives.
                "HEARTH_ACCESS_TOKEN_SECONDS": "86400",
                // The console's Sign in with Apple is configured (its start is a redirect, not a 503).
                "HEARTH_APPLE_WEB_CLIENT_ID": "com.hearth.fuzz.web", "HEARTH_PUBLIC_URL": "https://hearth.example",
            ]
            // With the orchestrator, so the streaming routes run to their end instead of waiting out their timeout.
            try await AssistStack.with(gateway: gatewayEnvironment) { gateway, _ in
                let user = try await GatewayUser.signIn(gateway, name: name)
                #expect(user.userId == fuzzer)
                let household = try await HTTPTestClient.postJSON(
                    gateway.baseURL.appendingPathComponent("v1/households/upsert"), ["name": "The Fuzzers", "prefs": ["adults": 2]], headers: user.headers)
                #expect(household.status == 200)

                var arguments = [
                    "run", gateway.baseURL.appendingPathComponent("openapi.json").absoluteString,
                    "-H", "Authorization: Bearer \(user.token)",
                    "--checks", Self.checks.joined(separator: ","),
                    "--phases", "examples,coverage,fuzzing",
                    // One worker: hypothesis' caches are not thread-safe, and two workers in one
                    // process once failed a run with hypothesis' own "inconsistent results" error.
                    "--max-examples", String(examples), "--workers", "1", "--no-color",
                ]
                if seed != "random" { arguments += ["--seed", seed] }
                for operation in Self.excludedOperations { arguments += ["--exclude-operation-id", operation] }
                let run = try await Self.schemathesis(arguments)
                #expect(run.status == 0, "schemathesis found answers that break the document (seed \(seed)):\n\(run.failures)")
                let selected = Self.figure(after: "Selected: ", in: run.output)
                #expect(selected ?? 0 > 150 && Self.figure(after: "Tested: ", in: run.output) == selected,
                        "schemathesis did not test every selected operation:\n\(run.output.suffix(2000))")
            }
        }

        /// The number a summary line of the report starts with (`Selected: 167/172` → 167).
        static func figure(after label: String, in output: String) -> Int? {
            guard let range = output.range(of: label, options: .backwards) else { return nil }
            return Int(output[range.upperBound...].prefix { $0.isNumber })
        }

        struct Run {
            let status: Int32
            let output: String
            /// The report's failures section, or its tail.
            var failures: String {
                guard let start = output.range(of: "=== FAILURES ===") ?? output.range(of: "=== ERRORS ===") else { return String(output.suffix(4000)) }
                return String(output[start.lowerBound...].prefix(12_000))
            }
        }

        /// Runs the venv's `schemathesis` with its output in a file (a long report would fill a pipe).
        static func schemathesis(_ arguments: [String]) async throws -> Run {
            let executable = ICalendarProbe.python.deletingLastPathComponent().appendingPathComponent("schemathesis")
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("schemathesis-\(UUID().uuidString).log")
            FileManager.default.createFile(atPath: log.path, contents: nil)
            defer { try? FileManager.default.removeItem(at: log) }
            let handle = try FileHandle(forWritingTo: log)
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            process.standardOutput = handle
            process.standardError = handle
            process.standardInput = FileHandle.nullDevice
            // Its own files (the cassette of a failure, hypothesis' example database) stay out of the tree.
            process.currentDirectoryURL = FileManager.default.temporaryDirectory
            let status: Int32 = try await withCheckedThrowingContinuation { continuation in
                process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
                do {
                    try process.run()
                } catch {
                    process.terminationHandler = nil
                    continuation.resume(throwing: error)
                }
            }
            try handle.close()
            return Run(status: status, output: try String(contentsOf: log, encoding: .utf8))
        }
    }
}
