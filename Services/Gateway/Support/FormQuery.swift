import Foundation
import Hummingbird

/// A request's query string read as HTML forms and browsers' `URLSearchParams` write it: `+` is a
/// space, then percent-escapes are decoded (so `%2B` stays a plus). Hummingbird's
/// `queryParameters` leaves `+` as it is, which turned `q=quick+noodles` into one word.
/// The first value of a repeated name wins.
enum FormQuery {
    static func parameters(of request: Request) -> [String: String] {
        var parameters: [String: String] = [:]
        for pair in (request.uri.query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), !name.isEmpty, parameters[name] == nil else { continue }
            // A value with a malformed percent-escape is kept as written, its '+' still a space.
            parameters[name] = parts.count > 1 ? decode(parts[1]) ?? parts[1].replacingOccurrences(of: "+", with: " ") : ""
        }
        return parameters
    }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
