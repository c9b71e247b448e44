import Foundation
import HearthEvents

/// The words of a pediatrician summary: two or three paragraphs, three to five highlights, the
/// concerns worth raising, and the disclaimer. This is the deterministic template used when no
/// model is configured; a model's text is held to the same rules: every number comes from the
/// metrics, and nothing is a diagnosis (a concern is a question to ask the pediatrician).
public struct SummaryNarrative: Sendable, Equatable, Codable {
    public var paragraphs: [String]
    public var highlights: [String]
    public var concerns: [String]
    public var disclaimer: String

    public static let disclaimer =
        "This summary was made from what the family logged in Hearth. It is not medical advice and does not diagnose anything: "
        + "talk to your pediatrician about any question or worry it raises."

    /// Fewer wet diapers a day than this in a baby's log is worth a question about hydration.
    static let fewWetDiapersPerDay = 4.0
    /// A move of this many percentile points between the first and last weight is worth a question.
    static let percentileShift = 25.0

    public static func template(_ metrics: SummaryMetrics, childName name: String) -> SummaryNarrative {
        let n = SummaryNumber.text
        var paragraphs: [String] = []
        var highlights: [String] = []
        var concerns: [String] = []

        var rest: [String] = []
        if let sleep = metrics.sleep {
            var text = "Over these \(metrics.days) days, \(name) slept \(n(sleep.totalSleepHoursPerDay)) hours a day on average, "
                + "with \(n(sleep.napsPerDay)) naps a day"
            if let nap = sleep.averageNapMinutes { text += " lasting \(n(nap)) minutes on average" }
            text += "; the longest stretch of sleep was \(n(sleep.longestStretchMinutes)) minutes."
            paragraphs.append(text)
            highlights.append("Sleep: \(n(sleep.totalSleepHoursPerDay)) hours a day, longest stretch \(n(sleep.longestStretchMinutes)) minutes.")
        } else {
            rest.append("No sleep was logged in these \(metrics.days) days.")
        }

        var feeding: [String] = []
        if let feeds = metrics.feeding {
            var text = "\(name) fed \(n(feeds.feedsPerDay)) times a day (\(feeds.totalFeeds) feeds in all)"
            if let interval = feeds.averageIntervalMinutes { text += ", about every \(n(interval)) minutes" }
            text += "."
            if let bottle = feeds.averageBottleMl { text += " Bottles averaged \(n(bottle)) ml." }
            if let nursing = feeds.averageNursingMinutes { text += " Nursing sessions averaged \(n(nursing)) minutes." }
            feeding.append(text)
            highlights.append("Feeding: \(n(feeds.feedsPerDay)) feeds a day.")
        }
        if let diapers = metrics.diapers {
            feeding.append("There were \(n(diapers.changesPerDay)) diaper changes a day: \(diapers.wet) wet and \(diapers.dirty) dirty in all.")
            highlights.append("Diapers: \(n(diapers.changesPerDay)) changes a day.")
            // Only when diapers seem logged all day long: a range with days of no diaper logged (a
            // daycare's days) is incomplete, not a baby drinking too little.
            if diapers.changesPerDay >= fewWetDiapersPerDay, Double(diapers.wet) / Double(metrics.days) < fewWetDiapersPerDay,
               metrics.feeding?.averageBottleMl != nil || metrics.feeding?.averageNursingMinutes != nil
            {
                concerns.append("Fewer wet diapers were logged than a baby usually has: ask your pediatrician whether \(name) is drinking enough.")
            }
        }
        if !feeding.isEmpty { paragraphs.append(feeding.joined(separator: " ")) }

        var more: [String] = []
        if let foods = metrics.foods {
            if !foods.newFoods.isEmpty {
                more.append("New foods tried: \(foods.newFoods.joined(separator: ", ")).")
                highlights.append("Foods: \(foods.newFoods.prefix(5).joined(separator: ", ")) tried.")
            }
            if !foods.allergenExposures.isEmpty {
                let list = foods.allergenExposures.sorted { $0.key < $1.key }.map { "\($0.key.replacingOccurrences(of: "_", with: " ")) \($0.value)×" }
                more.append("Allergen exposures: \(list.joined(separator: ", ")).")
                highlights.append("Allergens met: \(foods.allergenExposures.keys.sorted().map { $0.replacingOccurrences(of: "_", with: " ") }.joined(separator: ", ")).")
            }
            for reaction in foods.reactions {
                concerns.append("Ask your pediatrician about the \(reaction.reaction) reaction to \(reaction.food).")
            }
        }
        if let growth = metrics.growth {
            if let weight = growth.weightKg {
                var text = "Weight went from \(n(weight.start)) kg to \(n(weight.end)) kg"
                if let percentile = weight.endPercentile { text += " (percentile \(n(percentile)) at the last measurement)" }
                more.append(text + ".")
                highlights.append("Weight: \(n(weight.end)) kg.")
                if let first = weight.startPercentile, let last = weight.endPercentile, abs(last - first) >= percentileShift {
                    concerns.append("Ask your pediatrician about the change in \(name)'s weight percentile.")
                }
            }
            if let length = growth.lengthCm {
                more.append("Length went from \(n(length.start)) cm to \(n(length.end)) cm.")
                highlights.append("Length: \(n(length.end)) cm.")
            }
        }
        if let medication = metrics.medication {
            more.append("Medication given: \(medication.names.joined(separator: ", ")) (\(medication.totalDoses) doses in all).")
            highlights.append("Medication: \(medication.names.joined(separator: ", ")).")
        }
        more.insert(contentsOf: rest, at: 0)
        if !more.isEmpty { paragraphs.append(more.joined(separator: " ")) }
        let nothing = metrics.sleep == nil && metrics.feeding == nil && metrics.foods == nil && metrics.medication == nil
            && metrics.diapers == nil && metrics.growth == nil
        if nothing {
            paragraphs = ["Nothing was logged for \(name) in these \(metrics.days) days."]
            highlights = ["Nothing was logged in the range."]
        }
        // Two paragraphs at least: what was not logged is worth saying too.
        if paragraphs.count < 2 {
            let missing = [("feeds", metrics.feeding == nil), ("sleep", metrics.sleep == nil), ("diapers", metrics.diapers == nil),
                           ("foods", metrics.foods == nil), ("growth", metrics.growth == nil)].filter(\.1).map(\.0)
            paragraphs.append(missing.isEmpty ? "Everything above comes from the family's own logs."
                : "No \(missing.joined(separator: ", ")) were logged in the range, so the summary says nothing of them.")
        }
        return SummaryNarrative(
            paragraphs: Array(paragraphs.prefix(3)), highlights: Array(highlights.prefix(5)), concerns: concerns, disclaimer: disclaimer)
    }

