/// One model call as the flow describes it; providers translate it into their wire format.
public struct ModelRequest: Sendable {
    public var phase: ModelPhase
    public var system: String
    public var prompt: String
    public var maxOutputTokens: Int
    public var temperature: Double
    public var runId: String
    public var userId: String?
    /// What the offline `local` provider answers (deterministic text computed by the caller).
    public var offlineAnswer: String

    public init(
        phase: ModelPhase, system: String, prompt: String, maxOutputTokens: Int, temperature: Double,
        runId: String, userId: String? = nil, offlineAnswer: String
    ) {
        self.phase = phase
        self.system = system
        self.prompt = prompt
        self.maxOutputTokens = maxOutputTokens
        self.temperature = temperature
        self.runId = runId
        self.userId = userId
        self.offlineAnswer = offlineAnswer
    }
}
