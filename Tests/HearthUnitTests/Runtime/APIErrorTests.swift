import HearthKafka
@testable import HearthRuntime
import Testing

@Suite struct APIErrorTests {
    @Test func aHugeQuotedValueIsShortenedInTheMessageAndTheField() {
        let huge = String(repeating: "x", count: 100_000)
        let error = APIError.invalid("prefs." + huge, "time_zone \"\(huge)\" is not a known IANA time zone")
        #expect(error.message.count == 400 && error.message.hasSuffix("…"), "at most 400 characters, the ellipsis included")
        #expect(error.message.hasPrefix("time_zone \"xxx"))
        #expect(error.field?.count == 200)
    }

    @Test func ordinaryMessagesAndFieldsAreKeptWhole() {
        let error = APIError.invalid("prefs.adults", "prefs.adults must be a whole number")
        #expect(error.message == "prefs.adults must be a whole number")
        #expect(error.field == "prefs.adults")
    }

    @Test func anEventTooLargeForKafkaIsA413() {
        let mapped = APIError.from(KafkaError(code: KafkaErrorCode.messageSizeTooLarge))
        #expect(mapped?.status == .contentTooLarge && mapped?.code == "payload_too_large")
    }

    /// Kafka did not acknowledge in time, or the broker is away: the client may retry.
    @Test func anEventKafkaDidNotAcknowledgeIsA503WithRetryAfter() {
        for code in [KafkaErrorCode.messageTimedOut, KafkaErrorCode.transport] {
            let mapped = APIError.from(KafkaError(code: code))
            #expect(mapped?.status == .serviceUnavailable && mapped?.code == "event_not_acknowledged", "\(code)")
            #expect(mapped?.headers[.retryAfter] == "1")
        }
        // A fatal producer or a refusal that retrying cannot mend stays an internal error.
        #expect(APIError.from(KafkaError(code: KafkaErrorCode.transport, message: "fatal", isRetriable: true, isFatal: true)) == nil)
        #expect(APIError.from(KafkaError(code: KafkaErrorCode.state, message: "bad state", isRetriable: false, isFatal: false)) == nil)
    }
}
