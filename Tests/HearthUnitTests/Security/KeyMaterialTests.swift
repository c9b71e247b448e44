import Crypto
import Foundation
import HearthConfiguration
import HearthPrivacy
import Testing

@Suite struct KeyMaterialTests {
    /// Services started together each generate the dev key if it is missing: exactly one writes
    /// it (O_EXCL), and every one of them ends up with that one.
    @Test func executablesStartingTogetherShareOneGeneratedKey() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keys = try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    let key = try KeyMaterial.load("HEARTH_TEST_KEY", fileName: "test.key", environment: [:], runDirectory: directory, allowGenerated: true)
                    return try #require(key).withUnsafeBytes { Data($0) }
                }
            }
            return try await group.reduce(into: Set<Data>()) { $0.insert($1) }
        }
        #expect(keys.count == 1)
        let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/test.key")
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test func aConfiguredKeyWinsAndABadOneNamesTheSetting() throws {
        let hex = String(repeating: "ab", count: 32)
        let key = try #require(try KeyMaterial.load("HEARTH_TEST_KEY", fileName: "x", environment: ["HEARTH_TEST_KEY": hex], runDirectory: "/nonexistent", allowGenerated: false))
        #expect(key.withUnsafeBytes { Data($0) } == Data(repeating: 0xAB, count: 32))
        #expect(try KeyMaterial.load("HEARTH_TEST_KEY", fileName: "x", environment: [:], runDirectory: "/nonexistent", allowGenerated: false) == nil)
        #expect {
            _ = try KeyMaterial.load("HEARTH_TEST_KEY", fileName: "x", environment: ["HEARTH_TEST_KEY": "short"], runDirectory: "/nonexistent", allowGenerated: false)
        } throws: { "\($0)".contains("HEARTH_TEST_KEY") }
    }
}
