/// The least a production process's environment must hold for `ServiceSettings.load` to succeed.
enum ServiceSettingsFixture {
    static let production: [String: String] = [
        "HEARTH_MASTER_KEY": String(repeating: "0", count: 63) + "1",
    ]
}
