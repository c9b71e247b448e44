/// A model configuration that cannot work, reported at start-up rather than on the first run.
public enum ModelConfigurationError: Error, CustomStringConvertible, Equatable {
    case unknownProvider(variable: String, entry: String)
    case missingModel(variable: String, entry: String)
    case missingAPIKey(provider: String, variable: String)
    case missingPrice(entry: String, pricesFile: String)
    case emptyChain(variable: String)

    public var description: String {
        switch self {
        case .unknownProvider(let variable, let entry):
            "\(variable): unknown provider in \"\(entry)\" (use openai:<model>, anthropic:<model> or local)"
        case .missingModel(let variable, let entry):
            "\(variable): \"\(entry)\" names no model (write provider:model)"
        case .missingAPIKey(let provider, let variable):
            "the chain uses \(provider) but \(variable) is not set"
        case .missingPrice(let entry, let pricesFile):
            "\(entry) has no price in \(pricesFile); add it so budgets can be enforced"
        case .emptyChain(let variable):
            "\(variable) lists no providers"
        }
    }
}
