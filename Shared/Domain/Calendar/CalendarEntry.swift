import Foundation

/// A household calendar entry as the domain reasons about it: a Hearth event, a chore
/// occurrence or a child's daily routine, with its recurrence already parsed.
public struct CalendarEntry: Equatable, Sendable {
    public enum Source: String, Sendable { case event, chore, routine }

    public var id: UUID
    public var source: Source
    public var title: String
    public var start: Date
    public var end: Date
    public var allDay: Bool
    public var timeZone: TimeZone
    /// `appointment`, `call`, `training`, `adhoc`, `chore` or `routine`.
    public var kind: String
    public var memberIds: [UUID]
    public var location: String?
    public var rule: RecurrenceRule?
    public var sequence: Int
    /// When the entry last changed (its event's time): the feed's `DTSTAMP`.
    public var updatedAt: Date

    public init(
        id: UUID, source: Source, title: String, start: Date, end: Date, allDay: Bool, timeZone: TimeZone, kind: String,
        memberIds: [UUID], location: String?, rule: RecurrenceRule?, sequence: Int, updatedAt: Date
    ) {
        self.id = id
        self.source = source
        self.title = title
        self.start = start
        self.end = end
        self.allDay = allDay
        self.timeZone = timeZone
        self.kind = kind
        self.memberIds = memberIds
        self.location = location
        self.rule = rule
        self.sequence = sequence
        self.updatedAt = updatedAt
    }

    public var duration: TimeInterval { end.timeIntervalSince(start) }

    /// The occurrences overlapping `[from, to)`: the entry itself, or its recurrences expanded.
    public func occurrences(from: Date, to: Date, limit: Int = 2000) -> [Occurrence] {
        guard let rule else {
            let only = Occurrence(start: start, end: end)
            return only.end > from && only.start < to ? [only] : []
        }
        return rule.occurrences(start: start, duration: duration, allDay: allDay, timeZone: timeZone, from: from, to: to, limit: limit)
    }
}

/// Two entries sharing a member at overlapping times: the seed's conflict warning.
public struct CalendarConflict: Equatable, Sendable {
    public let otherId: UUID
    public let otherTitle: String
    public let memberIds: [UUID]
    /// The first overlapping occurrence of the other entry.
    public let otherOccurrence: Occurrence
    /// The occurrence of the checked entry it overlaps.
    public let occurrence: Occurrence
}

public enum ConflictDetector {
    /// How far ahead recurring entries are compared: a year of occurrences is what people plan.
    public static let horizon: TimeInterval = 366 * 86_400

    /// The entries in `others` that overlap `candidate` for a member they share, at most one
    /// conflict per other entry (its first overlap), in start order. All-day entries and entries
    /// without members never conflict: a birthday does not block a dentist appointment.
    public static func conflicts(of candidate: CalendarEntry, among others: [CalendarEntry]) -> [CalendarConflict] {
        guard !candidate.allDay, !candidate.memberIds.isEmpty else { return [] }
        let windowEnd = candidate.rule == nil ? candidate.end : candidate.start.addingTimeInterval(horizon)
        let mine = candidate.occurrences(from: candidate.start, to: windowEnd, limit: 1000)
        guard let first = mine.first, let last = mine.last else { return [] }
        var found: [CalendarConflict] = []
        for other in others where other.id != candidate.id && !other.allDay {
            let shared = candidate.memberIds.filter(other.memberIds.contains)
            guard !shared.isEmpty else { continue }
            let theirs = other.occurrences(from: first.start, to: last.end, limit: 1000)
            if let hit = firstOverlap(mine, theirs) {
                found.append(CalendarConflict(otherId: other.id, otherTitle: other.title, memberIds: shared, otherOccurrence: hit.1, occurrence: hit.0))
            }
        }
        return found.sorted { ($0.otherOccurrence.start, $0.otherId.uuidString) < ($1.otherOccurrence.start, $1.otherId.uuidString) }
    }

    /// Both lists are in start order; a merge walk finds the first overlapping pair.
    static func firstOverlap(_ left: [Occurrence], _ right: [Occurrence]) -> (Occurrence, Occurrence)? {
        var i = 0, j = 0
        while i < left.count && j < right.count {
            if left[i].overlaps(right[j]) { return (left[i], right[j]) }
            if left[i].end <= right[j].end { i += 1 } else { j += 1 }
        }
        return nil
    }
}
