import Foundation

/// One occurrence of a calendar entry: the instants it starts and ends.
public struct Occurrence: Equatable, Sendable {
    public let start: Date
    public let end: Date

    public init(start: Date, end: Date) {
        self.start = start
        self.end = end
    }

    public func overlaps(_ other: Occurrence) -> Bool { start < other.end && other.start < end }
}

extension RecurrenceRule {
    /// Generation stops after this many periods even when the rule has no end, so a request for
    /// a far-away window cannot spin.
    static let maxPeriods = 50_000

    /// The occurrences of an entry that starts at `start` and lasts `duration`, overlapping the
    /// window `[from, to)`, at most `limit` of them.
    ///
    /// `DTSTART` is always the first occurrence (RFC 5545 §3.8.5.3) and counts towards `COUNT`;
    /// later ones keep its local time of day in `timeZone`. All-day entries compare `UNTIL` by
    /// local date.
    public func occurrences(
        start: Date, duration: TimeInterval, allDay: Bool, timeZone: TimeZone, from: Date, to: Date, limit: Int = 2000
    ) -> [Occurrence] {
        let (firstDay, secondsOfDay) = LocalTime.components(of: start, in: timeZone)
        let lastDay = allDay ? untilDay(in: timeZone) : nil
        let lastInstant = allDay ? nil : untilInstant(in: timeZone)
        // A day before this one cannot start an occurrence that reaches the window, whatever the
        // zone's offset: such days are counted (for COUNT) without working out their instants.
        // An entry of 1900 repeating daily would otherwise cost ~45,000 calendar conversions per
        // listing.
        let firstRelevantDay = CalendarDay(from, in: timeZone).adding(days: -(Int((duration / 86_400).rounded(.up)) + 2))
        // Days before this one start before UNTIL, so they may be counted unseen too.
        let lastCountableDay = lastInstant.map { CalendarDay($0, in: timeZone).adding(days: -2) }
        var result: [Occurrence] = []
        var produced = 0

        // Returns false when generation must stop.
        func emit(_ day: CalendarDay) -> Bool {
            if let count, produced >= count { return false }
            if let lastDay, day > lastDay { return false }
            if day < firstRelevantDay, lastCountableDay.map({ day <= $0 }) ?? true {
                produced += 1
                return true
            }
            let instant = day == firstDay ? start : LocalTime.instant(day: day, secondsOfDay: secondsOfDay, in: timeZone)
            if let lastInstant, instant > lastInstant { return false }
            if instant >= to { return false }
            produced += 1
            let occurrence = Occurrence(start: instant, end: instant.addingTimeInterval(duration))
            if occurrence.end > from || (duration == 0 && occurrence.start >= from) { result.append(occurrence) }
            return result.count < limit
        }

        guard emit(firstDay) else { return result }
        // Without COUNT nothing before the window matters, so whole periods are skipped.
        let firstPeriod = count == nil ? periodsBefore(firstRelevantDay, firstDay: firstDay) : 0
        for period in firstPeriod..<(firstPeriod + Self.maxPeriods) {
            for day in candidates(period: period, firstDay: firstDay) where day > firstDay {
                guard emit(day) else { return result }
            }
        }
        return result
    }

    /// How many whole periods lie before the one holding `day` (0 when `day` is not later than
    /// the first day): every candidate of those periods is earlier than `day`.
    func periodsBefore(_ day: CalendarDay, firstDay: CalendarDay) -> Int {
        let days = day.daysSinceEpoch - firstDay.daysSinceEpoch
        guard days > 0 else { return 0 }
        switch frequency {
        case .daily: return days / interval
        // Periods start on the Monday of the first day's week; one less keeps a partial week.
        case .weekly: return max(0, days / (7 * interval) - 1)
        case .monthly:
            let months = (day.year * 12 + day.month) - (firstDay.year * 12 + firstDay.month)
            return max(0, months / interval - 1)
        }
    }

    /// The local days period `period` (0 = the period holding the first day) offers, in order.
    func candidates(period: Int, firstDay: CalendarDay) -> [CalendarDay] {
        let weekdays = Set(byDay.map(\.weekday))
        switch frequency {
        case .daily:
            let day = firstDay.adding(days: period * interval)
            return weekdays.isEmpty || weekdays.contains(day.weekday) ? [day] : []
        case .weekly:
            let monday = firstDay.adding(days: -firstDay.weekday.rawValue + 7 * interval * period)
            let chosen = weekdays.isEmpty ? [firstDay.weekday] : weekdays.sorted()
            return chosen.map { monday.adding(days: $0.rawValue) }
        case .monthly:
            let monthIndex = firstDay.year * 12 + (firstDay.month - 1) + interval * period
            let year = monthIndex / 12, month = monthIndex % 12 + 1
            guard year <= 9999 else { return [] }
            if byDay.isEmpty {
                // A month without that day (the 31st in April) has no occurrence, as RFC 5545 says.
                return CalendarDay(year: year, month: month, day: firstDay.day).map { [$0] } ?? []
            }
            var days: [CalendarDay] = []
            var dayNumber = 1
            while let day = CalendarDay(year: year, month: month, day: dayNumber) {
                days.append(day)
                dayNumber += 1
            }
            var chosen = Set<CalendarDay>()
            for rule in byDay {
                let matching = days.filter { $0.weekday == rule.weekday }
                switch rule.ordinal {
                case nil: chosen.formUnion(matching)
                case let n? where n > 0: if n <= matching.count { chosen.insert(matching[n - 1]) }
                case let n?: if -n <= matching.count { chosen.insert(matching[matching.count + n]) }
                }
            }
            return chosen.sorted()
        }
    }
}
