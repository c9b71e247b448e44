import Foundation
import HearthRuntime
import Hummingbird

/// `?limit=&before=` of a list read newest first: how many (within `range`, `defaultLimit`
/// without one) and the id of the last item of the previous page. Errors name the parameter.
struct PageQuery: Sendable {
    let limit: Int
    let before: UUID?

    /// `beforeWhat` says what `before` names in the error ("a chat id", "a message id").
    init(_ request: Request, defaultLimit: Int, range: ClosedRange<Int>, beforeWhat: String) throws {
        let query = request.uri.queryParameters
        var limit = defaultLimit
        if let text = query.get("limit") {
            guard let value = Int(text), range.contains(value) else {
                throw APIError.invalid("limit", "limit must be \(range.lowerBound) to \(range.upperBound)")
            }
            limit = value
        }
        var before: UUID?
        if let text = query.get("before"), !text.isEmpty {
            guard let id = UUID(uuidString: text) else { throw APIError.invalid("before", "before must be \(beforeWhat)") }
            before = id
        }
        self.limit = limit
        self.before = before
    }
}
