import Foundation
import PostgresNIO
import HearthAssist
import HearthConfiguration
import HearthEvents
import HearthKnowledge
import HearthRuntime
import Hummingbird
import Logging
import Metrics

/// Body of `POST /v1/activities/llm/ideas`: tags to fit and, optionally, what the family has in mind.
struct ActivityIdeasRequest: Decodable {
    var time: Int?
    var energy: String?
    var context: String?
    var ages: [Int]?
    var prompt: String?

    static let maxPrompt = 500

    func validated() throws -> ActivityIdeasRequest {
        if let time, !(1...1440).contains(time) { throw APIError.invalid("time", "time must be a number of minutes from 1 to 1440") }
        if let energy, !ActivityContent.energies.contains(energy) {
            throw APIError.invalid("energy", "energy must be one of \(ActivityContent.energies.joined(separator: ", "))")
        }
        if let context, !ActivityContent.contextOrder.contains(context) {
            throw APIError.invalid("context", "context must be one of \(ActivityContent.contextOrder.joined(separator: ", "))")
        }
        if let ages, ages.count > 12 || ages.contains(where: { !(0...120).contains($0) }) {
            throw APIError.invalid("ages", "ages must be at most 12 whole numbers of years from 0 to 120")
        }
        let prompt = prompt?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let prompt, prompt.count > Self.maxPrompt { throw APIError.invalid("prompt", "prompt must be at most \(Self.maxPrompt) characters") }
        return ActivityIdeasRequest(time: time, energy: energy, context: context, ages: ages, prompt: prompt?.isEmpty == true ? nil : prompt)
    }

    /// Whether a library activity fits the tags: within the time, the energy and context asked, and
    /// every age given.
    func fits(_ content: ActivityContent) -> Bool {
        ActivityFeedQuery(time: time, energy: energy, context: context).matches(content)
            && (ages ?? []).allSatisfy { content.minAge <= $0 && $0 <= content.maxAge }
    }

    /// What is embedded to rank the library: the prompt (redacted: the embedder may be a cloud
    /// provider) and the tags in words.
    func searchText(redactor: PIIRedactor) -> String {
        var parts: [String] = []
        if let prompt { parts.append(redactor.redact(prompt)) }
        if let energy { parts.append("\(energy) energy") }
        if let context { parts.append(context == "meal" ? "at a meal" : context == "car" ? "in the car" : "\(context)") }
        if let time { parts.append("\(time) minutes") }
        return parts.isEmpty ? "a small thing to do together today" : parts.joined(separator: ", ")
    }
}

/// One idea: an activity to do, from the library (with its id) or written by a model.
struct ActivityIdea: Encodable, Sendable, Equatable {
    var content: ActivityContent
    var activityId: String?
    var similarity: Double?

    func encode(to encoder: any Encoder) throws {
        try content.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encodeIfPresent(activityId, forKey: .activityId)
        try container.encodeIfPresent(similarity, forKey: .similarity)
    }

    enum Keys: String, CodingKey {
        case activityId = "activity_id"
        case similarity
    }
}

/// Ideas for `POST /v1/activities/llm/ideas`. Offline (`HEARTH_ACTIVITY_IDEAS_WRITER=library`, the
/// default) they are the live feed activities that fit the tags, nearest to the prompt by
/// embedding: one pgvector query over the vectors the embedding-worker keeps of every live
/// activity (`activity_vectors`, same model), so nothing is embedded twice; an activity the worker
/// has not embedded yet ranks last. With `model`, the router's synthesis chain writes them from the tags and the prompt
/// after PII redaction (never the words as typed), within a per-user daily budget; every idea
/// passes the submissions' screen (refused or needing care: dropped), and a reply with none left,
/// or no model answering, is answered from the library instead.
struct ActivityIdeaWriter: Sendable {
    let feed: ActivityFeed
    let client: PostgresClient
    let embeddings: any EmbeddingProvider
    let router: ModelRouter?
    let screen: ActivitySubmissionScreen
    let logger: Logger

    static let count = 5
    static let maxOutputTokens = 900

    init(feed: ActivityFeed, client: PostgresClient, embeddings: any EmbeddingProvider, router: ModelRouter?, screen: ActivitySubmissionScreen, logger: Logger) {
        self.feed = feed
        self.client = client
        self.embeddings = embeddings
        self.router = router
        self.screen = screen
        self.logger = logger
    }

