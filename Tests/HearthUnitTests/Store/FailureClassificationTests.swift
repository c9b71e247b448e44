import HearthKafka
@testable import HearthStore
import PostgresNIO
import Testing

/// Which failures of a batch the projection runner retries as they are (transient) and which it
/// treats as the events' own (isolated, then parked).
@Suite struct FailureClassificationTests {
    @Test("a broker away for a while is transient; a fatal producer, or a broker's refusal, is not")
    func kafkaErrors() {
        #expect(FailureClassification.isTransient(KafkaError(code: KafkaErrorCode.messageTimedOut)))
        #expect(!FailureClassification.isTransient(KafkaError(code: KafkaErrorCode.messageTimedOut, message: "fatal", isRetriable: true, isFatal: true)))
        #expect(!FailureClassification.isTransient(KafkaError(code: KafkaErrorCode.messageSizeTooLarge)))
    }

    @Test("statement and lock timeouts, cancellations and connection failures are transient; constraint and syntax errors are not")
    func sqlStates() {
        for state in ["40001", "40P01", "57014", "55P03", "57P01", "53300", "08006", "08001"] {
            #expect(FailureClassification.isTransient(sqlState: state), "\(state)")
        }
        for state in ["23505", "23503", "42601", "42P01", "22P02", "XX000"] {
            #expect(!FailureClassification.isTransient(sqlState: state), "\(state)")
        }
    }

    @Test("client-side PostgresNIO failures are transient only when the connection or pool went away")
    func clientCodes() {
        for code: PSQLError.Code in [.connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed] {
            #expect(FailureClassification.transientClientCodes.contains(code), "\(code)")
        }
        for code: PSQLError.Code in [.tooManyParameters, .messageDecodingFailure, .unexpectedBackendMessage, .unsupportedAuthMechanism, .invalidCommandTag] {
            #expect(!FailureClassification.transientClientCodes.contains(code), "\(code)")
        }
    }

    /// PostgresNIO's `PostgresTransactionError` cannot be made outside it: the wrapped case, a
    /// conflict thrown inside a real transaction, is `ExactlyOnce.anOffsetMovedAheadUnderTheRunnerIsReadAgain`.
    @Test("an offset conflict is recognised; other errors are not")
    func offsetConflict() {
        #expect(FailureClassification.isOffsetConflict(OffsetConflict()))
        #expect(!FailureClassification.isOffsetConflict(CancellationError()))
        #expect(FailureClassification.underlying(OffsetConflict()) is OffsetConflict)
    }
}
