/// An interest domain the wellbeing quizzes draw on. The raw values are the keys used by the
/// quiz bank, the tips file and stored preferences, so renaming a case must keep its raw value.
public enum WellbeingInterest: String, CaseIterable, Codable, Sendable {
    case rdr2
    case cyberpunk2077 = "cyberpunk_2077"
    case ghostOfTsushima = "ghost_of_tsushima"
    case footballManager = "football_manager"
    case techTrivia = "tech_trivia"
    case realMadrid = "real_madrid"
    case historicalEvents = "historical_events"
    case sciFi = "sci_fi"
    case sherlockHolmes = "sherlock_holmes"
    case guitarBasics = "guitar_basics"
    case harryPotter = "harry_potter"

    /// What a picker shows; also the words a model prompt uses, since a key like "rdr2" means
    /// little to a model or a person.
    public var displayName: String {
        switch self {
        case .rdr2: return "Red Dead Redemption 2"
        case .cyberpunk2077: return "Cyberpunk 2077"
        case .ghostOfTsushima: return "Ghost of Tsushima"
        case .footballManager: return "Football Manager"
        case .techTrivia: return "Tech trivia"
        case .realMadrid: return "Real Madrid"
        case .historicalEvents: return "Historical events"
        case .sciFi: return "Science fiction"
        case .sherlockHolmes: return "Sherlock Holmes"
        case .guitarBasics: return "Guitar basics"
        case .harryPotter: return "Harry Potter"
        }
    }
}
