import Foundation
import HearthEvents

/// What arrives on `assist.requests`: a plan to make, or a message for the household assistant.
/// Both are runs, claimed and streamed the same way.
enum IntakeRequest: Sendable {
    case plan(AssistRequested)
    case assistant(AssistantMessageRequested)

    var runId: UUID {
        switch self {
        case .plan(let request): request.runId
        case .assistant(let request): request.runId
        }
    }

    var userId: UUID {
        switch self {
        case .plan(let request): request.userId
        case .assistant(let request): request.userId
        }
    }
}
