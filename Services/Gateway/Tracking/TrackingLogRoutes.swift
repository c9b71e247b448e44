import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime
import HearthStore
import Hummingbird

/// `POST /v1/children/{id}/{kind}`, `GET`/`PATCH`/`DELETE /v1/children/{id}/{kind}/{log_id}`:
/// a child's logs, written by any member of the child's household.
///
/// Writes wait until `tracking_logs` has applied them, and then check that it was their event the
/// row took: a retried create (same `client_id`) answers the first log, and of two edits made
/// from the same version the loser is answered 409 with the log as it now is.
struct TrackingLogRoutes: Sendable {
    let publisher: EventPublisher
    let readModel: TrackingReadModel
    let access: ChildAccess
    let consistency: ReadConsistency
    let enrichment: TrackingLogEnrichment

    static let projection = "tracking_logs"
    static let maxClientIdLength = 100

    func register(on routes: some RouterMethods<HearthRequestContext>) {
        for kind in TrackingLogKind.allCases {
            if kind != .photo {
                routes.post("children/{id}/\(kind.pathSegment)") { request, context in try await create(kind, request, context: context) }
                routes.patch("children/{id}/\(kind.pathSegment)/{log_id}") { request, context in try await edit(kind, request, context: context) }
            }
            routes.get("children/{id}/\(kind.pathSegment)/{log_id}") { request, context in try await show(kind, request, context: context) }
            routes.delete("children/{id}/\(kind.pathSegment)/{log_id}") { request, context in try await delete(kind, request, context: context) }
        }
    }

    func create(_ kind: TrackingLogKind, _ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let (user, child) = try await access.child(request, context: context)
        var fields = try await JSONRequestBody.decode([String: JSONValue].self, from: request, context: context)
        let clientId = try Self.clientId(&fields)
        if let clientId, let first = try await readModel.log(clientId: clientId, child: child.childId) {
            return try Self.retried(first, kind: kind)
        }
        let zone = try await access.timeZone(of: user)
        let input = try Self.parse(kind, fields, child: child, zone: zone)
        let logId = Self.logId(child: child.childId, clientId: clientId)
        let checked: TrackingLogEnrichment.Checked
        do {
            checked = try await enrichment.check(input, kind: kind, child: child, logId: logId, editing: nil, context: context)
        } catch let conflict as TrackingLogEnrichment.Conflict {
            return conflict.answer
        }
        let (position, _) = try await Self.publish(
            kind.logged(logId: logId, childId: child.childId, householdId: child.householdId, loggedBy: user, clientId: clientId, at: input.at,
                        detail: checked.detail), publisher: publisher, correlationId: context.correlationId)
        try await consistency.awaitApplied(position, projections: [Self.projection])
        guard let stored = try await readModel.log(logId, child: child.childId) else {
            // Another request with the same client_id got there first: this one is that log.
            if let clientId, let first = try await readModel.log(clientId: clientId, child: child.childId) {
                return try Self.retried(first, kind: kind)
            }
            if let conflict = try await enrichment.overlap(input, child: child, logId: logId, context: context) { return conflict }
            throw APIError(.serviceUnavailable, code: "not_applied", message: "the log was accepted but is not visible yet; retry with the same client_id")
        }
        var answer = Self.answer(stored, duplicate: false, status: .created, extra: checked.extra)
        answer.value["warnings"] = .array(checked.warnings.map(\.json))
        answer.value["position"] = .string(position.description)
        return answer
    }

