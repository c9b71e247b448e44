import AsyncHTTPClient
import Foundation
import HearthConfiguration
import Logging

extension ModelRouter {
    /// Builds the router from the environment:
    ///
    /// - `HEARTH_MODEL_CHAIN_PLANNING`, `HEARTH_MODEL_CHAIN_SYNTHESIS`: comma lists such as
    ///   `openai:gpt-4o-mini,anthropic:claude-3-5-haiku-latest,local` (default `local`).
    /// - `HEARTH_OPENAI_API_KEY`, `HEARTH_OPENAI_BASE_URL` (default https://api.openai.com).
    /// - `HEARTH_ANTHROPIC_API_KEY`, `HEARTH_ANTHROPIC_BASE_URL` (default https://api.anthropic.com).
    /// - `HEARTH_MODEL_PRICES_FILE`: replaces the bundled `model_prices.json`.
    ///
    /// Throws when a chain names a provider without its key or a model without a price, so a
    /// misconfiguration stops the service at start-up instead of failing runs. Keys are never logged.
    public static func fromEnvironment(
        _ env: EnvironmentReader, ledger: any BudgetLedger, httpClient: HTTPClient, logger: Logger
    ) throws -> ModelRouter {
        func value(_ name: String) -> String? { env.trimmed(name) }

        let pricesFile = value("HEARTH_MODEL_PRICES_FILE")
        let prices = try pricesFile.map { try ModelPrices.load(from: URL(fileURLWithPath: $0)) } ?? ModelPrices.bundled()

        var chains: [ModelPhase: [any ModelProvider]] = [:]
        for phase in ModelPhase.allCases {
            let variable = "HEARTH_MODEL_CHAIN_\(phase.rawValue.uppercased())"
            let entries = try ModelChainEntry.parseList(value(variable) ?? "local", variable: variable)
            guard !entries.isEmpty else { throw ModelConfigurationError.emptyChain(variable: variable) }
            chains[phase] = try entries.map { entry -> any ModelProvider in
                switch entry.provider {
                case "openai":
                    guard let key = value("HEARTH_OPENAI_API_KEY") else {
                        throw ModelConfigurationError.missingAPIKey(provider: "openai", variable: "HEARTH_OPENAI_API_KEY")
                    }
                    try requirePrice(entry, in: prices, file: pricesFile)
                    return OpenAIChatProvider(
                        model: entry.model, apiKey: key, baseURL: value("HEARTH_OPENAI_BASE_URL") ?? OpenAIChatProvider.defaultBaseURL,
                        httpClient: httpClient, logger: logger)
                case "anthropic":
                    guard let key = value("HEARTH_ANTHROPIC_API_KEY") else {
                        throw ModelConfigurationError.missingAPIKey(provider: "anthropic", variable: "HEARTH_ANTHROPIC_API_KEY")
                    }
                    try requirePrice(entry, in: prices, file: pricesFile)
                    return AnthropicMessagesProvider(
                        model: entry.model, apiKey: key,
                        baseURL: value("HEARTH_ANTHROPIC_BASE_URL") ?? AnthropicMessagesProvider.defaultBaseURL,
                        httpClient: httpClient, logger: logger)
                default:
                    return LocalModelProvider(model: entry.model)
                }
            }
        }
        let router = ModelRouter(chains: chains, prices: prices, ledger: ledger, logger: logger)
        logger.info("model chains", metadata: [
            "planning": "\(router.chainDescription[.planning, default: []].joined(separator: ","))",
            "synthesis": "\(router.chainDescription[.synthesis, default: []].joined(separator: ","))",
        ])
        return router
    }

    private static func requirePrice(_ entry: ModelChainEntry, in prices: ModelPrices, file: String?) throws {
        guard prices.price(provider: entry.provider, model: entry.model) != nil else {
            throw ModelConfigurationError.missingPrice(entry: entry.description, pricesFile: file ?? "model_prices.json")
        }
    }
}

extension ModelRouter {
    /// The router for a `<setting>=model` choice: `fromEnvironment`, with its budgets held in
    /// memory, whose `phase` chain must name a real provider — the offline model cannot read a
    /// message or a sheet, nor write a quiz. Otherwise `refusal` gets the message saying so, and
    /// what it makes of it is thrown (each setting keeps its own error type).
    public static func requiringProvider(
        _ env: EnvironmentReader, phase: ModelPhase, setting: String, httpClient: HTTPClient = .shared, logger: Logger,
        refusal: (String) -> any Error
    ) throws -> ModelRouter {
        let router = try fromEnvironment(env, ledger: InMemoryBudgetLedger(), httpClient: httpClient, logger: logger)
        guard (router.chainDescription[phase] ?? []).contains(where: { !$0.hasPrefix("local:") }) else {
            throw refusal("\(setting)=model needs HEARTH_MODEL_CHAIN_\(phase.rawValue.uppercased()) to name a provider (openai:<model> or anthropic:<model>)")
        }
        return router
    }
}
