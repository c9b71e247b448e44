import HearthKafka
import HearthPrivacy
import PostgresNIO

/// Decides whether a failed apply is worth retrying as is (the database or the network hiccuped)
/// or points at the event itself (it will fail the same way every time, so it is parked).
public enum FailureClassification {
    /// SQLSTATEs that say "try again": serialization failure, deadlock, a statement or lock
    /// timeout or a cancelled query, shutdown, too many connections, connection loss.
    static let transientStates: Set<String> = [
        "40001", "40P01", "57014", "55P03", "57P01", "57P02", "57P03", "57P05", "53300", "08000", "08001", "08003", "08004", "08006",
    ]

    /// Client-side PostgresNIO failures (no server answer) that pass: the connection or the pool
    /// went away. The others (a message it cannot decode, too many bind parameters, an auth
    /// mechanism it lacks) fail the same way every time.
    static let transientClientCodes: [PSQLError.Code] = [
        .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed, .queryCancelled,
    ]

    /// Whether a server's SQLSTATE says the same statement may succeed later.
    static func isTransient(sqlState: String) -> Bool { transientStates.contains(sqlState) }

    /// The error that caused `error`: PostgresNIO wraps whatever a `withTransaction` closure, its
    /// BEGIN or its COMMIT threw in a `PostgresTransactionError`, so a type check on the error
    /// a transaction throws must look inside first.
    public static func underlying(_ error: any Error) -> any Error {
        if let wrapped = error as? PostgresTransactionError, let inner = wrapped.closureError ?? wrapped.beginError ?? wrapped.commitError {
            return underlying(inner)
        }
        return error
    }

    /// The offsets this runner held were not the stored ones (another owner, or a replay's swap,
    /// moved them): refresh them and try again.
    static func isOffsetConflict(_ error: any Error) -> Bool { underlying(error) is OffsetConflict }

    public static func isTransient(_ error: any Error) -> Bool {
        switch underlying(error) {
        case is OffsetConflict, is CancellationError, is PostgresTransactionError:
            return true
        case let error as PSQLError:
            guard let state = error.serverInfo?[.sqlState] else { return transientClientCodes.contains(error.code) }
            return isTransient(sqlState: state)
        case PrivacyError.keyNotLoaded:
            // A data key not committed yet, or not yet read: `DataKeyRing.unknownKeyPatience`.
            return true
        case let error as KafkaError:
            // A projection's publish inside `apply`: a broker away for a while (`_MSG_TIMED_OUT`)
            // passes; a fatal producer does not.
            return error.isRetriable && !error.isFatal
        default:
            return false
        }
    }

    /// A short, log-safe description: the SQL message for database errors, never bind values.
    public static func describe(_ error: any Error) -> String {
        let error = underlying(error)
        switch error {
        case is PostgresTransactionError:
            return "transaction failed"
        case let error as PSQLError:
            if let message = error.serverInfo?[.message] {
                return "postgres \(error.serverInfo?[.sqlState] ?? "?"): \(message)"
            }
            // No server answered (refused, reset, TLS): what the connection met says why.
            return error.underlying.map { "postgres \(error.code): \($0)" } ?? "postgres: \(error.code)"
        default:
            return String(describing: error)
        }
    }
}