    /// Every paragraph, highlight and concern (not the disclaimer) as one text.
    public var text: String { (paragraphs + highlights + concerns).joined(separator: "\n") }
}

/// How numbers are written in a summary: as the metrics hold them, without a trailing ".0".
public enum SummaryNumber {
    public static func text(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e12 ? String(Int64(value)) : String(value)
    }

    /// Every number a summary's metrics hold, written as `text` writes them: a narrative may use
    /// these and no other.
    public static func allowed(in metrics: SummaryMetrics) throws -> Set<String> {
        let json = try JSONValueEncoder().encode(metrics)
        var found = Set<String>()
        func walk(_ value: JSONValue) {
            switch value {
            case .number(let number): found.insert(text(number))
            case .array(let items): items.forEach(walk)
            case .object(let fields): fields.values.forEach(walk)
            default: break
            }
        }
        walk(json)
        return found
    }

    /// Whether every number written in `text` is one of the metrics (compared as values, a sign
    /// included), once the strings in `ignoring` (names, dates) are taken out; numbers in words or
    /// in other scripts' digits are not accepted, as they cannot be checked.
    public static func onlyMetrics(in text: String, metrics: SummaryMetrics, ignoring: [String]) throws -> Bool {
        var text = text
        for name in ignoring.sorted(by: { $0.count > $1.count }) where !name.isEmpty { text = text.replacingOccurrences(of: name, with: " ") }
        if text.contains(where: { !$0.isASCII && $0.isNumber }) { return false }
        let words = Set(text.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init))
        if !words.isDisjoint(with: numberWords) { return false }
        let allowed = Set(try Self.allowed(in: metrics).compactMap(Double.init))
        let absolute = Set(allowed.map(abs))
        return numbers(in: text, signed: true).allSatisfy { text in
            guard let value = Double(text) else { return false }
            return allowed.contains(value) || absolute.contains(abs(value))
        }
    }

    static let numberWords: Set<String> = [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "fifteen", "twenty",
        "thirty", "hundred", "twice", "thrice", "dozen", "half", "quarter",
    ]

    /// The numbers written in `text` (digits with an optional decimal part).
    public static func numbers(in text: String, signed: Bool = false) -> [String] {
        var result: [String] = []
        var current = ""
        var previous: Character = " "
        for character in text + " " {
            defer { previous = character }
            if signed, character == "-", current.isEmpty, !(previous.isLetter || previous.isNumber) {
                current = "-"
                continue
            }
            if character.isASCII, character.isNumber || (character == "." && !current.isEmpty && current != "-") {
                current.append(character)
            } else if current == "-" {
                current = ""
            } else if !current.isEmpty {
                result.append(current.hasSuffix(".") ? String(current.dropLast()) : current)
                current = ""
            }
        }
        return result
    }
}
