import Foundation
import Testing

/// A household with a child, and the calls the tracking tests make.
struct TrackingFamily: Sendable {
    let gateway: URL
    let user: GatewayUser
    let household: String
    let child: String

    /// Signs in a parent, creates the household and a child born `birthdate` (a girl unless told),
    /// and waits until the child is projected.
    static func make(_ gateway: ServiceProcess, name: String = "Maya", birthdate: String = "2026-05-01", sex: String? = "female") async throws -> TrackingFamily {
        let (user, household) = try await GatewayUser.withHousehold(gateway, name: "The Trackers")
        let added = try await HTTPTestClient.postJSON(
            gateway.baseURL.appendingPathComponent("v1/households/\(household)/members"),
            ["name": name, "role": "child", "birthdate": birthdate], headers: user.headers)
        #expect(added.status == 201, "\(added.text)")
        let child = try #require(added.json["member_id"] as? String).lowercased()
        let position = try #require(added.json["position"] as? String)
        let read = try await HTTPTestClient.send(
            "GET", gateway.baseURL.appendingPathComponent("v1/households/\(household)"), headers: user.headers(["X-Consistency-Token": position]))
        #expect(read.status == 200)
        let family = TrackingFamily(gateway: gateway.baseURL, user: user, household: household, child: child)
        if let sex {
            let set = try await family.send("PUT", "profile", ["sex": sex])
            #expect(set.status == 200, "\(set.text)")
        }
        return family
    }

    /// A second adult of the same household, through an invite.
    func caregiver() async throws -> GatewayUser {
        let other = try await GatewayUser.signIn(baseURL: gateway, name: "caregiver-\(UUID().uuidString.prefix(6))")
        let invite = try await HTTPTestClient.postJSON(gateway.appendingPathComponent("v1/households/\(household)/invites"), [:], headers: user.headers)
        let code = try #require(invite.json["code"] as? String, "\(invite.text)")
        let accepted = try await HTTPTestClient.postJSON(gateway.appendingPathComponent("v1/invites/\(code)/accept"), [:], headers: other.headers)
        #expect(accepted.status == 200, "\(accepted.text)")
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if try await HTTPTestClient.send("GET", url(""), headers: other.headers).status == 200 { return other }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("the caregiver never saw the child")
        return other
    }

    func url(_ path: String, _ query: [String: String] = [:]) -> URL {
        var url = gateway.appendingPathComponent("v1/children/\(child)")
        if !path.isEmpty { url = url.appendingPathComponent(path) }
        if !query.isEmpty { url = url.appending(queryItems: query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }) }
        return url
    }

    func send(_ method: String, _ path: String, _ body: [String: Any]? = nil, query: [String: String] = [:], as who: GatewayUser? = nil) async throws -> HTTPTestClient.Reply {
        try await HTTPTestClient.send(
            method, url(path, query), body: try body.map { try JSONSerialization.data(withJSONObject: $0) }, headers: (who ?? user).headers)
    }

    /// Creates a log; expects 201 and answers the log.
    func log(_ kind: String, _ body: [String: Any], as who: GatewayUser? = nil) async throws -> [String: Any] {
        let reply = try await send("POST", kind, body, as: who)
        #expect(reply.status == 201, "\(kind) \(body): \(reply.text)")
        return try #require(reply.json["log"] as? [String: Any], "\(reply.text)")
    }

    func timeline(_ query: [String: String] = [:]) async throws -> [[String: Any]] {
        let reply = try await send("GET", "timeline", query: query)
        #expect(reply.status == 200, "\(reply.text)")
        return reply.json["logs"] as? [[String: Any]] ?? []
    }
}

extension HTTPTestClient.Reply {
    var text: String { String(decoding: body, as: UTF8.self) }
}

enum TrackingTime {
    static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    static func ago(_ seconds: TimeInterval) -> String { iso(Date().addingTimeInterval(-seconds)) }

    static func date(_ text: Any?) -> Date? {
        guard let text = text as? String else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}

/// Test images made by libvips' own tools (installed by `make setup`), so they are real files.
enum TrackingImages {
    /// A black image of the given size, in the format `name`'s extension says.
    static func make(_ name: String, width: Int = 64, height: Int = 48) throws -> Data {
        try inScratch { directory in
            let file = directory.appendingPathComponent(name)
            _ = try run(["vips", "black", file.path, "\(width)", "\(height)"])
            return try Data(contentsOf: file)
        }
    }

    /// The pixel size libvips reads in `image` (a JPEG or PNG).
    static func size(of image: Data) throws -> (width: Int, height: Int) {
        try inScratch { directory in
            let file = directory.appendingPathComponent(image.starts(with: [0x89, 0x50]) ? "image.png" : "image.jpg")
            try image.write(to: file)
            let width = Int(try run(["vipsheader", "-f", "width", file.path]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            let height = Int(try run(["vipsheader", "-f", "height", file.path]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            return (width, height)
        }
    }

    private static func inScratch<T>(_ body: (URL) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-images-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory)
    }

    private static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
