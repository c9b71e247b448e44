import Foundation

/// What a pediatrician summary counts, over a range of days: computed from the logs, never by a
/// model. A section with no data is absent (nil), not zero: "no diapers logged" is not "no
/// diapers".
public struct SummaryMetrics: Sendable, Equatable, Codable {
    public struct Sleep: Sendable, Equatable, Codable {
        public var napsPerDay: Double
        public var averageNapMinutes: Double?
        public var totalSleepHoursPerDay: Double
        public var longestStretchMinutes: Double
        public var totalNaps: Int

        enum CodingKeys: String, CodingKey {
            case napsPerDay = "naps_per_day"
            case averageNapMinutes = "average_nap_minutes"
            case totalSleepHoursPerDay = "total_sleep_hours_per_day"
            case longestStretchMinutes = "longest_stretch_minutes"
            case totalNaps = "total_naps"
        }
    }

    public struct Feeding: Sendable, Equatable, Codable {
        public var feedsPerDay: Double
        public var averageIntervalMinutes: Double?
        public var totalFeeds: Int
        public var averageBottleMl: Double?
        public var averageNursingMinutes: Double?

        enum CodingKeys: String, CodingKey {
            case feedsPerDay = "feeds_per_day"
            case averageIntervalMinutes = "average_interval_minutes"
            case totalFeeds = "total_feeds"
            case averageBottleMl = "average_bottle_ml"
            case averageNursingMinutes = "average_nursing_minutes"
        }
    }

    public struct Reaction: Sendable, Equatable, Codable {
        public var food: String
        public var reaction: String
        public var day: String
    }

    public struct Foods: Sendable, Equatable, Codable {
        public var newFoods: [String]
        public var byColour: [String: Int]
        public var reactions: [Reaction]
        public var allergenExposures: [String: Int]

        enum CodingKeys: String, CodingKey {
            case newFoods = "new_foods"
            case byColour = "by_colour"
            case reactions
            case allergenExposures = "allergen_exposures"
        }
    }

    public struct Medication: Sendable, Equatable, Codable {
        public var dosesPerDay: Double
        public var names: [String]
        public var totalDoses: Int

        enum CodingKeys: String, CodingKey {
            case dosesPerDay = "doses_per_day"
            case names
            case totalDoses = "total_doses"
        }
    }

    public struct Diapers: Sendable, Equatable, Codable {
        public var changesPerDay: Double
        public var wet: Int
        public var dirty: Int

        enum CodingKeys: String, CodingKey {
            case changesPerDay = "changes_per_day"
            case wet, dirty
        }
    }

    /// One measurement's first and last value in the range, with WHO percentiles when the child's
    /// sex and birth date are known.
    public struct Measure: Sendable, Equatable, Codable {
        public var start: Double
        public var end: Double
        public var change: Double
        public var startPercentile: Double?
        public var endPercentile: Double?

        enum CodingKeys: String, CodingKey {
            case start, end, change
            case startPercentile = "start_percentile"
            case endPercentile = "end_percentile"
        }
    }

    public struct Growth: Sendable, Equatable, Codable {
        public var weightKg: Measure?
        public var lengthCm: Measure?

        enum CodingKeys: String, CodingKey {
            case weightKg = "weight_kg"
            case lengthCm = "length_cm"
        }
    }

    public var days: Int
    public var sleep: Sleep?
    public var feeding: Feeding?
    public var foods: Foods?
    public var medication: Medication?
    public var diapers: Diapers?
    public var growth: Growth?
}

/// The inputs of a summary: the child's logs in the range, as plain values.
public struct SummaryInput: Sendable {
    public struct Dose: Sendable, Equatable {
        public var at: Date
        public var name: String
        public init(at: Date, name: String) {
            self.at = at
            self.name = name
        }
    }

