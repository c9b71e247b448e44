import Foundation
import HearthContent

/// The validated age bands of `routines.json`: ascending, non-overlapping and without
/// gaps, so every age in range belongs to exactly one band.
public struct RoutineCatalogue: Sendable {
    public let bands: [RoutineBand]

    public init(bands: [RoutineBand]) throws(PlanningContentError) {
        guard !bands.isEmpty else { throw Self.malformed("there are no bands") }
        for (index, band) in bands.enumerated() {
            guard band.minAge >= 0, band.minAge <= band.maxAge else {
                throw Self.malformed("band \(band.label) has ages \(band.minAge)–\(band.maxAge)")
            }
            guard !band.morning.isEmpty, !band.bedtime.isEmpty else {
                throw Self.malformed("band \(band.label) needs both a morning and a bedtime routine")
            }
            guard (band.morning + band.bedtime).allSatisfy({ !$0.title.isEmpty && $0.minutes > 0 }) else {
                throw Self.malformed("band \(band.label) has a step without a title or with no minutes")
            }
            if index > 0, band.minAge != bands[index - 1].maxAge + 1 {
                throw Self.malformed("band \(band.label) does not start right after \(bands[index - 1].label)")
            }
        }
        self.bands = bands
    }

    public init(jsonData: Data) throws(PlanningContentError) {
        struct File: Decodable { let bands: [RoutineBand] }
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: jsonData)
        } catch {
            throw Self.malformed("cannot decode: \(error)")
        }
        try self.init(bands: file.bands)
    }

    public static func bundled() throws -> RoutineCatalogue {
        try RoutineCatalogue(jsonData: HearthContent.data(of: .routines))
    }

    /// The band covering `age`, if any.
    public func band(forAge age: Int) -> RoutineBand? {
        bands.first { $0.ages.contains(age) }
    }

    public var ages: ClosedRange<Int> { bands.first!.minAge...bands.last!.maxAge }

    private static func malformed(_ reason: String) -> PlanningContentError {
        PlanningContentError(file: HearthContent.File.routines.rawValue, reason: reason)
    }
}
