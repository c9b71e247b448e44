import Foundation
import Testing

extension BackboneSuite {
    /// How long a 404 takes must not tell whether an id exists, and a forged consistency token is
    /// refused at once rather than held.
    @Suite struct ExistenceOracle {
        @Test func unknownIdsAnswerAtOnceAndForgedTokensAre400() async throws {
            try await ServiceProcess.with("gateway") { gateway in
                let user = try await GatewayUser.signIn(gateway)
                for path in ["v1/assist/runs/\(UUID())", "v1/assist/runs/\(UUID())/events"] {
                    let started = ContinuousClock.now
                    let reply = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent(path), headers: user.headers)
                    #expect(reply.status == 404)
                    // It used to wait 3 s for a run that might still be on its way.
                    #expect(ContinuousClock.now - started < .milliseconds(1500), "\(path) took \(ContinuousClock.now - started)")
                }
                let started = ContinuousClock.now
                let decided = try await HTTPTestClient.postJSON(
                    gateway.baseURL.appendingPathComponent("v1/assistant/actions/\(UUID())/confirm"), [:], headers: user.headers)
                #expect([404, 400].contains(decided.status))
                #expect(ContinuousClock.now - started < .milliseconds(1500))

                // A position far past the end of the users topic's partition 0: no write returned it.
                let forged = try await HTTPTestClient.send(
                    "GET", gateway.baseURL.appendingPathComponent("v1/me"), headers: user.headers(["X-Consistency-Token": "users:0:999999999"]))
                #expect(forged.status == 400, "\(String(decoding: forged.body, as: UTF8.self))")
                #expect(String(decoding: forged.body, as: UTF8.self).contains("X-Consistency-Token"))
            }
        }
    }
}
