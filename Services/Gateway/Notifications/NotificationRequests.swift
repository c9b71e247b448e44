import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime

/// The channels a reminder or the settings may name.
enum NotificationChannelNames {
    static let all: Set<String> = ["apns", "webhook", "inbox"]

    static func validated(_ channels: [String]?, field: String) throws -> [String]? {
        guard let channels else { return nil }
        guard !channels.isEmpty else { throw APIError.invalid(field, "\(field) must name at least one of apns, webhook, inbox") }
        for (index, channel) in channels.enumerated() where !all.contains(channel) {
            throw APIError.invalid("\(field)[\(index)]", "\(field)[\(index)] must be apns, webhook or inbox")
        }
        var seen: Set<String> = []
        return channels.filter { seen.insert($0).inserted }
    }
}

/// Body of `POST /v1/reminders`.
struct ReminderRequestBody: Decodable {
    var title: String
    var body: String?
    /// RFC 3339 with a zone (`Z` or an offset).
    var at: String
    var memberId: UUID?
    var channels: [String]?
    var urgent: Bool?

    enum CodingKeys: String, CodingKey {
        case title, body, at
        case memberId = "member_id"
        case channels, urgent
    }

    static let maxTitleLength = 200
    static let maxBodyLength = 2000
    /// A reminder a little in the past (a slow client, a clock off by a minute) is sent at once;
    /// one further back is a mistake.
    static let pastTolerance: TimeInterval = 10 * 60
    static let furthestAhead: TimeInterval = 2 * 366 * 24 * 3600

    struct Validated {
        var title: String
        var body: String?
        var dueAt: Date
        var memberId: UUID?
        var channels: [String]?
        var urgent: Bool
    }

    func validated(now: Date = Date()) throws -> Validated {
        let title = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else { throw APIError.invalid("title", "title must not be empty") }
        guard title.unicodeScalars.count <= Self.maxTitleLength else { throw APIError.invalid("title", "title must be at most \(Self.maxTitleLength) characters") }
        let body = body?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let body, body.unicodeScalars.count > Self.maxBodyLength {
            throw APIError.invalid("body", "body must be at most \(Self.maxBodyLength) characters")
        }
        guard let dueAt = Timestamp.parse(at.trimmingCharacters(in: .whitespaces)) else {
            throw APIError.invalid("at", "at must be an RFC 3339 date-time with a zone, e.g. 2026-03-03T18:00:00Z")
        }
        guard dueAt >= now.addingTimeInterval(-Self.pastTolerance) else {
            throw APIError.invalid("at", "at is in the past")
        }
        guard dueAt <= now.addingTimeInterval(Self.furthestAhead) else {
            throw APIError.invalid("at", "at must be within two years")
        }
        return Validated(
            title: title, body: body?.isEmpty == true ? nil : body, dueAt: dueAt, memberId: memberId,
            channels: try NotificationChannelNames.validated(channels, field: "channels"), urgent: urgent ?? false)
    }
}

/// APNs device tokens: hex, 32 bytes today (64 characters); Apple says they may grow, so up to
/// 100 bytes is accepted, in whole bytes.
enum DeviceTokenRule {
    static func validated(_ token: String, field: String = "token") throws -> String {
        let trimmed = token.trimmingCharacters(in: .whitespaces)
        guard trimmed.allSatisfy(\.isHexDigit), trimmed.allSatisfy(\.isASCII) else {
            throw APIError.invalid(field, "\(field) must be the device token in hex")
        }
        guard trimmed.count >= 64, trimmed.count <= 200, trimmed.count % 2 == 0 else {
            throw APIError.invalid(field, "\(field) must be 64 to 200 hex characters (whole bytes)")
        }
        return trimmed.lowercased()
    }
}

/// Body of `POST /v1/devices`.
struct DeviceRequestBody: Decodable {
    var platform: String
    var token: String
    var environment: String?

    struct Validated {
        var platform: String
        var token: String
        var environment: String
    }

    func validated() throws -> Validated {
        guard platform == "ios" else { throw APIError.invalid("platform", "platform must be ios") }
        let environment = environment ?? "production"
        guard environment == "sandbox" || environment == "production" else {
            throw APIError.invalid("environment", "environment must be sandbox or production")
        }
        return Validated(platform: platform, token: try DeviceTokenRule.validated(token), environment: environment)
    }
}

/// Body of `POST /v1/webhooks`.
struct WebhookRequestBody: Decodable {
    var url: String
    var secret: String
    var events: [String]?

    static let knownEvents: Set<String> = ["reminder"]

    struct Validated {
        var url: String
        var secret: String
        var events: [String]
    }

