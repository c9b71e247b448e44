import Foundation

/// Turns version N of a payload (as JSON) into version N + 1.
public struct Upcaster: Sendable {
    public let eventType: String
    public let fromVersion: Int
    public let transform: @Sendable (JSONValue) throws -> JSONValue

    public init(eventType: String, fromVersion: Int, transform: @escaping @Sendable (JSONValue) throws -> JSONValue) {
        self.eventType = eventType
        self.fromVersion = fromVersion
        self.transform = transform
    }
}

public enum EventDecodingError: Error, CustomStringConvertible, Sendable {
    case malformed(String)
    case missingUpcaster(type: String, fromVersion: Int)

    public var description: String {
        switch self {
        case .malformed(let reason): "malformed event: \(reason)"
        case .missingUpcaster(let type, let version): "no upcaster for \(type) v\(version)"
        }
    }
}

/// What reading one message produced. Unknown and too-new events are not errors: a consumer that
/// is older than its producers skips them (with a log line and a metric) instead of stopping.
public enum DecodeOutcome: Sendable {
    case event(DecodedEvent)
    case unknownType(EventMetadata)
    case newerVersion(EventMetadata, known: Int)
}

/// The contract between executables: every (type, version) with its topic, and the upcasters
/// that bring old versions forward at read time.
public struct EventCatalogue: Sendable {
    struct Entry: Sendable {
        let payloadType: any EventPayload.Type
        let decodeCurrent: @Sendable (Data, JSONDecoder) throws -> DecodedEvent
        let decodePayload: @Sendable (Data, JSONDecoder) throws -> any EventPayload
        /// The hand reader of a `RawReadablePayload`, tried before the decoder.
        let readPayload: (@Sendable ([UInt8], Range<Int>) -> (any EventPayload)?)?
    }

    private var latest: [String: Entry] = [:]
    private var upcasters: [String: [Int: Upcaster]] = [:]
    /// Every registered payload type, old versions included (their events are still read).
    public let payloadTypes: [any EventPayload.Type]

    public init(payloads: [any EventPayload.Type], upcasters: [Upcaster] = []) {
        self.payloadTypes = payloads
        for payload in payloads { register(payload) }
        for upcaster in upcasters { self.upcasters[upcaster.eventType, default: [:]][upcaster.fromVersion] = upcaster }
    }

    private mutating func register<P: EventPayload>(_ payload: P.Type) {
        if let existing = latest[P.eventType], existing.payloadType.version >= P.version { return }
        latest[P.eventType] = Entry(
            payloadType: P.self,
            decodeCurrent: { data, decoder in
                let envelope = try decoder.decode(Envelope<P>.self, from: data)
                return DecodedEvent(metadata: envelope.metadata, payload: envelope.data)
            },
            decodePayload: { data, decoder in try decoder.decode(P.self, from: data) },
            readPayload: Self.handReader(of: P.self)
        )
    }

    private static func handReader<P: EventPayload>(of payload: P.Type) -> (@Sendable ([UInt8], Range<Int>) -> (any EventPayload)?)? {
        guard let readable = payload as? any RawReadablePayload.Type else { return nil }
        return { bytes, range in readable.read(bytes, in: range) }
    }

    public var eventTypes: [String] { latest.keys.sorted() }

    public func currentVersion(of type: String) -> Int? { latest[type]?.payloadType.version }

    public func topic(of type: String) -> Topic? { latest[type]?.payloadType.topic }

    /// The Swift type of the current version of `type`: what a writer of new events of that type
    /// encodes (`hearthctl publish` decodes its input as it).
    public func payloadType(of type: String) -> (any EventPayload.Type)? { latest[type]?.payloadType }

    /// The personal fields of `type` as version `version` wrote them: what opens a stored event
    /// before it is upcast (a field a later version renamed is sealed under its old name).
    /// Unknown versions fall back to the current type's.
    public func privacy(of type: String, version: Int) -> PayloadPrivacy? {
        if let exact = payloadTypes.first(where: { $0.eventType == type && $0.version == version }) { return exact.privacy }
        return latest[type]?.payloadType.privacy
    }

