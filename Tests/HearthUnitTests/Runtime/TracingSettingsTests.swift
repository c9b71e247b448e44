import HearthConfiguration
import HearthRuntime
import Testing

/// Tracing is off unless a collector is named, and a bad setting stops start-up naming it.
@Suite struct TracingSettingsTests {
    @Test func offWithoutAnEndpoint() throws {
        let settings = try TracingSettings.load(environment: EnvironmentReader([:]))
        #expect(!settings.isEnabled)
        #expect(settings.sampleRatio == 1 && settings.wireFormat == .protobuf)
    }

    @Test func readsTheCollectorAndSampling() throws {
        let settings = try TracingSettings.load(environment: EnvironmentReader([
            "HEARTH_OTLP_ENDPOINT": "http://jaeger:4318/", "HEARTH_OTLP_PROTOCOL": "http/json", "HEARTH_TRACE_SAMPLE_RATIO": "0.25",
        ]))
        #expect(settings.endpoint == "http://jaeger:4318")
        #expect(settings.wireFormat == .json && settings.sampleRatio == 0.25)
    }

    @Test(arguments: [
        ("HEARTH_OTLP_ENDPOINT", "jaeger:4318"),
        ("HEARTH_OTLP_PROTOCOL", "grpc"),
        ("HEARTH_TRACE_SAMPLE_RATIO", "1.5"),
    ])
    func refusesABadSettingNamingIt(variable: String, value: String) {
        var values = ["HEARTH_OTLP_ENDPOINT": "http://collector:4318"]
        values[variable] = value
        #expect {
            _ = try TracingSettings.load(environment: EnvironmentReader(values))
        } throws: { error in
            "\(error)".contains(variable)
        }
    }

    @Test func theLoggedEndpointHidesAPassword() throws {
        let settings = try TracingSettings.load(environment: EnvironmentReader(["HEARTH_OTLP_ENDPOINT": "https://tenant:s3cret@otlp.example.com/otlp"]))
        #expect(settings.redactedEndpoint == "https://…@otlp.example.com/otlp")
        #expect(settings.endpoint == "https://tenant:s3cret@otlp.example.com/otlp")
        let plain = try TracingSettings.load(environment: EnvironmentReader(["HEARTH_OTLP_ENDPOINT": "http://jaeger:4318"]))
        #expect(plain.redactedEndpoint == "http://jaeger:4318")
    }
}
