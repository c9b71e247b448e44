import Foundation
import HearthEvents

/// What arrives on `assist.requests`: a plan to make, a message for the household assistant, or a
/// child's pediatrician summary to write. All are runs, claimed and streamed the same way.
enum IntakeRequest: Sendable {
    case plan(AssistRequested)
    case assistant(AssistantMessageRequestedV3)
    case summary(SummaryRequestedV2)

    var runId: UUID {
        switch self {
        case .plan(let request): request.runId
        case .assistant(let request): request.runId
        case .summary(let request): request.runId
        }
    }

    var userId: UUID {
        switch self {
        case .plan(let request): request.userId
        case .assistant(let request): request.userId
        case .summary(let request): request.userId
        }
    }
}
