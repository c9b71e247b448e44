import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Minimal HTTP calls for tests: status, headers and the JSON body.
enum HTTPTestClient {
    struct Reply {
        let status: Int
        let headers: [String: String]
        let body: Data

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:] }
        var errorField: String? { (json["error"] as? [String: Any])?["field"] as? String }
        var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
        func header(_ name: String) -> String? { headers.first { $0.key.lowercased() == name.lowercased() }?.value }

        /// The body as `T`; a body that is not one names the status and shows the body.
        func decoded<T: Decodable>(_ type: T.Type = T.self) throws -> T {
            do {
                return try JSONDecoder().decode(T.self, from: body)
            } catch {
                throw UndecodableReply(status: status, body: String(decoding: body, as: UTF8.self), error: "\(error)")
            }
        }
    }

    struct UndecodableReply: Error, CustomStringConvertible {
        let status: Int
        let body: String
        let error: String
        var description: String { "HTTP \(status) \(body) does not decode: \(error)" }
    }

    /// What the server answers, as it answered it: no cookie jar (a test sends the cookies it
    /// means to) and no redirect followed (a test reads the 3xx and its `Location`).
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 30
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        // No cache either: a test that sends If-None-Match must see the 304 itself.
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
    }()

    /// Hands every 3xx back to the caller.
    final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }

    static func get(_ url: URL, headers: [String: String] = [:]) async throws -> (Int, Data) {
        let reply = try await send("GET", url, headers: headers)
        return (reply.status, reply.body)
    }

    /// `idleTimeout`: how long the reply may send nothing before the call fails (30 s unless given).
    static func send(
        _ method: String, _ url: URL, body: Data? = nil, headers: [String: String] = [:], idleTimeout: TimeInterval? = nil
    ) async throws -> Reply {
        var request = URLRequest(url: url)
        request.httpMethod = method
        if let idleTimeout { request.timeoutInterval = idleTimeout }
        request.httpBody = body
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields { headers["\(key)"] = "\(value)" }
        return Reply(status: http.statusCode, headers: headers, body: data)
    }

    static func postJSON(_ url: URL, _ object: Any, headers: [String: String] = [:]) async throws -> Reply {
        try await send("POST", url, body: try JSONSerialization.data(withJSONObject: object), headers: headers)
    }
}
