import Foundation
import HearthEvents

/// The envelope of the wellbeing content files read as JSON trees (`audio_scripts.json`,
/// `scenarios.json`): `{"source": "…", "<list>": [entries]}`, nothing else. Each library reads its
/// own entries and maps a `Problem` to its own error.
enum WellbeingContentFile {
    enum Problem: Error {
        case unreadable(reason: String)
        case invalidFile(field: String, reason: String)
    }

    static func entries(of data: Data, list: String) throws(Problem) -> (source: String, entries: [JSONValue]) {
        let root: JSONValue
        do {
            root = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw .unreadable(reason: "\(error)")
        }
        guard case .object(let fields) = root else {
            throw .invalidFile(field: "-", reason: "must be a JSON object {\"source\": …, \"\(list)\": […]}")
        }
        if let unknown = fields.keys.filter({ !["source", list].contains($0) }).sorted().first {
            throw .invalidFile(field: unknown, reason: "is not a known field")
        }
        guard case .string(let source)? = fields["source"], !source.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw .invalidFile(field: "source", reason: "must be a non-empty string")
        }
        guard case .array(let entries)? = fields[list], !entries.isEmpty else {
            throw .invalidFile(field: list, reason: "must be a non-empty list of \(list)")
        }
        return (source, entries)
    }
}