    struct Ideas: ResponseEncodable {
        let ideas: [ActivityIdea]
        /// `library`, or the model as `provider:model`.
        let writtenBy: String

        enum CodingKeys: String, CodingKey {
            case ideas
            case writtenBy = "written_by"
        }
    }

    func ideas(for request: ActivityIdeasRequest, user: UUID) async throws -> Ideas {
        if let router, let written = await written(by: router, for: request, user: user) { return written }
        return Ideas(ideas: try await fromLibrary(request), writtenBy: "library")
    }

    /// The fitting live activities, nearest to the request's words first (ties by id).
    func fromLibrary(_ request: ActivityIdeasRequest) async throws -> [ActivityIdea] {
        let rows = try await feed.allRows(bypassing: false).filter { !$0.withdrawn && request.fits($0.content) }
        guard !rows.isEmpty else { return [] }
        let query: [Float]
        do {
            let embedded = try await embeddings.embed([request.searchText(redactor: screen.policy.redactor)])
            guard embedded.count == 1 else { throw EmbeddingProviderError("the embedder answered \(embedded.count) vectors for one text", retriable: true) }
            query = embedded[0]
        } catch let error as EmbeddingProviderError {
            logger.warning("activity ideas: the embedder failed", metadata: ["error": "\(error)"])
            throw APIError(.serviceUnavailable, code: "embedding_unavailable", message: "the embedder did not answer; retry shortly")
        }
        var similarity: [String: Double] = [:]
        for try await (id, cosine) in try await client.query(
            """
            SELECT activity_id, (1 - (embedding <=> \(query)::real[]::vector))::float8 FROM activity_vectors
            WHERE status = 'live' AND model = \(embeddings.model.name) AND activity_id = ANY(\(rows.map(\.id)))
            """, logger: logger
        ).decode((String, Double).self) {
            similarity[id] = cosine
        }
        let unranked = rows.count - similarity.count
        if unranked > 0 {
            // The worker has not embedded them yet (or embeds with another model until a replay).
            logger.warning("activity ideas: activities without a vector rank last", metadata: ["unranked": "\(unranked)", "model": "\(embeddings.model.name)"])
        }
        // Ranked ones first, nearest first; then the rest (similarity 0) by id.
        let ranked = rows.compactMap { row in similarity[row.id].map { (row, $0) } }.sorted { ($0.1, $1.0.id) > ($1.1, $0.0.id) }
        let rest = rows.filter { similarity[$0.id] == nil }.sorted { $0.id < $1.id }.map { ($0, 0.0) }
        return (ranked + rest).prefix(Self.count).map {
            ActivityIdea(content: $0.0.content, activityId: $0.0.id, similarity: ($0.1 * 1000).rounded() / 1000)
        }
    }

    /// The model's ideas that pass the screen; nil when there are none or no model answered.
    func written(by router: ModelRouter, for request: ActivityIdeasRequest, user: UUID) async -> Ideas? {
        let prompt = ActivityIdeaPrompt.prompt(for: request, redactor: screen.policy.redactor)
        do {
            let response = try await router.complete(
                ModelRequest(
                    phase: .synthesis, system: ActivityIdeaPrompt.system, prompt: prompt, maxOutputTokens: Self.maxOutputTokens, temperature: 0.7,
                    runId: "activity-ideas/\(UUID().uuidString.lowercased())", userId: user.uuidString.lowercased(), offlineAnswer: ""),
                budget: Self.budget(user: user), onToken: { _ in })
            guard response.provider != "local" else { return nil }
            let ideas = ActivityIdeaPrompt.parse(response.text).filter { screen.screen($0) == nil }
            guard !ideas.isEmpty else {
                Counter(label: "hearth_activity_ideas_model_failures_total", dimensions: [("reason", "no_usable_idea")]).increment()
                return nil
            }
            return Ideas(ideas: ideas.prefix(Self.count).map { ActivityIdea(content: $0) }, writtenBy: "\(response.provider):\(response.model)")
        } catch {
            Counter(label: "hearth_activity_ideas_model_failures_total", dimensions: [("reason", "no_answer")]).increment()
            logger.warning("activity ideas: no model answered; the library answers", metadata: ["error": "\(String(describing: error).prefix(300))"])
            return nil
        }
    }

