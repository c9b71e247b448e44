import Foundation
import HearthDomain
import HearthEvents
import HearthRuntime

extension CoachScope {
    /// Whether the scope lets a coach do what a request needs. Chat is always allowed: a
    /// relationship is a conversation first.
    func allows(_ need: MembershipReadModel.CoachNeed) -> Bool {
        switch need {
        case .chat: true
        case .calendarRead: calendar == "read" || calendar == "write"
        case .calendarWrite: calendar == "write"
        case .profile: !profileKinds.isEmpty
        case .tracking: tracking
        }
    }

    /// A scope as an owner sent it, checked: a calendar level, known profile kinds (each once),
    /// and the tracking flag. Errors name the field.
    static func validated(calendar: String?, profileKinds: [String]?, tracking: Bool?) throws -> CoachScope {
        let level = calendar ?? "none"
        guard calendarLevels.contains(level) else {
            throw APIError.invalid("scope.calendar", "calendar must be one of \(calendarLevels.joined(separator: ", "))")
        }
        var kinds: [String] = []
        for (index, kind) in (profileKinds ?? []).enumerated() {
            guard ProfileFactKind(rawValue: kind) != nil else {
                let known = ProfileFactKind.allCases.map(\.rawValue).joined(separator: ", ")
                throw APIError.invalid("scope.profile_kinds[\(index)]", "profile_kinds[\(index)] must be one of \(known)")
            }
            if !kinds.contains(kind) { kinds.append(kind) }
        }
        return CoachScope(calendar: level, profileKinds: kinds, tracking: tracking ?? false)
    }
}
