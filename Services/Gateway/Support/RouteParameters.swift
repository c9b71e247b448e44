import Foundation
import HearthRuntime

extension HearthRequestContext {
    /// The path parameter `name` as a UUID; a 400 naming it (as `field` when the path calls it
    /// something else, e.g. `{id}` for a household id) otherwise.
    func uuidParameter(_ name: String, field: String? = nil) throws -> UUID {
        guard let text = parameters.get(name), let id = UUID(uuidString: text) else {
            throw APIError.invalid(field ?? name, "the \(field ?? name) in the path must be a UUID")
        }
        return id
    }
}
