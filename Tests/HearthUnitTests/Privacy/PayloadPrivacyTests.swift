import Crypto
import Foundation
import HearthEvents
import HearthPrivacy
import Synchronization
import Testing

/// Data keys in memory, for sealing without a database.
final class MemoryKeys: SealingKeySource {
    private let keys = Mutex<[String: DataKey]>([:])

    func sealingKey(for subject: String) async throws -> DataKey {
        keys.withLock { keys in
            if let key = keys[subject] { return key }
            let key = DataKey(id: UUID(), key: SymmetricKey(size: .bits256))
            keys[subject] = key
            return key
        }
    }

    var subjects: Set<String> { keys.withLock { Set($0.keys) } }

    func opening(_ id: UUID) -> OpeningKey? {
        keys.withLock { keys in keys.values.first { $0.id == id }.map { .available($0.key) } ?? .gone }
    }
}

@Suite struct PayloadPrivacyTests {
    static let payloadTypes = EventCatalogue.hearth.payloadTypes

    /// The JSON a payload writes with every field present.
    static func probedJSON<P: EventPayload>(_ type: P.Type) throws -> JSONValue {
        let instance = try PayloadProbe.instance(of: P.self)
        return try JSONDecoder().decode(JSONValue.self, from: JSONEncoder.hearth().encode(instance))
    }

    /// Every path in `value`, leaves and the objects and arrays above them (`members`, `members[]`,
    /// `members[].name`).
    static func paths(_ value: JSONValue, prefix: String = "") -> (all: Set<String>, leaves: Set<String>) {
        switch value {
        case .object(let fields):
            var all: Set<String> = prefix.isEmpty ? [] : [prefix]
            var leaves: Set<String> = fields.isEmpty && !prefix.isEmpty ? [prefix] : []
            for (name, field) in fields {
                let inner = paths(field, prefix: prefix.isEmpty ? name : "\(prefix).\(name)")
                all.formUnion(inner.all)
                leaves.formUnion(inner.leaves)
            }
            return (all, leaves)
        case .array(let items):
            var all: Set<String> = [prefix]
            var leaves: Set<String> = items.isEmpty ? [prefix] : []
            for item in items {
                let inner = paths(item, prefix: "\(prefix)[]")
                all.formUnion(inner.all)
                leaves.formUnion(inner.leaves)
            }
            return (all, leaves)
        default:
            return ([prefix], [prefix])
        }
    }

    /// A leaf is classified when it, or an object or array above it, is in one of the lists.
    static func isClassified(_ leaf: String, in classified: Set<String>) -> Bool {
        var path = Substring(leaf)
        while true {
            if classified.contains(String(path)) { return true }
            if path.hasSuffix("[]") {
                path = path.dropLast(2)
                continue
            }
            guard let dot = path.lastIndex(of: ".") else { return false }
            path = path[..<dot]
        }
    }

    @Test("every field of every payload in the catalogue is marked personal or not personal")
    func everyFieldIsClassified() throws {
        var problems: [String] = []
        for type in Self.payloadTypes {
            let name = "\(type.eventType) v\(type.version)"
            let (all, leaves) = Self.paths(try Self.probedJSON(type))
            let privacy = type.privacy
            let personal = Set(privacy.personal.keys)
            for path in personal.intersection(privacy.notPersonal) { problems.append("\(name): \(path) is in both lists") }
            let classified = personal.union(privacy.notPersonal)
            for leaf in leaves.sorted() where !Self.isClassified(leaf, in: classified) {
                problems.append("\(name): \(leaf) is neither personal nor marked not personal")
            }
            for path in classified.sorted() where !all.contains(path) {
                problems.append("\(name): \(path) is classified but the payload writes no such field")
            }
            for (path, field) in privacy.personal.sorted(by: { $0.key < $1.key }) {
                for subject in field.subject.fields where !privacy.notPersonal.contains(subject) {
                    problems.append("\(name): \(path)'s subject \(subject) must be a field marked not personal")
                }
            }
        }
        #expect(problems == [])
    }

    @Test("sealing replaces every personal value, opens back to the same payload, and an erased one still decodes")
    func sealOpenAndErase() async throws {
        var sealedTypes = 0
        for type in Self.payloadTypes where type.privacy.hasPersonalFields {
            try await Self.roundTrip(type)
            sealedTypes += 1
        }
        #expect(sealedTypes >= 25)
    }