    /// `http` is accepted outside production, where receivers are local test servers; private
    /// targets only when `HEARTH_WEBHOOK_PRIVATE_TARGETS` allows them (tests, `make run`). The
    /// notifier checks the resolved address again at every delivery.
    func validated(allowPlainHTTP: Bool, allowPrivateTargets: Bool) throws -> Validated {
        let text = url.trimmingCharacters(in: .whitespaces)
        guard text.utf8.count <= 2048, let parsed = URL(string: text), let scheme = parsed.scheme?.lowercased(),
              let host = parsed.host, !host.isEmpty, parsed.user == nil, parsed.password == nil
        else { throw APIError.invalid("url", "url must be an absolute http(s) URL") }
        guard scheme == "https" || (scheme == "http" && allowPlainHTTP) else {
            throw APIError.invalid("url", allowPlainHTTP ? "url must be http or https" : "url must be https")
        }
        if !allowPrivateTargets {
            if let literal = NetworkAddress(literal: host) {
                guard literal.isPublic else { throw APIError.invalid("url", "url must reach a public address, not \(literal)") }
            } else if NetworkAddress.isLocalName(host) {
                throw APIError.invalid("url", "url must name a public host, not \(host)")
            }
        }
        guard (16...256).contains(secret.unicodeScalars.count) else { throw APIError.invalid("secret", "secret must be 16 to 256 characters") }
        let events = events ?? ["reminder"]
        // A webhook for no events would never be called: surely not what the caller meant.
        guard !events.isEmpty else { throw APIError.invalid("events", "events must list at least one event (reminder), or be left out") }
        for (index, event) in events.enumerated() where !Self.knownEvents.contains(event) {
            throw APIError.invalid("events[\(index)]", "events[\(index)] must be reminder")
        }
        var seen: Set<String> = []
        return Validated(url: text, secret: secret, events: events.filter { seen.insert($0).inserted })
    }
}

/// Body of `PUT /v1/notifications/settings`. Absent fields keep their value; quiet hours are set
/// as a pair, and cleared with two nulls... or empty strings.
struct NotificationSettingsBody: Decodable {
    var timeZone: String?
    var quietHoursStart: String?
    var quietHoursEnd: String?
    var channels: [String]?
    var choreReminderLeadMinutes: Int?
    /// Whether the keys were present at all (present and null clears quiet hours).
    var mentionsQuietHours = false

    enum CodingKeys: String, CodingKey {
        case timeZone = "time_zone"
        case quietHoursStart = "quiet_hours_start"
        case quietHoursEnd = "quiet_hours_end"
        case channels
        case choreReminderLeadMinutes = "chore_reminder_lead_minutes"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        timeZone = try container.decodeIfPresent(String.self, forKey: .timeZone)
        quietHoursStart = try container.decodeIfPresent(String.self, forKey: .quietHoursStart)
        quietHoursEnd = try container.decodeIfPresent(String.self, forKey: .quietHoursEnd)
        channels = try container.decodeIfPresent([String].self, forKey: .channels)
        if container.contains(.choreReminderLeadMinutes) {
            // Read as a number and checked by hand: a fraction, a string or null would otherwise
            // fail inside the decoder, whose errors do not always name the field.
            guard let number = try? container.decode(Double.self, forKey: .choreReminderLeadMinutes), let minutes = Int(exactly: number) else {
                throw Self.invalidLead
            }
            choreReminderLeadMinutes = minutes
        }
        mentionsQuietHours = container.contains(.quietHoursStart) || container.contains(.quietHoursEnd)
    }

    static var invalidLead: APIError {
        APIError.invalid(
            "chore_reminder_lead_minutes",
            "chore_reminder_lead_minutes must be a whole number of minutes from 0 to \(ChoreReminderLead.maximumMinutes)")
    }

    struct Validated {
        var timeZone: String?
        var quietHoursStart: String?
        var quietHoursEnd: String?
        var channels: [String]?
        var choreReminderLeadMinutes: Int?
    }

    func validated() throws -> Validated {
        if let timeZone, LocalTime.zone(named: timeZone) == nil {
            throw APIError.invalid("time_zone", "time_zone must be an IANA zone name, e.g. Europe/Berlin")
        }
        var start: String?
        var end: String?
        if mentionsQuietHours {
            let from = quietHoursStart ?? "", to = quietHoursEnd ?? ""
            if from.isEmpty && to.isEmpty {
                start = ""
                end = ""
            } else {
                guard let begin = LocalClockTime(from) else {
                    throw APIError.invalid("quiet_hours_start", "quiet_hours_start must be HH:MM (24-hour), with quiet_hours_end")
                }
                guard let finish = LocalClockTime(to) else {
                    throw APIError.invalid("quiet_hours_end", "quiet_hours_end must be HH:MM (24-hour), with quiet_hours_start")
                }
                guard begin != finish else { throw APIError.invalid("quiet_hours_end", "quiet_hours_end must differ from quiet_hours_start") }
                start = begin.description
                end = finish.description
            }
        }
        let channels = try NotificationChannelNames.validated(channels, field: "channels")
        if let lead = choreReminderLeadMinutes, !ChoreReminderLead.allowedMinutes.contains(lead) { throw Self.invalidLead }
        guard timeZone != nil || mentionsQuietHours || channels != nil || choreReminderLeadMinutes != nil else {
            throw APIError.invalid(
                "body", "name at least one of time_zone, quiet_hours_start/quiet_hours_end, channels, chore_reminder_lead_minutes")
        }
        return Validated(
            timeZone: timeZone, quietHoursStart: start, quietHoursEnd: end, channels: channels,
            choreReminderLeadMinutes: choreReminderLeadMinutes)
    }
}
