import PostgresNIO

/// A statement Postgres parses and plans once per connection instead of on every call: PostgresNIO
/// prepares it the first time a connection runs it. For the hot paths, where parsing and planning a
/// short statement took several times longer than running it (measured with
/// `log_min_duration_statement`: ~0.3–1 ms of parse and bind against ~0.05–0.1 ms of execute).
///
/// Conformers list their parameters once, in `$1, $2, …` order. `bindingDataTypes` names the same
/// types for the prepare step, so that Postgres does not infer them from the SQL: in `$2::date` it
/// would take a text parameter for a date. A debug build checks that the two lists agree.
///
/// Postgres re-plans a prepared statement by itself when a table it reads is replaced (a replay's
/// swap) or the `search_path` changes.
public protocol PreparedStatement: PostgresPreparedStatement {
    /// The values of `$1, $2, …`, in order.
    var parameters: [any PostgresEncodable] { get }
}

extension PreparedStatement {
    public func makeBindings() throws -> PostgresBindings {
        let parameters = parameters
        assert(
            parameters.map(\.psqlType) == Self.bindingDataTypes,
            "\(Self.self): the parameters' types \(parameters.map(\.psqlType)) are not bindingDataTypes \(Self.bindingDataTypes)")
        var bindings = PostgresBindings(capacity: parameters.count)
        for parameter in parameters { try bindings.append(parameter) }
        return bindings
    }
}

extension PreparedStatement where Row: PostgresDecodable {
    /// A one-column row.
    public func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Row.self)
    }
}

extension PreparedStatement where Row == Void {
    /// A statement run for its effect: its rows, if any, carry nothing to read.
    public func decodeRow(_ row: PostgresRow) throws {}
}
