import Foundation
import HearthEvents
import HearthRuntime

/// Body of `POST /v1/activities/submissions`: an activity as the library has it. Tags are the
/// library's vocabulary; ages and repeatability may be left out (all ages, `occasional`).
struct ActivitySubmissionRequest: Decodable {
    var title: String
    var description: String
    var timeMinutes: Int
    var energy: String
    var contexts: [String]
    var category: String
    var minAge: Int?
    var maxAge: Int?
    var repeatability: String?

    enum CodingKeys: String, CodingKey {
        case title, description
        case timeMinutes = "time_minutes"
        case energy, contexts, category
        case minAge = "min_age"
        case maxAge = "max_age"
        case repeatability
    }

    static let titleLength = 3...80
    static let descriptionLength = 20...600

    /// The content to submit, trimmed, contexts in their canonical order; a 400 naming the field
    /// otherwise.
    func validated() throws -> ActivityContent {
        let title = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard Self.titleLength.contains(title.count), !title.contains(where: \.isNewline) else {
            throw APIError.invalid("title", "title must be one line of \(Self.titleLength.lowerBound) to \(Self.titleLength.upperBound) characters")
        }
        let description = description.trimmingCharacters(in: .whitespacesAndNewlines)
        guard Self.descriptionLength.contains(description.count) else {
            throw APIError.invalid(
                "description", "description must be \(Self.descriptionLength.lowerBound) to \(Self.descriptionLength.upperBound) characters")
        }
        guard ActivityContent.times.contains(timeMinutes) else {
            throw APIError.invalid("time_minutes", "time_minutes must be one of \(ActivityContent.times.map(String.init).joined(separator: ", "))")
        }
        guard ActivityContent.energies.contains(energy) else {
            throw APIError.invalid("energy", "energy must be one of \(ActivityContent.energies.joined(separator: ", "))")
        }
        guard !contexts.isEmpty, Set(contexts).count == contexts.count, contexts.allSatisfy(ActivityContent.contextOrder.contains) else {
            throw APIError.invalid(
                "contexts", "contexts must list one or more of \(ActivityContent.contextOrder.joined(separator: ", ")), each once")
        }
        guard ActivityContent.categories.contains(category) else {
            throw APIError.invalid("category", "category must be one of \(ActivityContent.categories.joined(separator: ", "))")
        }
        let minAge = minAge ?? 0
        guard (0...17).contains(minAge) else { throw APIError.invalid("min_age", "min_age must be a whole number of years from 0 to 17") }
        let maxAge = maxAge ?? ActivityContent.noUpperAge
        guard (minAge...ActivityContent.noUpperAge).contains(maxAge) else {
            throw APIError.invalid("max_age", "max_age must be from min_age to \(ActivityContent.noUpperAge) (no upper limit)")
        }
        let repeatability = repeatability ?? "occasional"
        guard ActivityContent.repeatabilities.contains(repeatability) else {
            throw APIError.invalid("repeatability", "repeatability must be one of \(ActivityContent.repeatabilities.joined(separator: ", "))")
        }
        return ActivityContent(
            title: title, description: description, timeMinutes: timeMinutes, energy: energy,
            contexts: ActivityContent.contextOrder.filter(contexts.contains), category: category, minAge: minAge, maxAge: maxAge,
            repeatability: repeatability)
    }
}