    static func roundTrip<P: EventPayload>(_ type: P.Type) async throws {
        let original = try probedJSON(P.self)
        let keys = MemoryKeys()
        let sealed = try await PayloadSealing.seal(original, eventType: P.eventType, privacy: P.privacy, keys: keys)
        for path in P.privacy.personalPaths {
            for value in Self.values(at: path, in: sealed) {
                guard case .string(let text) = value, text.hasPrefix(SealedField.prefix) else {
                    Issue.record("\(P.eventType): \(path) is not sealed: \(value)")
                    continue
                }
            }
        }
        let subjects = Set(P.privacy.personal.values.compactMap { $0.subject.name(in: original) })
        #expect(subjects.allSatisfy { $0.hasSuffix(":00000000-0000-4000-8000-000000000001") })
        #expect(keys.subjects == subjects, "\(P.eventType) sealed with the keys of \(keys.subjects)")
        let opened = try PayloadSealing.open(sealed, eventType: P.eventType, privacy: P.privacy, key: keys.opening)
        #expect(opened == original, "\(P.eventType) did not open to what was sealed")

        let erased = try PayloadSealing.open(sealed, eventType: P.eventType, privacy: P.privacy) { _ in .gone }
        for (path, field) in P.privacy.personal {
            for value in Self.values(at: path, in: erased) { #expect(value == field.erased, "\(P.eventType): \(path) erased to \(value)") }
        }
        do {
            _ = try JSONDecoder.hearth().decode(P.self, from: JSONEncoder().encode(erased))
        } catch {
            Issue.record("\(P.eventType) with its personal fields erased does not decode: \(EventCatalogue.describe(error))")
        }
    }

    /// The values at `path` (every element's, for a path through arrays).
    static func values(at path: String, in root: JSONValue) -> [JSONValue] {
        var current = [root]
        for part in path.split(separator: ".") {
            let isArray = part.hasSuffix("[]")
            let name = String(isArray ? part.dropLast(2) : part)
            current = current.compactMap { value -> JSONValue? in
                guard case .object(let fields) = value else { return nil }
                return fields[name]
            }
            if isArray {
                current = current.flatMap { value -> [JSONValue] in
                    guard case .array(let items) = value else { return [] }
                    return items
                }
            }
        }
        return current
    }

    @Test("a household's data is sealed with the household's key when the payload names one, else with its author's")
    func householdElseUser() async throws {
        let author = UUID()
        let household = UUID()
        let entry = CalendarEntryState(
            title: "Swimming", start: Date(timeIntervalSince1970: 1_800_000_000), end: Date(timeIntervalSince1970: 1_800_003_600), allDay: false,
            timeZone: "Europe/Paris", kind: .appointment, memberIds: [], location: nil, rrule: nil)
        for (householdId, subject) in [(household, "household:\(household.uuidString.lowercased())"), (nil, "user:\(author.uuidString.lowercased())")] {
            let keys = MemoryKeys()
            let payload = CalendarEventCreated(eventId: UUID(), householdId: householdId, createdBy: author, entry: entry, sequence: 1)
            let json = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder.hearth().encode(payload))
            _ = try await PayloadSealing.seal(json, eventType: CalendarEventCreated.eventType, privacy: CalendarEventCreated.privacy, keys: keys)
            #expect(keys.subjects == [subject])
        }
    }

