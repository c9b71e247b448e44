import Foundation
import Testing

extension BackboneSuite {
    /// Device accounts (each with a fresh quota) cannot be minted without end from one address.
    @Suite struct DeviceSignUpLimits {
        @Test func newDeviceAccountsAreLimitedPerAddressAndSigningInAgainIsNot() async throws {
            try await ServiceProcess.with("gateway", environment: ["HEARTH_DEVICE_SIGNUPS_PER_HOUR": "3"]) { gateway in
                let url = gateway.baseURL.appendingPathComponent("v1/auth/device")
                let devices = (0..<4).map { _ in "device-\(UUID().uuidString)" }
                for device in devices.prefix(3) {
                    #expect(try await HTTPTestClient.postJSON(url, ["device_id": device]).status == 200)
                }
                let fourth = try await HTTPTestClient.postJSON(url, ["device_id": devices[3]])
                #expect(fourth.status == 429)
                #expect((fourth.json["error"] as? [String: Any])?["code"] as? String == "too_many_sign_ups")
                #expect(Int(fourth.headers["Retry-After"] ?? "") ?? 0 > 0)
                // An account that exists signs in as often as it likes (once projected).
                #expect(try await KafkaTestEnvironment.eventually {
                    try await HTTPTestClient.postJSON(url, ["device_id": devices[0]]).status == 200
                })
            }
        }
    }
}
