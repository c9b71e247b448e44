import Foundation
import HearthEvents
@testable import HearthStore
import Logging
import PostgresNIO
import Testing

/// What a projection's decoder hands to `apply`: only the event types the projection reads.
@Suite struct ProjectedEventDecoderTests {
    struct MembersOnly: Projection {
        let name = "members_only"
        let topics: [Topic] = [.households]
        let tables: [String] = []
        let eventTypes: Set<String>? = [HouseholdMemberAdded.eventType]
        func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {}
    }

    struct Everything: Projection {
        let name = "everything"
        let topics: [Topic] = [.households]
        let tables: [String] = []
        func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {}
    }

    static let position = EventPosition(topic: "households", partition: 0, offset: 7)

    static func bytes<P: EventPayload>(_ payload: P) throws -> [UInt8] {
        Array(try EventCatalogue.hearth.encode(Envelope(payload, correlationId: "c", source: "tests")))
    }

    static let upserted = HouseholdUpserted(
        householdId: UUID(), householdVersion: 1, name: "n", prefs: HouseholdPrefs(adults: 2, kidsAges: [], allergies: [], cuisines: []), userId: nil)
    static let added = HouseholdMemberAdded(householdId: UUID(), memberId: UUID(), name: "Ada", role: "child", birthdate: "2020-01-02", addedBy: UUID())

    @Test func typesTheProjectionDoesNotReadArePassedOverUndecoded() throws {
        let decoder = ProjectedEventDecoder(catalogue: .hearth, projection: MembersOnly(), keys: nil, logger: Logger(label: "test"))
        #expect(try decoder.decode(position: Self.position, value: Self.bytes(Self.upserted), hint: nil) == nil)
        #expect(try decoder.decode(position: Self.position, value: Self.bytes(Self.upserted), hint: (HouseholdUpserted.eventType, 1)) == nil)
        let member = try #require(try decoder.decode(position: Self.position, value: Self.bytes(Self.added), hint: nil))
        #expect(member.payload as? HouseholdMemberAdded == Self.added)
        #expect(member.position == Self.position)
    }

    /// The type header decides before the envelope is read: a projection passes over a busy
    /// topic's other events without parsing them.
    @Test func aTypeHeaderTheProjectionDoesNotReadSkipsTheEnvelopeUnread() throws {
        let decoder = ProjectedEventDecoder(catalogue: .hearth, projection: MembersOnly(), keys: nil, logger: Logger(label: "test"))
        #expect(try decoder.decode(position: Self.position, value: Array("not json at all".utf8), hint: (HouseholdUpserted.eventType, 1)) == nil)
        // Read or not is the header's call, even when the body would say otherwise.
        #expect(try decoder.decode(position: Self.position, value: Self.bytes(Self.added), hint: (HouseholdUpserted.eventType, 1)) == nil)
        let member = try decoder.decode(position: Self.position, value: Self.bytes(Self.added), hint: (HouseholdMemberAdded.eventType, 1))
        #expect(member?.payload as? HouseholdMemberAdded == Self.added)
    }

    @Test func withoutAListEveryKnownTypeIsDecoded() throws {
        let decoder = ProjectedEventDecoder(catalogue: .hearth, projection: Everything(), keys: nil, logger: Logger(label: "test"))
        #expect(try decoder.decode(position: Self.position, value: Self.bytes(Self.upserted), hint: nil)?.payload as? HouseholdUpserted == Self.upserted)
        #expect(try decoder.decode(position: Self.position, value: Self.bytes(Self.added), hint: nil)?.payload as? HouseholdMemberAdded == Self.added)
    }

    /// A producer upgraded before its consumers: the event must not be skipped (its offset would
    /// move past it, and it would be lost until a replay), but refused, so the runner holds.
    @Test func aNewerVersionThanThisBuildKnowsIsRefusedNotSkipped() throws {
        let text = String(decoding: try Self.bytes(Self.upserted), as: UTF8.self)
        #expect(text.contains(#""version":\#(HouseholdUpserted.version)"#))
        let newer = Array(text.replacingOccurrences(of: #""version":\#(HouseholdUpserted.version)"#, with: #""version":99"#).utf8)
        let decoder = ProjectedEventDecoder(catalogue: .hearth, projection: Everything(), keys: nil, logger: Logger(label: "test"))
        #expect(throws: NewerEventVersion.self) { try decoder.decode(position: Self.position, value: newer, hint: nil) }
        #expect(throws: NewerEventVersion.self) { try decoder.decode(position: Self.position, value: newer, hint: (HouseholdUpserted.eventType, 99)) }
        // A projection that does not read the type still passes over it.
        let members = ProjectedEventDecoder(catalogue: .hearth, projection: MembersOnly(), keys: nil, logger: Logger(label: "test"))
        #expect(try members.decode(position: Self.position, value: newer, hint: nil) == nil)
    }
}