    public struct Food: Sendable, Equatable {
        public var at: Date
        public var food: String
        public var colour: String?
        public var reaction: String
        public var allergens: [String]
        public var unmarked: Bool
        public init(at: Date, food: String, colour: String?, reaction: String, allergens: [String], unmarked: Bool) {
            self.at = at
            self.food = food
            self.colour = colour
            self.reaction = reaction
            self.allergens = allergens
            self.unmarked = unmarked
        }
    }

    public struct Measurement: Sendable, Equatable {
        public var at: Date
        public var weightKg: Double?
        public var lengthCm: Double?
        public init(at: Date, weightKg: Double?, lengthCm: Double?) {
            self.at = at
            self.weightKg = weightKg
            self.lengthCm = lengthCm
        }
    }

    public var feeds: [FeedSample] = []
    public var sleeps: [SleepSample] = []
    public var diapers: [DiaperSample] = []
    public var foods: [Food] = []
    public var doses: [Dose] = []
    public var measurements: [Measurement] = []

    public init(
        feeds: [FeedSample] = [], sleeps: [SleepSample] = [], diapers: [DiaperSample] = [], foods: [Food] = [], doses: [Dose] = [],
        measurements: [Measurement] = []
    ) {
        self.feeds = feeds
        self.sleeps = sleeps
        self.diapers = diapers
        self.foods = foods
        self.doses = doses
        self.measurements = measurements
    }
}

/// Growth percentiles need the child's sex and birth date; without them the values stand alone.
public struct SummaryChild: Sendable {
    public var name: String
    public var birth: Date?
    public var sex: GrowthSex?

    public init(name: String, birth: Date?, sex: GrowthSex?) {
        self.name = name
        self.birth = birth
        self.sex = sex
    }
}

