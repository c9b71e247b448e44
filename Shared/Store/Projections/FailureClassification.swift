import PostgresNIO

/// Decides whether a failed apply is worth retrying as is (the database or the network hiccuped)
/// or points at the event itself (it will fail the same way every time, so it is parked).
public enum FailureClassification {
    /// SQLSTATEs that say "try again": serialization failure, deadlock, shutdown, too many connections, connection loss.
    static let transientStates: Set<String> = ["40001", "40P01", "57P01", "57P02", "57P03", "53300", "08000", "08003", "08006"]

    static func isTransient(_ error: any Error) -> Bool {
        switch error {
        case is OffsetConflict, is CancellationError:
            return true
        case let error as PostgresTransactionError:
            if let inner = error.closureError ?? error.beginError ?? error.commitError { return isTransient(inner) }
            return true
        case let error as PSQLError:
            guard let state = error.serverInfo?[.sqlState] else { return true }
            return transientStates.contains(state)
        default:
            return false
        }
    }

    /// A short, log-safe description: the SQL message for database errors, never bind values.
    public static func describe(_ error: any Error) -> String {
        switch error {
        case let error as PostgresTransactionError:
            if let inner = error.closureError ?? error.beginError ?? error.commitError { return describe(inner) }
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
