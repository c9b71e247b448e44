import Foundation
import HearthContent

/// The validated chore templates from `chores.json`.
public struct ChoreCatalogue: Sendable {
    public let chores: [ChoreDefinition]

    public init(chores: [ChoreDefinition]) throws(PlanningContentError) {
        var ids = Set<String>()
        for chore in chores {
            func require(_ condition: Bool, _ reason: String) throws(PlanningContentError) {
                if !condition { throw Self.malformed("\(chore.id.isEmpty ? "a chore" : chore.id): \(reason)") }
            }
            try require(!chore.id.isEmpty, "id must not be blank")
            try require(ids.insert(chore.id).inserted, "duplicate id")
            try require(!chore.name.trimmingCharacters(in: .whitespaces).isEmpty, "name must not be blank")
            try require(chore.minAge >= 0, "min_age must not be negative")
            try require(chore.minutes > 0, "minutes must be positive")
            try require(chore.effort > 0, "effort must be positive")
        }
        self.chores = chores
    }

    public init(jsonData: Data) throws(PlanningContentError) {
        let decoded: [ChoreDefinition]
        do {
            decoded = try JSONDecoder().decode([ChoreDefinition].self, from: jsonData)
        } catch {
            throw Self.malformed("cannot decode: \(error)")
        }
        try self.init(chores: decoded)
    }

    public static func bundled() throws -> ChoreCatalogue {
        try ChoreCatalogue(jsonData: HearthContent.data(of: .chores))
    }

    public func chore(id: String) -> ChoreDefinition? {
        chores.first { $0.id == id }
    }

    /// By name, ignoring case, spacing and punctuation.
    public func chore(named name: String) -> ChoreDefinition? {
        let wanted = WordMatching.words(in: name)
        return chores.first { WordMatching.words(in: $0.name) == wanted }
    }

    /// The chores a goal talks about, in catalogue order (see `ChoreGoalMatcher`).
    public func chores(matchingGoal goal: String) -> [ChoreDefinition] {
        ChoreGoalMatcher(chores: chores).matches(for: goal)
    }

    private static func malformed(_ reason: String) -> PlanningContentError {
        PlanningContentError(file: HearthContent.File.chores.rawValue, reason: reason)
    }
}