    /// Every topic some registered event is published to, with its partition count.
    public var topics: [Topic] { Array(Set(latest.values.map { $0.payloadType.topic })).sorted { $0.name < $1.name } }

    public func encode<P: EventPayload>(_ envelope: Envelope<P>, encoder: JSONEncoder = .hearth()) throws -> Data {
        try encoder.encode(envelope)
    }

    /// Decodes one message value. `hint` (type and version, from the Kafka headers or the archive
    /// columns) spares a first pass over the JSON.
    public func decode(_ data: Data, hint: (type: String, version: Int)? = nil, decoder: JSONDecoder = .hearth()) throws -> DecodeOutcome {
        let type: String
        let version: Int
        var metadata: EventMetadata?
        if let hint {
            (type, version) = hint
        } else {
            let decoded = try decodeMetadata(data, decoder: decoder)
            metadata = decoded
            (type, version) = (decoded.type, decoded.version)
        }
        guard let entry = latest[type] else {
            return .unknownType(try metadata ?? decodeMetadata(data, decoder: decoder))
        }
        let current = entry.payloadType.version
        if version == current {
            do {
                return .event(try entry.decodeCurrent(data, decoder))
            } catch {
                throw EventDecodingError.malformed("\(type) v\(version): \(Self.describe(error))")
            }
        }
        let meta = try metadata ?? decodeMetadata(data, decoder: decoder)
        if version > current { return .newerVersion(meta, known: current) }
        return .event(try upcast(data, metadata: meta, entry: entry, decoder: decoder))
    }

    /// Decodes one message value whose metadata was read raw: only the payload goes through the
    /// decoder (and the whole envelope only when it needs upcasting).
    public func decode(_ raw: RawEnvelope, of bytes: [UInt8], decoder: JSONDecoder = .hearth()) throws -> DecodeOutcome {
        let metadata = raw.metadata
        guard let entry = latest[metadata.type] else { return .unknownType(metadata) }
        let current = entry.payloadType.version
        if metadata.version == current {
            if let read = entry.readPayload, let payload = read(bytes, raw.payload) {
                return .event(DecodedEvent(metadata: metadata, payload: payload))
            }
            do {
                return .event(DecodedEvent(metadata: metadata, payload: try entry.decodePayload(Data(bytes[raw.payload]), decoder)))
            } catch {
                throw EventDecodingError.malformed("\(metadata.type) v\(metadata.version): \(Self.describe(error))")
            }
        }
        if metadata.version > current { return .newerVersion(metadata, known: current) }
        return .event(try upcast(Data(bytes), metadata: metadata, entry: entry, decoder: decoder))
    }

    private func upcast(_ data: Data, metadata: EventMetadata, entry: Entry, decoder: JSONDecoder) throws -> DecodedEvent {
        struct RawData: Decodable { let data: JSONValue }
        var payload: JSONValue
        do {
            payload = try decoder.decode(RawData.self, from: data).data
        } catch {
            throw EventDecodingError.malformed("\(metadata.type) v\(metadata.version): \(Self.describe(error))")
        }
        var version = metadata.version
        while version < entry.payloadType.version {
            guard let step = upcasters[metadata.type]?[version] else {
                throw EventDecodingError.missingUpcaster(type: metadata.type, fromVersion: version)
            }
            payload = try step.transform(payload)
            version += 1
        }
        var upgraded = metadata
        upgraded.version = version
        do {
            let bytes = try JSONEncoder().encode(payload)
            return DecodedEvent(metadata: upgraded, payload: try entry.decodePayload(bytes, decoder))
        } catch {
            throw EventDecodingError.malformed("\(metadata.type) upcast to v\(version): \(Self.describe(error))")
        }
    }

    private func decodeMetadata(_ data: Data, decoder: JSONDecoder) throws -> EventMetadata {
        do {
            return try decoder.decode(EventMetadata.self, from: data)
        } catch {
            throw EventDecodingError.malformed(Self.describe(error))
        }
    }