    @Test("a value that only looks sealed is sealed like any other, and opens back to itself")
    func lookalikesAreSealed() async throws {
        let keys = MemoryKeys()
        let lookalike = SealedField.prefix + UUID().uuidString.lowercased() + ":AAAA"
        let payload = ChatMessageSent(
            messageId: UUID(), chatId: UUID(), householdId: UUID(), authorId: UUID(), authorName: "Eve", text: lookalike, clientId: "e-1")
        let json = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder.hearth().encode(payload))
        let sealed = try await PayloadSealing.seal(json, eventType: ChatMessageSent.eventType, privacy: ChatMessageSent.privacy, keys: keys)
        #expect(Self.values(at: "text", in: sealed) != [.string(lookalike)])
        let opened = try PayloadSealing.open(sealed, eventType: ChatMessageSent.eventType, privacy: ChatMessageSent.privacy, key: keys.opening)
        #expect(Self.values(at: "text", in: opened) == [.string(lookalike)])
        // Where nothing is personal, a lookalike is left alone (and asks for no key).
        let clientId = try PayloadSealing.open(
            .object(["client_id": .string(lookalike)]), eventType: ChatMessageSent.eventType, privacy: ChatMessageSent.privacy) { _ in nil }
        #expect(clientId == .object(["client_id": .string(lookalike)]))
    }

    @Test("a sealed value copied into another field, or altered, does not open")
    func sealedValuesAreBoundToTheirField() async throws {
        let keys = MemoryKeys()
        let payload = ChatMessageSent(
            messageId: UUID(), chatId: UUID(), householdId: UUID(), authorId: UUID(), authorName: "Ada", text: "see you at five", clientId: "c-1")
        let json = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder.hearth().encode(payload))
        guard case .object(var sealed) = try await PayloadSealing.seal(json, eventType: ChatMessageSent.eventType, privacy: ChatMessageSent.privacy, keys: keys)
        else { Issue.record("not an object"); return }
        sealed["author_name"] = sealed["text"]
        #expect(throws: PrivacyError.self) {
            try PayloadSealing.open(.object(sealed), eventType: ChatMessageSent.eventType, privacy: ChatMessageSent.privacy, key: keys.opening)
        }
        guard case .string(let text)? = sealed["text"] else { return }
        sealed["author_name"] = .string(String(text.dropLast(4)) + "AAA=")
        #expect(throws: PrivacyError.self) {
            try PayloadSealing.open(.object(sealed), eventType: ChatMessageSent.eventType, privacy: ChatMessageSent.privacy, key: keys.opening)
        }
    }

    @Test("a stored event is opened in place: the same envelope, its personal fields in the clear, the fast readers still reading it")
    func envelopesOpenInPlace() async throws {
        let keys = MemoryKeys()
        let payload = HouseholdUpserted(
            householdId: UUID(), householdVersion: 3, name: "The Lovelaces",
            prefs: HouseholdPrefs(adults: 2, kidsAges: [4], allergies: ["peanut"], cuisines: ["thai"]), userId: "u-1")
        let envelope = Envelope(payload, correlationId: "c-1", source: "tests")
        let plain = Array(try EventCatalogue.hearth.encode(envelope))
        #expect(try SealedEnvelope.open(plain, catalogue: .hearth) { _ in nil } == plain)

        let sealed = Array(try await SealedEnvelope.seal(envelope, keys: keys))
        let sealedText = String(decoding: sealed, as: UTF8.self)
        #expect(!sealedText.contains("Lovelaces") && !sealedText.contains("peanut"))
        #expect(SealedField.keyIds(in: sealed).count == 1)

        let opened = try SealedEnvelope.open(sealed, catalogue: .hearth, key: keys.opening)
        let raw = try #require(RawEnvelope(opened), "the opened envelope is read by the fast metadata reader")
        #expect(raw.metadata == envelope.metadata)
        guard case .event(let decoded) = try EventCatalogue.hearth.decode(raw, of: opened) else {
            Issue.record("not decoded")
            return
        }
        #expect(decoded.payload as? HouseholdUpserted == payload)

        let erased = try SealedEnvelope.open(sealed, catalogue: .hearth) { _ in .gone }
        guard case .event(let forgotten) = try EventCatalogue.hearth.decode(Data(erased)), let household = forgotten.payload as? HouseholdUpserted else {
            Issue.record("an erased household does not decode")
            return
        }
        #expect(household.name == nil && household.prefs.allergies.isEmpty && household.prefs.adults == 2)
    }

    @Test("a stored event is opened under the personal fields of its own version, before it is upcast: a v1 webhook secret opens")
    func oldVersionsOpenUnderTheirOwnPrivacy() async throws {
        let keys = MemoryKeys()
        let v1 = WebhookRegistered(webhookId: UUID(), userId: UUID(), url: "https://hooks.example.com/a", secret: "an-old-secret-123", events: [])
        let sealed = Array(try await SealedEnvelope.seal(Envelope(v1, correlationId: "c-1", source: "tests"), keys: keys))
        #expect(!String(decoding: sealed, as: UTF8.self).contains("an-old-secret-123"))
        let opened = try SealedEnvelope.open(sealed, catalogue: .hearth, key: keys.opening)
        guard case .event(let decoded) = try EventCatalogue.hearth.decode(Data(opened)), let upcast = decoded.payload as? WebhookRegisteredV2 else {
            Issue.record("the v1 event does not read as v2")
            return
        }
        #expect(upcast.legacySecret == "an-old-secret-123", "the secret was opened, not carried sealed into legacy_secret")
        #expect(upcast.url == "https://hooks.example.com/a")
    }
}
