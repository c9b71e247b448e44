import Foundation
import HearthEvents
import Testing

/// A payload that went through one schema change: v1 had `label`, v2 renamed it to `title` and
/// added `priority`. Only the catalogue under test knows them.
private struct NoteV1: EventPayload {
    static let eventType = "test.note_written"
    static let version = 1
    static let topic = Topic("test.notes", partitions: 1)
    static let privacy = PayloadPrivacy.nothingPersonal(["noteId", "label"])
    var noteId: String
    var label: String
    var aggregateKey: String { noteId }
}

private struct NoteV2: EventPayload {
    static let eventType = "test.note_written"
    static let version = 2
    static let topic = Topic("test.notes", partitions: 1)
    static let privacy = PayloadPrivacy.nothingPersonal(["noteId", "title", "priority"])
    var noteId: String
    var title: String
    var priority: Int
    var aggregateKey: String { noteId }
}

private let upcastV1: Upcaster = Upcaster(eventType: "test.note_written", fromVersion: 1) { data in
    guard case .object(var fields) = data, let label = fields.removeValue(forKey: "label") else { return data }
    fields["title"] = label
    fields["priority"] = .number(0)
    return .object(fields)
}

@Suite struct EventCatalogueTests {
    let household = HouseholdUpserted(
        householdId: UUID(), householdVersion: 3, name: "The Rivers",
        prefs: HouseholdPrefs(adults: 2, kidsAges: [4, 9], allergies: ["peanut"], cuisines: ["thai"]), userId: "u-1")

    @Test func envelopeRoundTripsThroughTheCatalogue() throws {
        let envelope = Envelope(household, correlationId: "corr-1", causationId: "cause-1", source: "gateway")
        let data = try EventCatalogue.hearth.encode(envelope)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["type"] as? String == "household.upserted")
        #expect(json["version"] as? Int == 1)
        #expect(json["key"] as? String == household.householdId.uuidString.lowercased())
        #expect(json["correlation_id"] as? String == "corr-1")
        #expect(json["causation_id"] as? String == "cause-1")
        #expect(json["source"] as? String == "gateway")
        #expect((json["occurred_at"] as? String)?.hasSuffix("Z") == true)
        #expect((json["data"] as? [String: Any])?["household_id"] != nil)

        guard case .event(let decoded) = try EventCatalogue.hearth.decode(data) else {
            Issue.record("expected an event")
            return
        }
        #expect(decoded.metadata == envelope.metadata)
        #expect(decoded.payload as? HouseholdUpserted == household)
    }

    @Test func unknownTypesAreReportedNotThrown() throws {
        let envelope = Envelope(NoteV1(noteId: "n1", label: "hi"), correlationId: "c", source: "test")
        let data = try JSONEncoder.hearth().encode(envelope)
        guard case .unknownType(let metadata) = try EventCatalogue.hearth.decode(data) else {
            Issue.record("expected unknownType")
            return
        }
        #expect(metadata.type == "test.note_written")
    }

    @Test func newerVersionsThanKnownAreReported() throws {
        let catalogue = EventCatalogue(payloads: [NoteV1.self])
        let data = try JSONEncoder.hearth().encode(Envelope(NoteV2(noteId: "n1", title: "t", priority: 2), correlationId: "c", source: "test"))
        guard case .newerVersion(let metadata, let known) = try catalogue.decode(data) else {
            Issue.record("expected newerVersion")
            return
        }
        #expect(metadata.version == 2)
        #expect(known == 1)
    }

    @Test func oldVersionsAreUpcastAtReadTime() throws {
        let catalogue = EventCatalogue(payloads: [NoteV1.self, NoteV2.self], upcasters: [upcastV1])
        let data = try JSONEncoder.hearth().encode(Envelope(NoteV1(noteId: "n1", label: "groceries"), correlationId: "c", source: "test"))
        guard case .event(let event) = try catalogue.decode(data, hint: ("test.note_written", 1)) else {
            Issue.record("expected an event")
            return
        }
        #expect(event.metadata.version == 2)
        #expect(event.payload as? NoteV2 == NoteV2(noteId: "n1", title: "groceries", priority: 0))
    }

    @Test func aMissingUpcasterIsAnError() throws {
        let catalogue = EventCatalogue(payloads: [NoteV1.self, NoteV2.self])
        let data = try JSONEncoder.hearth().encode(Envelope(NoteV1(noteId: "n1", label: "x"), correlationId: "c", source: "test"))
        #expect(throws: EventDecodingError.self) { try catalogue.decode(data) }
    }

    @Test func malformedValuesThrow() {
        #expect(throws: EventDecodingError.self) { try EventCatalogue.hearth.decode(Data("{not json".utf8)) }
        let wrongPayload = #"{"id":"6A2F41A8-1F4C-4B6B-9C1D-2B1A1E0F0A11","type":"household.upserted","version":1,"key":"k","occurred_at":"2026-11-23T00:00:00Z","correlation_id":"c","source":"t","data":{"household_id":5}}"#
        #expect(throws: EventDecodingError.self) { try EventCatalogue.hearth.decode(Data(wrongPayload.utf8)) }
    }

    @Test func everyTopicOfTheCatalogueIsDeclared() {
        for type in EventCatalogue.hearth.eventTypes {
            let topic = EventCatalogue.hearth.topic(of: type)
            #expect(topic.map { Topic.all.contains($0) } == true, "\(type) publishes to an undeclared topic")
        }
        #expect(Topic.named("households.dlq") == Topic.households.deadLetter)
        #expect(Topic.named("nope") == nil)
    }
}