    /// A decoding error in one line that names the field (`missing data.household_id`).
    public static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "missing \((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "wrong type at \(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        case DecodingError.dataCorrupted(let context):
            return "corrupt data at \(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        default:
            return String(describing: error)
        }
    }
}

extension EventCatalogue {
    /// Hearth's catalogue: every payload type any executable publishes. Add new versions here,
    /// with an upcaster from the previous one.
    public static let hearth = EventCatalogue(
        payloads: [
            HouseholdUpserted.self,
            HouseholdMemberAdded.self,
            HouseholdInviteCreated.self,
            HouseholdInviteCreatedV2.self,
            HouseholdInviteAccepted.self,
            UserRegistered.self,
            UserRegisteredV2.self,
            UserProfileUpdated.self,
            UserJoinedHousehold.self,
            UserJoinedHouseholdV2.self,
            UserLeftHousehold.self,
            UserHouseholdRoleChanged.self,
            UserDeletionRequested.self,
            UserDeletionCancelled.self,
            UserDeletionCodeIssued.self,
            UserErased.self,
            UserExportRequested.self,
            UserConsentsUpdated.self,
            FeedbackGiven.self,
            AdminDeadLetterRedriven.self,
            AdminUserQuotaSet.self,
            AssistRequested.self,
            AssistRunStarted.self,
            AssistRunEvent.self,
            AssistRunCompleted.self,
            AssistRunExpired.self,
            ChoreScheduled.self,
            RoutineScheduled.self,
            ReminderRequested.self,
            ReminderCancelled.self,
            CalendarEventCreated.self,
            CalendarEventUpdated.self,
            CalendarEventDeleted.self,
            CalendarFeedCreated.self,
            CalendarFeedRevoked.self,
            GoogleLinkConnected.self,
            GoogleLinkDisconnected.self,
            GoogleLinkBroken.self,
            DocumentUpserted.self,
            DocumentDeleted.self,
            ContentEmbedded.self,
            DeviceRegistered.self,
            DeviceRemoved.self,
            WebhookRegistered.self,
            WebhookRegisteredV2.self,
            WebhookDisabled.self,
            WebhookRemoved.self,
            WebhookSecretRotated.self,
            WebhookSecretRotatedV2.self,
            NotificationSettingsUpdated.self,
            NotificationSettingsUpdatedV2.self,
            NotificationSent.self,
            NotificationFailed.self,
            NotificationRead.self,
            ChatCreated.self,
            ChatMessageSent.self,
            ChatMediaShared.self,
            ChatRead.self,
            ProfileFactExtracted.self,
            ProfileFactExtractedV2.self,
            ProfileFactLinked.self,
            ProfileFactConfirmed.self,
            ProfileFactRejected.self,
            AssistantMessageRequested.self,
            AssistantMessageRequestedV2.self,
            AssistantMessageRequestedV3.self,
            AssistantActionProposed.self,
            AssistantActionProposedV2.self,
            AssistantActionEdited.self,
            AssistantActionRejected.self,
            AssistantActionExecuted.self,
            SummaryRequested.self,
            SummaryRequestedV2.self,
        ] + TrackingLogKind.payloadTypes + WellbeingEvents.payloadTypes + CoachingEvents.payloadTypes
            + ActivityEvents.payloadTypes,
        upcasters: [
            NotificationSettingsUpdatedV2.upcasterFromV1,
            WebhookRegisteredV2.upcasterFromV1,
            WebhookSecretRotatedV2.upcasterFromV1,
            UserJoinedHouseholdV2.upcasterFromV1,
            UserRegisteredV2.upcasterFromV1,
            AssistantMessageRequestedV2.upcasterFromV1,
            AssistantMessageRequestedV3.upcasterFromV2,
            ProfileFactExtractedV2.upcasterFromV1,
            AssistantActionProposedV2.upcasterFromV1,
            HouseholdInviteCreatedV2.upcasterFromV1,
            DaycareImportReceivedV2.upcasterFromV1,
            SummaryRequestedV2.upcasterFromV1,
            WellbeingSimulationStartedV2.upcasterFromV1,
        ]
    )
}
