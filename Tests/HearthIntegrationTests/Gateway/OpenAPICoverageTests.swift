import Foundation
import HearthDomain
import Testing

extension BackboneSuite {
    /// `GET /openapi.json` documents exactly the routes the gateway's router holds: a route
    /// without documentation fails this test, and so does documentation of a route that is gone.
    @Suite struct OpenAPICoverage {
        static let methods = ["get", "put", "post", "delete", "patch", "head", "options", "trace"]

        /// The document as it is in the repository.
        static var repositoryDocument: URL {
            URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Services/Gateway/OpenAPI/openapi.json")
        }

        @Test func theDocumentListsEveryRouteAndNothingElse() async throws {
            let adminName = "OpenAPI admin \(UUID().uuidString.prefix(8))"
            let adminId = UserIdentity.userId(provider: .dev, subject: UserIdentity.devSubject(forName: adminName)).uuidString.lowercased()
            try await ServiceProcess.with("gateway", environment: ["HEARTH_ADMIN_USER_IDS": adminId]) { gateway in
                let served = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("openapi.json"))
                #expect(served.status == 200)
                let document = served.json
                #expect((document["openapi"] as? String)?.hasPrefix("3.1") == true)
                let repository = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.repositoryDocument)) as? NSDictionary
                #expect(repository == (document as NSDictionary), "the gateway serves the document in the repository")

                var documented = Set<String>()
                for (path, item) in document["paths"] as? [String: Any] ?? [:] {
                    for method in (item as? [String: Any] ?? [:]).keys where Self.methods.contains(method) {
                        documented.insert("\(method.uppercased()) \(path)")
                    }
                }

                let admin = try await GatewayUser.signIn(gateway, name: adminName)
                let listed = try await HTTPTestClient.send("GET", gateway.baseURL.appendingPathComponent("v1/admin/routes"), headers: admin.headers)
                #expect(listed.status == 200)
                let registered = Set((listed.json["routes"] as? [[String: String]] ?? []).compactMap { route -> String? in
                    guard let method = route["method"], let path = route["path"] else { return nil }
                    return "\(method) \(path)"
                })
                #expect(registered.count >= 19, "\(registered.sorted())")
                #expect(registered.subtracting(documented).isEmpty, "routes missing from openapi.json: \(registered.subtracting(documented).sorted())")
                #expect(documented.subtracting(registered).isEmpty, "documented routes that do not exist: \(documented.subtracting(registered).sorted())")
            }
        }
    }
}