    func edit(_ kind: TrackingLogKind, _ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let (user, child) = try await access.child(request, context: context)
        let existing = try await log(kind, request, context: context, child: child)
        var patch = try await JSONRequestBody.decode([String: JSONValue].self, from: request, context: context)
        guard case .number(let number)? = patch.removeValue(forKey: "version"), let sent = Int(exactly: number), sent >= 1 else {
            throw APIError.invalid("version", "version (the version of the log you edited, a whole number) is required")
        }
        patch.removeValue(forKey: "client_id")
        guard sent == existing.version else {
            return TrackingJSON.conflict(
                code: "stale_version", message: "the log is at version \(existing.version), not \(sent): merge with the current log and retry",
                field: "version", current: existing, requestId: context.requestId)
        }
        let zone = try await access.timeZone(of: user)
        let merged = TrackingLogMerge.merge(existing.detail, at: existing.at, kind: kind, patch: patch)
        let input = try Self.parse(kind, merged, child: child, zone: zone)
        let checked: TrackingLogEnrichment.Checked
        do {
            checked = try await enrichment.check(input, kind: kind, child: child, logId: existing.logId, editing: existing, context: context)
        } catch let conflict as TrackingLogEnrichment.Conflict {
            return conflict.answer
        }
        let version = existing.version + 1
        let (position, eventId) = try await Self.publish(
            kind.edited(logId: existing.logId, childId: child.childId, householdId: child.householdId, editedBy: user, at: input.at,
                        detail: checked.detail, version: version), publisher: publisher, correlationId: context.correlationId)
        try await consistency.awaitApplied(position, projections: [Self.projection])
        guard let stored = try await readModel.log(existing.logId, child: child.childId) else { throw APIError.notFound("log") }
        // Ours is applied if it made the version it was meant to (another edit may be on top of it by now).
        guard try await readModel.event(making: version, of: existing.logId) == eventId else {
            if let conflict = try await enrichment.overlap(input, child: child, logId: existing.logId, context: context) { return conflict }
            return TrackingJSON.conflict(
                code: "stale_version", message: "someone changed the log first: merge with the current log and retry", field: "version",
                current: stored, requestId: context.requestId)
        }
        var answer = Self.answer(stored, duplicate: false, status: .ok, extra: checked.extra)
        answer.value["warnings"] = .array(checked.warnings.map(\.json))
        answer.value["position"] = .string(position.description)
        return answer
    }

    func delete(_ kind: TrackingLogKind, _ request: Request, context: HearthRequestContext) async throws -> Response {
        let (user, child) = try await access.child(request, context: context)
        let existing = try await log(kind, request, context: context, child: child)
        if let text = request.uri.queryParameters.get("version") {
            guard let sent = Int(text) else { throw APIError.invalid("version", "version must be a whole number") }
            guard sent == existing.version else {
                return try TrackingJSON.conflict(
                    code: "stale_version", message: "the log is at version \(existing.version), not \(sent)", field: "version", current: existing,
                    requestId: context.requestId
                ).response(from: request, context: context)
            }
        }
        let (position, eventId) = try await Self.publish(
            kind.deleted(logId: existing.logId, childId: child.childId, householdId: child.householdId, deletedBy: user, version: existing.version + 1), publisher: publisher, correlationId: context.correlationId)
        try await consistency.awaitApplied(position, projections: [Self.projection])
        if let stored = try await readModel.log(existing.logId, child: child.childId),
           try await readModel.event(making: existing.version + 1, of: existing.logId) != eventId
        {
            return try TrackingJSON.conflict(
                code: "stale_version", message: "someone changed the log first", field: "version", current: stored, requestId: context.requestId
            ).response(from: request, context: context)
        }
        return Response(status: .noContent)
    }

    func show(_ kind: TrackingLogKind, _ request: Request, context: HearthRequestContext) async throws -> TrackingJSON {
        let (_, child) = try await access.child(request, context: context)
        return TrackingJSON(value: try await log(kind, request, context: context, child: child).json)
    }

    /// The live log `{log_id}` of `kind` of the child; 404 otherwise.
    private func log(_ kind: TrackingLogKind, _ request: Request, context: HearthRequestContext, child: TrackedChild) async throws -> StoredLog {
        guard let id = context.parameters.get("log_id").flatMap(UUID.init(uuidString:)) else {
            throw APIError.invalid("log_id", "log_id must be a UUID")
        }
        guard let log = try await readModel.log(id, child: child.childId), log.kind == kind, !log.deleted else { throw APIError.notFound("log") }
        return log
    }

