import CRdKafka
import HearthConfiguration
@testable import HearthKafka
import HearthRuntime
import Testing

/// Millisecond settings that librdkafka reads as floats (`linger.ms`): the environment may give
/// fractions, and they reach librdkafka as it parses them.
@Suite struct DecimalSettingTests {
    @Test func aDecimalIsReadWithItsFractionAndAbsentMeansTheDefault() throws {
        let environment = EnvironmentReader(["A": "0.25", "B": "2", "C": ""])
        #expect(try environment.decimal("A", default: 0, range: 0...1_000) == 0.25)
        #expect(try environment.decimal("B", default: 0, range: 0...1_000) == 2)
        #expect(try environment.decimal("C", default: 0.5, range: 0...1_000) == 0.5)
        #expect(try environment.decimal("MISSING", default: 0.5, range: 0...1_000) == 0.5)
    }

    @Test(arguments: ["abc", "-0.5", "1000.5", "nan", "inf", "0,25"])
    func aValueThatIsNotANumberInRangeNamesTheVariable(text: String) {
        let environment = EnvironmentReader(["HEARTH_X_MS": text])
        let error = #expect(throws: ConfigurationError.self) { try environment.decimal("HEARTH_X_MS", default: 0, range: 0...1_000) }
        #expect(error?.variable == "HEARTH_X_MS")
        #expect(error?.reason == "expected a number in 0...1000, got \(text)")
    }

    @Test func theSharedProducersLingerTakesAFraction() throws {
        let settings = try ServiceSettings.load(
            service: "gateway", defaultPort: 8080, environment: EnvironmentReader(ServiceSettingsFixture.production.merging(["HEARTH_PRODUCER_LINGER_MS": "0.5"]) { $1 }))
        #expect(settings.producerLingerMs == 0.5)
        let defaults = try ServiceSettings.load(service: "gateway", defaultPort: 8080, environment: EnvironmentReader(ServiceSettingsFixture.production))
        #expect(defaults.producerLingerMs == 0)
    }

    @Test func lingerIsWrittenAsLibrdkafkaParsesIt() throws {
        for (linger, text) in [(0.0, "0"), (0.25, "0.25"), (5.0, "5"), (2_000.0, "2000")] {
            let configuration = KafkaProducerConfiguration(bootstrapServers: "127.0.0.1:9", clientId: "t", lingerMs: linger)
            #expect(configuration.properties["linger.ms"] == text)
            // librdkafka accepts the text and reads it back as the same number.
            let conf = try RdKafkaConfig.make(configuration.properties)
            defer { rd_kafka_conf_destroy(conf) }
            var buffer = [CChar](repeating: 0, count: 64)
            var size = buffer.count
            #expect(rd_kafka_conf_get(conf, "linger.ms", &buffer, &size) == RD_KAFKA_CONF_OK)
            #expect(Double(RdKafkaConfig.cString(buffer)) == linger)
        }
    }
}
