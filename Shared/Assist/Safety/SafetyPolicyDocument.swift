/// `policies.yaml` as written; `SafetyPolicy` compiles it into matchers.
struct SafetyPolicyDocument: Decodable {
    struct ContentRule: Decodable {
        var id: String
        var pattern: String
        var refusal: String
        var appliesTo: [SafetyCheckpoint]?

        enum CodingKeys: String, CodingKey {
            case id, pattern, refusal
            case appliesTo = "applies_to"
        }
    }

    struct AgeGate: Decodable {
        var id: String
        var minAge: Int
        var maxAge: Int
        var keywords: [String]
        var refusal: String
        var appliesTo: [SafetyCheckpoint]?

        enum CodingKeys: String, CodingKey {
            case id, keywords, refusal
            case minAge = "min_age"
            case maxAge = "max_age"
            case appliesTo = "applies_to"
        }
    }

    struct Domain: Decodable {
        var contentRules: [ContentRule]?
        var ageGates: [AgeGate]?

        enum CodingKeys: String, CodingKey {
            case contentRules = "content_rules"
            case ageGates = "age_gates"
        }
    }

    var version: Int
    var refusals: [String: String]
    var allDomains: Domain?
    var domains: [String: Domain]

    enum CodingKeys: String, CodingKey {
        case version, refusals, domains
        case allDomains = "all_domains"
    }
}
