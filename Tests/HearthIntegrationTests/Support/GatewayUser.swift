import Foundation

/// A user signed in to a test gateway through `POST /v1/auth/dev`, with the headers that
/// authenticate their requests.
struct GatewayUser: Sendable {
    let userId: String
    let token: String

    var headers: [String: String] { ["Authorization": "Bearer \(token)"] }

    func headers(_ extra: [String: String]) -> [String: String] { headers.merging(extra) { _, new in new } }

    /// Signs in a fresh user (a unique name unless one is given).
    static func signIn(_ gateway: ServiceProcess, name: String = "tester-\(UUID().uuidString.prefix(8))") async throws -> GatewayUser {
        try await signIn(baseURL: gateway.baseURL, name: name)
    }

    /// Signs in through the gateway at `baseURL` (any instance: they share the signing key).
    static func signIn(baseURL: URL, name: String) async throws -> GatewayUser {
        let reply = try await HTTPTestClient.postJSON(baseURL.appendingPathComponent("v1/auth/dev"), ["name": name])
        guard reply.status == 200, let userId = reply.json["user_id"] as? String, let token = reply.json["jwt"] as? String else {
            throw GatewaySignInFailed(status: reply.status, body: String(decoding: reply.body, as: UTF8.self))
        }
        return GatewayUser(userId: userId, token: token)
    }

    /// Signs in and creates the user's household; answers the user and the household id.
    static func withHousehold(_ gateway: ServiceProcess, name: String = "The Testers") async throws -> (GatewayUser, String) {
        let user = try await signIn(gateway)
        let reply = try await HTTPTestClient.postJSON(
            gateway.baseURL.appendingPathComponent("v1/households/upsert"), ["name": name, "prefs": ["adults": 2]], headers: user.headers)
        guard reply.status == 200, let household = reply.json["household_id"] as? String else {
            throw GatewaySignInFailed(status: reply.status, body: String(decoding: reply.body, as: UTF8.self))
        }
        return (user, household)
    }
}

struct GatewaySignInFailed: Error, CustomStringConvertible {
    let status: Int
    let body: String
    var description: String { "gateway answered \(status): \(body)" }
}
