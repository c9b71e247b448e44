import Foundation
import HearthRuntime

extension HearthRequestContext {
    /// The path parameter `name` as a UUID; a 400 naming it otherwise.
    func uuidParameter(_ name: String) throws -> UUID {
        guard let text = parameters.get(name), let id = UUID(uuidString: text) else {
            throw APIError.invalid(name, "\(name) must be a UUID")
        }
        return id
    }
}
