import Foundation
import HearthContent
import HearthEvents

/// The bundled activity library (`activities.json`): the micro-rituals every new Hearth starts
/// its feed with, published as `activity.published` (source `library`) by the embedding-worker.
public struct ActivityLibrary: Sendable {
    public struct Entry: Sendable, Equatable {
        public var id: String
        public var content: ActivityContent
    }

    public let entries: [Entry]

    /// The library shipped with Hearth; `validate.py` and the unit tests check it, so failing to
    /// read it is a build defect.
    public static func bundled() throws -> ActivityLibrary {
        try ActivityLibrary(jsonData: HearthContent.data(of: .activities))
    }

    public init(jsonData: Data) throws {
        struct File: Decodable {
            struct Activity: Decodable {
                var id: String
                var title: String
                var description: String
                var timeMinutes: Int
                var energy: String
                var contexts: [String]
                var category: String
                var minAge: Int
                var maxAge: Int
                var repeatability: String

                enum CodingKeys: String, CodingKey {
                    case id, title, description
                    case timeMinutes = "time_minutes"
                    case energy, contexts, category
                    case minAge = "min_age"
                    case maxAge = "max_age"
                    case repeatability
                }
            }
            var version: Int
            var activities: [Activity]
        }
        let file = try JSONDecoder().decode(File.self, from: jsonData)
        entries = file.activities.map {
            Entry(id: $0.id, content: ActivityContent(
                title: $0.title, description: $0.description, timeMinutes: $0.timeMinutes, energy: $0.energy, contexts: $0.contexts,
                category: $0.category, minAge: $0.minAge, maxAge: $0.maxAge, repeatability: $0.repeatability))
        }
    }

    /// The library as the events that publish it, in file order.
    public var publications: [ActivityPublished] {
        entries.map { ActivityPublished(activityId: $0.id, source: ActivityPublished.librarySource, submissionId: nil, content: $0.content) }
    }
}

extension ActivityContent {
    /// What an embedding of the activity reads: its title and description.
    public var embeddingText: String { "\(title). \(description)" }

    /// The id an approved submission is published under: stable, so an approval applied twice
    /// publishes one activity.
    public static func communityId(of submission: UUID) -> String {
        "act-community-\(submission.uuidString.lowercased())"
    }
}
