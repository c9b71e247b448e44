import AsyncHTTPClient
import Foundation
import Logging
import NIOCore

/// What Google's token endpoint granted.
public struct TokenGrant: Sendable, Decodable {
    public let accessToken: String
    public let expiresIn: Int?
    public let refreshToken: String?
    public let scope: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case scope
    }
}

public enum TokenEndpointError: Error, CustomStringConvertible, Sendable {
    /// The grant (code or refresh token) is no longer valid: the user must connect again.
    case invalidGrant(String)
    /// Any other refusal; `retriable` for 429 and 5xx.
    case refused(status: Int, error: String, retriable: Bool)
    case malformedReply(String)

    public var description: String {
        switch self {
        case .invalidGrant(let detail): "invalid_grant: \(detail)"
        case .refused(let status, let error, _): "token endpoint answered \(status): \(error)"
        case .malformedReply(let detail): "token endpoint reply unreadable: \(detail)"
        }
    }
}

/// The OAuth 2.0 token endpoint: authorization-code exchange and refresh. Never logs tokens.
public struct GoogleTokenEndpoint: Sendable {
    let settings: GoogleSettings
    let http: HTTPClient

    public init(settings: GoogleSettings, http: HTTPClient) {
        self.settings = settings
        self.http = http
    }

    public func exchange(code: String) async throws -> TokenGrant {
        try await post([
            "grant_type": "authorization_code", "code": code, "redirect_uri": settings.redirectURI,
            "client_id": settings.clientId ?? "", "client_secret": settings.clientSecret ?? "",
        ])
    }

    public func refresh(refreshToken: String) async throws -> TokenGrant {
        try await post([
            "grant_type": "refresh_token", "refresh_token": refreshToken,
            "client_id": settings.clientId ?? "", "client_secret": settings.clientSecret ?? "",
        ])
    }

    /// Asks Google to forget a grant (disconnect). Answers whether Google confirmed it.
    public func revoke(token: String) async throws -> Bool {
        var request = HTTPClientRequest(url: settings.revokeURL)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: Self.formEncode(["token": token])))
        let response = try await http.execute(request, timeout: .seconds(10))
        _ = try await response.body.collect(upTo: 1 << 16)
        return response.status.code == 200
    }

    static func formEncode(_ fields: [String: String]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.keys.sorted().map { key in
            "\(key)=\(fields[key]!.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }.joined(separator: "&")
    }

    private func post(_ fields: [String: String]) async throws -> TokenGrant {
        var request = HTTPClientRequest(url: settings.tokenURL)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(string: Self.formEncode(fields)))
        let response = try await http.execute(request, timeout: .seconds(20))
        let body = try await response.body.collect(upTo: 1 << 20)
        let data = Data(buffer: body)
        let status = Int(response.status.code)
        guard (200..<300).contains(status) else {
            struct Refusal: Decodable {
                let error: String?
                let errorDescription: String?
                enum CodingKeys: String, CodingKey {
                    case error
                    case errorDescription = "error_description"
                }
            }
            let refusal = try? JSONDecoder().decode(Refusal.self, from: data)
            let code = refusal?.error ?? "http_\(status)"
            if code == "invalid_grant" { throw TokenEndpointError.invalidGrant(refusal?.errorDescription ?? "grant refused") }
            throw TokenEndpointError.refused(status: status, error: code, retriable: status == 429 || status >= 500)
        }
        do {
            return try JSONDecoder().decode(TokenGrant.self, from: data)
        } catch {
            throw TokenEndpointError.malformedReply("no access_token")
        }
    }
}
