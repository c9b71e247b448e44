import Foundation
import Hummingbird

/// `/healthz`, `/readyz` and `/metrics`, the same on every executable.
public enum OpsRoutes {
    public static func register(on router: Router<HearthRequestContext>, readiness: Readiness) {
        router.get("/healthz") { _, _ -> Response in
            json(#"{"status":"ok"}"#, status: .ok)
        }
        router.get("/readyz") { _, _ -> Response in
            let report = await readiness.check()
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let body = (try? encoder.encode(report)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            return json(body, status: report.ready ? .ok : .serviceUnavailable)
        }
        router.get("/metrics") { _, _ -> Response in
            var buffer: [UInt8] = []
            buffer.reserveCapacity(16 * 1024)
            MetricsSetup.registry.emit(into: &buffer)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: buffer)))
        }
    }

    static func json(_ text: String, status: HTTPResponse.Status) -> Response {
        Response(status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