public enum SummaryCalculator {
    /// The metrics over `[from, to)`. `now` bounds a sleep still going on. Figures per day divide by
    /// the range's days: `days` when the caller counted calendar days (a range over a clock change
    /// is not a day longer), else whole days of 24 h; averages are of the events that have the value.
    public static func metrics(
        _ input: SummaryInput, from: Date, to: Date, now: Date, child: SummaryChild, standards: GrowthStandards?, zone: TimeZone,
        days calendarDays: Int? = nil
    ) -> SummaryMetrics {
        let days = max(1, calendarDays ?? Int((to.timeIntervalSince(from) / 86_400).rounded(.up)))
        let inRange = { (date: Date) in date >= from && date < to }
        func perDay(_ count: Double) -> Double { round1(count / Double(days)) }

        var metrics = SummaryMetrics(days: days)

        // Sleep: clipped to the range; overlapping sleeps (two caregivers) counted once.
        let end = min(to, now)
        let clipped = input.sleeps.compactMap { sleep -> (Date, Date, Bool)? in
            let start = max(sleep.start, from)
            let stop = min(sleep.end ?? end, end)
            return stop > start ? (start, stop, sleep.isNap) : nil
        }.sorted { $0.0 < $1.0 }
        if !clipped.isEmpty {
            var merged: [(Date, Date)] = []
            for (start, stop, _) in clipped {
                if let last = merged.last, start < last.1 { merged[merged.count - 1].1 = max(last.1, stop) } else { merged.append((start, stop)) }
            }
            let total = merged.reduce(0) { $0 + $1.1.timeIntervalSince($1.0) }
            let naps = clipped.filter(\.2)
            let napMinutes = naps.map { $0.1.timeIntervalSince($0.0) / 60 }
            metrics.sleep = .init(
                napsPerDay: perDay(Double(naps.count)),
                averageNapMinutes: napMinutes.isEmpty ? nil : round1(napMinutes.reduce(0, +) / Double(napMinutes.count)),
                totalSleepHoursPerDay: round1(total / 3600 / Double(days)),
                longestStretchMinutes: round1((merged.map { $0.1.timeIntervalSince($0.0) }.max() ?? 0) / 60),
                totalNaps: naps.count)
        }

        // Milk feeds: solids are meals, counted with the foods.
        let feeds = input.feeds.filter { inRange($0.at) && $0.kind != .solids }.sorted { $0.at < $1.at }
        if !feeds.isEmpty {
            let gaps = zip(feeds, feeds.dropFirst()).map { $1.at.timeIntervalSince($0.at) / 60 }
            let bottles = feeds.compactMap(\.bottleMl)
            let nursing = feeds.compactMap(\.nursingMinutes)
            metrics.feeding = .init(
                feedsPerDay: perDay(Double(feeds.count)),
                averageIntervalMinutes: gaps.isEmpty ? nil : round1(gaps.reduce(0, +) / Double(gaps.count)),
                totalFeeds: feeds.count,
                averageBottleMl: bottles.isEmpty ? nil : round1(bottles.reduce(0, +) / Double(bottles.count)),
                averageNursingMinutes: nursing.isEmpty ? nil : round1(nursing.reduce(0, +) / Double(nursing.count)))
        }

        let foods = input.foods.filter { inRange($0.at) }
        if !foods.isEmpty {
            let tried = foods.filter { !$0.unmarked }
            var colours: [String: Int] = [:]
            var exposures: [String: Int] = [:]
            for food in tried {
                if let colour = food.colour { colours[colour, default: 0] += 1 }
                for allergen in Set(food.allergens) { exposures[allergen, default: 0] += 1 }
            }
            let reactions = foods.filter { $0.reaction != "none" }.sorted { $0.at < $1.at }
                .map { SummaryMetrics.Reaction(food: $0.food, reaction: $0.reaction, day: CalendarDay($0.at, in: zone).isoDate) }
            metrics.foods = .init(
                newFoods: Array(Set(tried.map(\.food))).sorted { $0.localizedCaseInsensitiveCompare($1) == .orderedAscending },
                byColour: colours, reactions: reactions, allergenExposures: exposures)
        }

        let doses = input.doses.filter { inRange($0.at) }
        if !doses.isEmpty {
            metrics.medication = .init(
                dosesPerDay: perDay(Double(doses.count)), names: Array(Set(doses.map { $0.name.capitalized })).sorted(), totalDoses: doses.count)
        }

        let diapers = input.diapers.filter { inRange($0.at) }
        if !diapers.isEmpty {
            metrics.diapers = .init(
                changesPerDay: perDay(Double(diapers.count)), wet: diapers.filter(\.wet).count, dirty: diapers.filter(\.dirty).count)
        }

        let measured = input.measurements.filter { inRange($0.at) }.sorted { $0.at < $1.at }
        func measure(_ value: KeyPath<SummaryInput.Measurement, Double?>, _ indicator: GrowthIndicator) -> SummaryMetrics.Measure? {
            let points = measured.compactMap { m in m[keyPath: value].map { (m.at, $0) } }
            guard let first = points.first, let last = points.last else { return nil }
            func percentile(_ point: (Date, Double)) -> Double? {
                guard let standards, let sex = child.sex, let birth = child.birth else { return nil }
                let age = Int((point.0.timeIntervalSince(birth) / 86_400).rounded(.down))
                return standards.assess(point.1, indicator: indicator, sex: sex, ageDays: age)?.percentile
            }
            return .init(
                start: first.1, end: last.1, change: (((last.1 - first.1) * 1000).rounded()) / 1000, startPercentile: percentile(first),
                endPercentile: percentile(last))
        }
        let weight = measure(\.weightKg, .weightForAge)
        let length = measure(\.lengthCm, .lengthForAge)
        if weight != nil || length != nil { metrics.growth = .init(weightKg: weight, lengthCm: length) }
        return metrics
    }

    static func round1(_ value: Double) -> Double { (value * 10).rounded() / 10 }

}

extension SummaryMetrics {
    public init(days: Int) {
        self.days = days
    }

    /// The words of the metrics that may hold digits (food and medicine names, reaction days): a
    /// narrative's number check leaves them out.
    public var names: [String] {
        (foods?.newFoods ?? []) + (foods?.reactions.flatMap { [$0.food, $0.day] } ?? []) + (medication?.names ?? [])
    }
}
