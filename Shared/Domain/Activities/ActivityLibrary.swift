import Foundation
import HearthContent
import HearthEvents

/// The bundled activity library (`activities.json`): the micro-rituals every new Hearth starts
/// its feed with, published as `activity.published` (source `library`) by the embedding-worker.
public struct ActivityLibrary: Sendable {
    public struct Entry: Sendable, Equatable, Decodable {
        public var id: String
        public var content: ActivityContent

        /// `{"id": …}` beside the content's own fields, as `activities.json` has them.
        public init(from decoder: any Decoder) throws {
            enum Keys: String, CodingKey { case id }
            id = try decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .id)
            content = try ActivityContent(from: decoder)
        }
    }

    public let entries: [Entry]

    /// The library shipped with Hearth; `validate.py` and the unit tests check it, so failing to
    /// read it is a build defect.
    public static func bundled() throws -> ActivityLibrary {
        try ActivityLibrary(jsonData: HearthContent.data(of: .activities))
    }

    public init(jsonData: Data) throws {
        struct File: Decodable {
            var version: Int
            var activities: [Entry]
        }
        entries = try JSONDecoder().decode(File.self, from: jsonData).activities
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
