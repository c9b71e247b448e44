/// A pattern that refuses text wherever it matches (case-insensitive).
struct ContentRule: Sendable {
    var id: String
    var pattern: TextPattern
    var refusal: String
    var checkpoints: Set<SafetyCheckpoint>

    func refuses(_ text: String, at checkpoint: SafetyCheckpoint) -> Bool {
        checkpoints.contains(checkpoint) && pattern.matches(text)
    }
}