    /// Publishes one log event of any kind; answers where it went and its event id (the row
    /// names the last event applied to it, which tells a write whether it won).
    static func publish<P: EventPayload>(_ payload: P, publisher: EventPublisher, correlationId: String) async throws -> (EventPosition, UUID) {
        let envelope = publisher.envelope(payload, correlationId: correlationId)
        return (try await publisher.publish(envelope), envelope.metadata.id)
    }

    static func parse(_ kind: TrackingLogKind, _ fields: [String: JSONValue], child: TrackedChild, zone: TimeZone) throws -> TrackingLogInput {
        do {
            return try TrackingLogInput.parse(kind, fields, context: .init(now: Date(), birthdate: child.birth, timeZone: zone))
        } catch {
            throw APIError.invalid(error.field, error.message)
        }
    }

    /// A log with a `client_id` has an id derived from it (and the child), so two attempts racing
    /// past the duplicate check publish the same log id: every reader keeps one log, not two.
    static func logId(child: UUID, clientId: String?) -> UUID {
        guard let clientId else { return EventIdentity.newId("tracking_log") }
        return NameBasedUUID.make(namespace: clientIdNamespace, name: "\(child.uuidString.lowercased()):\(clientId)")
    }

    private static let clientIdNamespace = UUID(uuidString: "3c2f9a61-5d0e-4b7a-8f14-9e6d2c0b7a35")!

    /// The answer to a create whose `client_id` the child already has: that log, if it is of the
    /// same kind (a `client_id` names one log, whatever the kind).
    static func retried(_ first: StoredLog, kind: TrackingLogKind) throws -> TrackingJSON {
        guard first.kind == kind else {
            throw APIError(.conflict, code: "client_id_used", message: "client_id names a \(first.kind.rawValue) log of this child already", field: "client_id")
        }
        return answer(first, duplicate: true, status: .ok)
    }

    static func clientId(_ fields: inout [String: JSONValue]) throws -> String? {
        guard let value = fields.removeValue(forKey: "client_id"), value != .null else { return nil }
        guard case .string(let text) = value, !text.isEmpty, text.count <= maxClientIdLength else {
            throw APIError.invalid("client_id", "client_id must be a string of 1 to \(maxClientIdLength) characters")
        }
        return text
    }

    static func answer(_ log: StoredLog, duplicate: Bool, status: HTTPResponse.Status, extra: [String: JSONValue] = [:]) -> TrackingJSON {
        var fields = extra
        fields["log"] = log.json
        fields["duplicate"] = .bool(duplicate)
        return TrackingJSON(status: status, value: .object(fields))
    }
}

/// How an edit's changes go into the current log: the stored detail with the log's time is a
/// valid body; the changed fields replace their own, and any field derived from one that changed
/// (a canonical amount from a value with its unit, a derived sleep period, a food's allergens, a
/// nursing duration from its times) is dropped so that it is worked out again.
enum TrackingLogMerge {
    static func merge(_ detail: JSONValue, at: Date, kind: TrackingLogKind, patch: [String: JSONValue]) -> [String: JSONValue] {
        var base: [String: JSONValue] = [:]
        if case .object(let fields) = detail { base = fields }
        base["at"] = .string(Timestamp.format(at))
        let derivedFrom: [String: [String]] = [
            "amount_ml": ["amount", "unit"], "weight_kg": ["weight", "weight_unit"], "length_cm": ["length", "length_unit"],
            "head_cm": ["head", "head_unit"], "allergens": ["food"],
        ]
        for (derived, sources) in derivedFrom where sources.contains(where: { patch[$0] != nil }) && patch[derived] == nil {
            base.removeValue(forKey: derived)
        }
        // A nursing duration worked out from its times is worked out again when they change; one
        // given without an end stays.
        if base["ended_at"].map({ $0 != .null }) == true, patch["at"] != nil || patch["ended_at"] != nil, patch["duration_minutes"] == nil {
            base.removeValue(forKey: "duration_minutes")
        }
        if kind == .sleep {
            if base["period_chosen"] != .bool(true) { base.removeValue(forKey: "period") }
            base.removeValue(forKey: "period_chosen")
        }
        for (key, value) in patch { base[key] = value }
        return base
    }
}
