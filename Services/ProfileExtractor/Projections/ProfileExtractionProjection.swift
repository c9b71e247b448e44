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
/// A fact about someone named who is nobody in the household yet ("Sam is allergic to sesame" with
/// no Sam) is published with `unknown_subject`, and each user of the household (never a coach:
/// `profile_household_users`, from `user.household_joined|left`) is asked in their inbox to link
/// it to a member or add one: a `reminder.requested` whose id derives from the fact and the user,
/// so a redelivered message asks no one twice.
///
/// `user.erased` (users topic) removes the households erased with the user: their subjects and
/// which of their messages were read. A read message is kept as ids alone, with no author, so
/// the user's messages in households that outlive them hold nothing of theirs here. The users
/// topic comes last: a rebuild reads archived history topic by topic in this order, so the
/// erasure lands after the rows it rebuilt.
public struct ProfileExtractionProjection: Projection {
    public let name = "profile_extraction"
    public let topics: [Topic] = [.households, .chats, .users]
    public let tables = ["profile_subjects", "profile_extracted_messages", "profile_household_users"]
    /// Of the busy `households` topic only the members matter, of the users topic who belongs to
    /// which household and the erasure.
    public let eventTypes: Set<String>? = [
        HouseholdMemberAdded.eventType, ChatMessageSent.eventType, UserJoinedHousehold.eventType, UserLeftHousehold.eventType,
        UserErased.eventType,
    ]

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
            case let joined as UserJoinedHouseholdV2:
                if joined.leavesOthers {
                    try await connection.query(
                        "DELETE FROM profile_household_users WHERE user_id = \(joined.userId) AND household_id <> \(joined.householdId)", logger: logger)
                }
                try await connection.query(
                    """
                    INSERT INTO profile_household_users (household_id, user_id) VALUES (\(joined.householdId), \(joined.userId))
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
            case let left as UserLeftHousehold:
                try await connection.query(
                    "DELETE FROM profile_household_users WHERE user_id = \(left.userId) AND household_id = \(left.householdId)", logger: logger)
            case let erased as UserErased:
                try await connection.query("DELETE FROM profile_household_users WHERE user_id = \(erased.userId)", logger: logger)
                guard !erased.householdIds.isEmpty else { continue }
                try await connection.query(
                    "DELETE FROM profile_household_users WHERE household_id = ANY(\(erased.householdIds)::uuid[])", logger: logger)
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
    /// A subject is unknown when it is neither a member nor the message's author (whose "I" is
    /// theirs even when they are not a planned-for member).
    public static func announcements(
        of reading: ProfileFactReading, from message: ChatMessageSent, memberIds: [String: UUID]
    ) -> [ProfileFactExtractedV2] {
        reading.facts.map { fact in
            let identity = "\(message.messageId.uuidString.lowercased())/\(fact.kind.rawValue)/\(fact.subject)/\(fact.value)/\(fact.polarity.rawValue)"
            return ProfileFactExtractedV2(
                factId: NameBasedUUID.make(namespace: Self.factNamespace, name: identity), householdId: message.householdId,
                memberId: memberIds[fact.subject], subject: fact.subject, kind: fact.kind.rawValue, value: fact.value,
                polarity: fact.polarity.rawValue, confidence: fact.confidence, messageId: message.messageId, chatId: message.chatId,
                quotedSpan: fact.quotedSpan, extractor: reading.extractor,
                unknownSubject: memberIds[fact.subject] == nil && fact.subject != message.authorName)
        }
    }

    /// The inbox asks for a fact about an unknown subject: one per user of the household. The
    /// text names the person as written and what was said; the app links it
    /// (`POST /v1/profile/facts/{id}/link`).
    static func linkAsks(for fact: ProfileFactExtractedV2, users: [UUID], at now: Date) -> [ReminderRequested] {
        guard fact.unknownSubject else { return [] }
        let what = fact.polarity == "remove" ? "no longer \(fact.kind) \(fact.value)" : "\(fact.kind): \(fact.value)"
        return users.map { user in
            ReminderRequested(
                reminderId: NameBasedUUID.make(namespace: Self.linkAskNamespace, name: "\(fact.factId.uuidString.lowercased())/\(user.uuidString.lowercased())"),
                userId: user, householdId: fact.householdId, memberId: nil,
                title: "Who is \(fact.subject)?",
                body: "A message says \(fact.subject) has \(what). Link it to someone in your household, or add \(fact.subject), so Hearth can keep them safe.",
                dueAt: now, urgent: false, channels: ["inbox"], source: Self.linkAskSource)
        }
    }

    static let linkAskSource = "profile-link"
    static let linkAskNamespace = UUID(uuidString: "7c2e51d4-93b0-4f6a-a8e1-5d0b3c9f2a47")!

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
        // A coach's group chat (its household id is its own id) spans families: what is said
        // there is no household's profile.
        guard isNew, let publisher, message.householdId != message.chatId else { return }
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
        var users: [UUID] = []
        if published.contains(where: \.unknownSubject) {
            let rows = try await connection.query(
                "SELECT user_id FROM profile_household_users WHERE household_id = \(message.householdId) ORDER BY user_id", logger: logger)
            for try await user in rows.decode(UUID.self) { users.append(user) }
        }
        let cause = event.metadata.id.uuidString.lowercased()
        for fact in published {
            _ = try await publisher.publish(fact, correlationId: event.metadata.correlationId, causationId: cause)
            for ask in Self.linkAsks(for: fact, users: users, at: event.metadata.occurredAt) {
                _ = try await publisher.publish(ask, correlationId: event.metadata.correlationId, causationId: cause)
            }
        }
        Counter(label: "hearth_profile_facts_extracted_total").increment(by: published.count)
        logger.debug("profile facts extracted", metadata: ["message_id": "\(message.messageId)", "facts": "\(published.count)"])
    }
}
