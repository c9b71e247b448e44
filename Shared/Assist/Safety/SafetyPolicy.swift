import Foundation
import Yams

/// Hearth's safety rules, read from `policies.yaml`: per domain (meals, chores, routines,
/// assistant, plus rules for every domain) content rules (pattern → refusal key) and age gates
/// (age range → forbidden keywords), and the refusal texts. Every pattern is compiled and every
/// refusal key resolved at load, so a broken policy stops the service at start-up.
public struct SafetyPolicy: Sendable {
    public let version: Int
    public let refusals: [String: String]
    let allDomains: DomainPolicy
    let domains: [String: DomainPolicy]
    public let redactor: PIIRedactor

    /// Loads the policy at `url`, or the bundled `Resources/policies.yaml`.
    public static func load(from url: URL? = nil) throws -> SafetyPolicy {
        let url = url ?? AssistResources.url("policies.yaml")
        let yaml: String
        do { yaml = try String(contentsOf: url, encoding: .utf8) } catch {
            throw SafetyPolicyError.unreadable(path: url.path, reason: "\(error)")
        }
        return try parse(yaml, path: url.path)
    }

    /// Parses policy YAML; `path` only names the source in errors.
    public static func parse(_ yaml: String, path: String = "policies.yaml") throws -> SafetyPolicy {
        let document: SafetyPolicyDocument
        do { document = try YAMLDecoder().decode(SafetyPolicyDocument.self, from: yaml) } catch {
            throw SafetyPolicyError.invalid(path: path, reason: "\(error)")
        }
        return try SafetyPolicy(document, path: path)
    }

    private init(_ document: SafetyPolicyDocument, path: String) throws {
        func invalid(_ reason: String) -> SafetyPolicyError { .invalid(path: path, reason: reason) }
        var seen = Set<String>()

        func compile(_ domain: SafetyPolicyDocument.Domain?, name: String) throws -> DomainPolicy {
            var policy = DomainPolicy()
            for rule in domain?.contentRules ?? [] {
                guard seen.insert(rule.id).inserted else { throw invalid("rule id \(rule.id) appears twice") }
                guard document.refusals[rule.refusal] != nil else { throw invalid("\(rule.id) refers to unknown refusal \(rule.refusal)") }
                let pattern: TextPattern
                do { pattern = try TextPattern(rule.pattern) } catch {
                    throw invalid("\(rule.id) has a pattern that does not compile: \(error)")
                }
                policy.contentRules.append(ContentRule(
                    id: rule.id, pattern: pattern, refusal: rule.refusal, checkpoints: try checkpoints(rule.appliesTo, rule.id)))
            }
            for gate in domain?.ageGates ?? [] {
                guard seen.insert(gate.id).inserted else { throw invalid("rule id \(gate.id) appears twice") }
                guard document.refusals[gate.refusal] != nil else { throw invalid("\(gate.id) refers to unknown refusal \(gate.refusal)") }
                guard gate.minAge >= 0, gate.minAge <= gate.maxAge else { throw invalid("\(gate.id) has ages \(gate.minAge)–\(gate.maxAge)") }
                let keywords = gate.keywords.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                guard !keywords.isEmpty else { throw invalid("\(gate.id) lists no keywords") }
                policy.ageGates.append(try AgeGate(
                    id: gate.id, ages: gate.minAge...gate.maxAge, keywords: keywords, refusal: gate.refusal,
                    checkpoints: try checkpoints(gate.appliesTo, gate.id)))
            }
            return policy
        }

        func checkpoints(_ listed: [SafetyCheckpoint]?, _ id: String) throws -> Set<SafetyCheckpoint> {
            guard let listed else { return Set(SafetyCheckpoint.allCases) }
            guard !listed.isEmpty else { throw invalid("\(id) applies to nothing") }
            return Set(listed)
        }

        guard document.version == 1 else { throw invalid("version \(document.version) is not supported (expected 1)") }
        version = document.version
        refusals = document.refusals
        allDomains = try compile(document.allDomains, name: "all_domains")
        var domains: [String: DomainPolicy] = [:]
        for (name, domain) in document.domains {
            domains[name.lowercased()] = try compile(domain, name: name)
        }
        self.domains = domains
        redactor = PIIRedactor()
    }

    /// The domains with rules of their own.
    public var domainNames: [String] { domains.keys.sorted() }

    /// Ids of the rules that apply in `domain` (those for every domain first), in checking order.
    public func ruleIds(domain: String) -> [String] {
        policies(for: domain).flatMap { $0.contentRules.map(\.id) + $0.ageGates.map(\.id) }
    }

    func policies(for domain: String) -> [DomainPolicy] {
        // An unknown domain still gets the rules for every domain: failing open to no rules at
        // all would make a typo in a caller a safety hole.
        [allDomains] + (domains[domain.lowercased()].map { [$0] } ?? [])
    }
}
