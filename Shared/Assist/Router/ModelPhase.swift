/// The two kinds of model call a run makes: a short, focused planning call (query or intent
/// extraction) and a longer synthesis call that writes the text the family reads. Each phase
/// has its own provider chain because the trade-off between price and quality differs.
/// `extraction` is the profile-extractor's: structured facts read from one chat message.
public enum ModelPhase: String, Sendable, Codable, CaseIterable {
    case planning
    case synthesis
    case extraction
}