    /// 10 cents and 20,000 tokens per user and UTC day.
    static func budget(user: UUID, now: Date = Date()) -> BudgetScope {
        BudgetScope(key: "activity-ideas/\(user.uuidString.lowercased())/\(Timestamp.format(now).prefix(10))", limitCents: 10, limitTokens: 20_000)
    }
}

/// The model's side of ideas: what it is told and how its reply is read.
enum ActivityIdeaPrompt {
    static let system = """
        You suggest small, safe activities a family can do together today. Answer with JSON only: \
        {"ideas":[{"title":"…","description":"…","time_minutes":2|5|15|30,"energy":"low|medium|high",\
        "contexts":["indoor"|"outdoor"|"car"|"bedtime"|"meal"],"category":"connection|creativity|movement|nature|learning|calm|kindness|play"}]}. \
        Five ideas, each title under 60 characters, each description one to three sentences. No links, products or health claims.
        """

    /// The request in words, its free text redacted: what leaves Hearth.
    static func prompt(for request: ActivityIdeasRequest, redactor: PIIRedactor) -> String {
        var lines: [String] = []
        if let time = request.time { lines.append("Time: at most \(time) minutes.") }
        if let energy = request.energy { lines.append("Energy: \(energy).") }
        if let context = request.context { lines.append("Where: \(context).") }
        if let ages = request.ages, !ages.isEmpty { lines.append("Children's ages: \(ages.map(String.init).joined(separator: ", ")).") }
        if let prompt = request.prompt { lines.append("What the family has in mind: \(redactor.redact(prompt))") }
        return lines.isEmpty ? "Any five ideas for today." : lines.joined(separator: "\n")
    }

    /// The ideas of a reply (JSON, possibly wrapped in prose or a code fence) that carry the
    /// library's vocabulary; anything else in it is dropped.
    static func parse(_ text: String) -> [ActivityContent] {
        guard let start = text.firstIndex(of: "{"), let end = text.lastIndex(of: "}"), start < end else { return [] }
        struct Reply: Decodable {
            struct Idea: Decodable {
                var title: String
                var description: String
                var time_minutes: Int
                var energy: String
                var contexts: [String]
                var category: String
            }
            var ideas: [Idea]
        }
        guard let reply = try? JSONDecoder().decode(Reply.self, from: Data(text[start...end].utf8)) else { return [] }
        return reply.ideas.compactMap { idea in
            let title = idea.title.trimmingCharacters(in: .whitespacesAndNewlines)
            let description = idea.description.trimmingCharacters(in: .whitespacesAndNewlines)
            guard (3...80).contains(title.count), (20...600).contains(description.count), ActivityContent.times.contains(idea.time_minutes),
                  ActivityContent.energies.contains(idea.energy), ActivityContent.categories.contains(idea.category),
                  !idea.contexts.isEmpty, idea.contexts.allSatisfy(ActivityContent.contextOrder.contains)
            else { return nil }
            return ActivityContent(
                title: title, description: description, timeMinutes: idea.time_minutes, energy: idea.energy,
                contexts: ActivityContent.contextOrder.filter(idea.contexts.contains), category: idea.category, minAge: 0,
                maxAge: ActivityContent.noUpperAge, repeatability: "occasional")
        }
    }
}

/// `HEARTH_ACTIVITY_IDEAS_WRITER`: `library` (the default: the feed's own activities) or `model`
/// (the router's synthesis chain, which must name a real provider; the library stays behind it).
enum ActivityIdeasWriterSelection {
    struct ConfigurationError: Error, CustomStringConvertible {
        var description: String
    }

    static func router(_ env: EnvironmentReader, logger: Logger) throws -> ModelRouter? {
        let choice = env.trimmed("HEARTH_ACTIVITY_IDEAS_WRITER")?.lowercased() ?? ""
        switch choice {
        case "", "library":
            return nil
        case "model":
            return try ModelRouter.requiringProvider(env, phase: .synthesis, setting: "HEARTH_ACTIVITY_IDEAS_WRITER", logger: logger,
                refusal: { ConfigurationError(description: $0) })
        default:
            throw ConfigurationError(description: "HEARTH_ACTIVITY_IDEAS_WRITER must be library or model, not \(choice)")
        }
    }
}
