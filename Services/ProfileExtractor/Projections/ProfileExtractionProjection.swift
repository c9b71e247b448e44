import Foundation
import HearthDomain
import HearthEvents
import HearthStore
import Logging
import Metrics
import PostgresNIO

/// Reads every chat message for profile facts and publishes each as `profile.fact_extracted`.
/// Fact ids derive from the message and the fact, so a message redelivered after a crash (the
/// facts published, the offset not yet committed) publishes the same facts again and every
/// reader keeps one of each.
///
/// `user.erased` (users topic) removes the households erased with the user: their subjects and
/// which of their messages were read. A read message is kept as ids alone, with no author, so
/// the user's messages in households that outlive them hold nothing of theirs here. The users
/// topic comes last: a rebuild reads archived history topic by topic in this order, so the
/// erasure lands after the rows it rebuilt.
public struct ProfileExtractionProjection: Projection {
    public let name = "profile_extraction"
    public let topics: [Topic] = [.households, .chats, .users]
    public let tables = ["profile_subjects", "profile_extracted_messages"]
    /// Of the busy `households` topic only the members matter, of the users topic the erasure.
    public let eventTypes: Set<String>? = [HouseholdMemberAdded.eventType, ChatMessageSent.eventType, UserErased.eventType]

    static let factNamespace = UUID(uuidString: "0d3b8e6a-5a1f-4c2e-8f7d-2b9c4e1a6f30")!

    let extractor: any ProfileFactSource
    /// Where the facts go; nil for a replay (run by `hearthctl`), which re-creates state whose
    /// facts were published when it first happened.
    let publisher: EventPublisher?

    /// - Parameter extractor: the rules (`ProfileFactExtractor`) or a model with the rules behind it.
    public init(extractor: any ProfileFactSource, publisher: EventPublisher? = nil) {
        self.extractor = extractor
        self.publisher = publisher
    }

    public func apply(_ events: [ProjectedEvent], on connection: PostgresConnection, logger: Logger) async throws {
        for event in events {
            switch event.payload {
            case let added as HouseholdMemberAdded:
                try await connection.query(
                    """
                    INSERT INTO profile_subjects (member_id, household_id, name, role)
                    VALUES (\(added.memberId), \(added.householdId), \(added.name), \(added.role))
                    ON CONFLICT (member_id) DO NOTHING
                    """, logger: logger)
            case let message as ChatMessageSent:
                try await extract(message, event: event, on: connection, logger: logger)
            case let erased as UserErased:
                guard !erased.householdIds.isEmpty else { continue }
                try await connection.query(
                    "DELETE FROM profile_subjects WHERE household_id = ANY(\(erased.householdIds)::uuid[])", logger: logger)
                try await connection.query(
                    "DELETE FROM profile_extracted_messages WHERE household_id = ANY(\(erased.householdIds)::uuid[])", logger: logger)
            default:
                continue
            }
        }
    }

    /// The events for what was read from `message`, each with its provenance (message, chat,
    /// quoted span, extractor).
    public static func announcements(
        of reading: ProfileFactReading, from message: ChatMessageSent, memberIds: [String: UUID]
    ) -> [ProfileFactExtracted] {
        reading.facts.map { fact in
            let identity = "\(message.messageId.uuidString.lowercased())/\(fact.kind.rawValue)/\(fact.subject)/\(fact.value)/\(fact.polarity.rawValue)"
            return ProfileFactExtracted(
                factId: NameBasedUUID.make(namespace: Self.factNamespace, name: identity), householdId: message.householdId,
                memberId: memberIds[fact.subject], subject: fact.subject, kind: fact.kind.rawValue, value: fact.value,
                polarity: fact.polarity.rawValue, confidence: fact.confidence, messageId: message.messageId, chatId: message.chatId,
                quotedSpan: fact.quotedSpan, extractor: reading.extractor)
        }
    }

    /// Records the message as read and, the first time only (a retried send is a second event
    /// with the same message id), reads it for facts and publishes them. Without a publisher (a
    /// replay rebuilding the table) nothing is read: the table records only which messages were
    /// read, so a rebuild reproduces it without asking the extractor, a model maybe, again.
    private func extract(_ message: ChatMessageSent, event: ProjectedEvent, on connection: PostgresConnection, logger: Logger) async throws {
        let inserted = try await connection.query(
            """
            INSERT INTO profile_extracted_messages (message_id, household_id, chat_id, extracted_at)
            VALUES (\(message.messageId), \(message.householdId), \(message.chatId), \(event.metadata.occurredAt))
            ON CONFLICT (message_id) DO NOTHING RETURNING message_id
            """, logger: logger)
        var isNew = false
        for try await _ in inserted { isNew = true }
        guard isNew, let publisher else { return }
        let rows = try await connection.query(
            "SELECT member_id, name FROM profile_subjects WHERE household_id = \(message.householdId) ORDER BY name, member_id", logger: logger)
        var memberIds: [String: UUID] = [:]
        for try await (id, name) in rows.decode((UUID, String).self) where memberIds[name] == nil { memberIds[name] = id }
        // The author may be a user who is not a planned-for member: "I" still means them.
        let names = Array(memberIds.keys).sorted() + (memberIds[message.authorName] == nil ? [message.authorName] : [])
        let reading = try await extractor.read(
            ProfileMessage(
                messageId: message.messageId, chatId: message.chatId, householdId: message.householdId, text: message.text,
                speaker: message.authorName, members: names))
        let published = Self.announcements(of: reading, from: message, memberIds: memberIds)
        for fact in published {
            _ = try await publisher.publish(fact, correlationId: event.metadata.correlationId, causationId: event.metadata.id.uuidString.lowercased())
        }
        Counter(label: "hearth_profile_facts_extracted_total").increment(by: published.count)
        logger.debug("profile facts extracted", metadata: ["message_id": "\(message.messageId)", "facts": "\(published.count)"])
    }
}
