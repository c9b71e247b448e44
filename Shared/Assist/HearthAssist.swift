// The assist pipeline's building blocks: the model router (phases, provider chains, budgets,
// token and cost tracking) and the safety policy engine (PII redaction, content rules, age
// gates). The flow that drives a run lives in the assist-orchestrator and calls into here.
import Foundation

/// Files shipped in `Shared/Assist/Resources` (copied as one folder into the module bundle).
enum AssistResources {
    static func url(_ file: String) -> URL {
        // Foundation on Linux takes a bundle's top-level `Resources` folder for its resource
        // directory, so `resourceURL` may already end in it; elsewhere it is the bundle root.
        let base = Bundle.module.resourceURL!
        let direct = base.appendingPathComponent(file)
        if base.lastPathComponent == "Resources", FileManager.default.fileExists(atPath: direct.path) { return direct }
        return base.appendingPathComponent("Resources", isDirectory: true).appendingPathComponent(file)
    }
}
