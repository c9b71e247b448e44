import Foundation
import HearthContent

/// One food from `first_foods.json`: something a baby-led weaning or "food explorer" log can
/// name, with what a parent should know before offering it.
public struct CatalogueFood: Sendable, Equatable, Codable {
    /// Lower-case and hyphenated ("peanut-butter"); stable, so stored logs can refer to it.
    public let id: String
    public let name: String
    /// One of `FoodCatalogue.categories`.
    public let category: String
    /// One of `TrackingLogInput.foodColours`, so a food picked from the catalogue can be logged
    /// with its colour as it is and counted in the week's colours.
    public let colour: String
    /// Canonical allergen keys from `allergen_synonyms.json`, every one the food holds as usually
    /// sold (wheat always with gluten), so allergen check-ins and screening read the same words.
    public let allergens: [String]
    /// The earliest age, in months, at which to offer the food (honey: 12).
    public let fromMonths: Int
    /// "low", "medium" or "high": the risk as usually served, before the preparation in `servingTip`.
    public let chokingRisk: String
    public let servingTip: String

    public init(
        id: String, name: String, category: String, colour: String, allergens: [String], fromMonths: Int,
        chokingRisk: String, servingTip: String
    ) {
        self.id = id
        self.name = name
        self.category = category
        self.colour = colour
        self.allergens = allergens
        self.fromMonths = fromMonths
        self.chokingRisk = chokingRisk
        self.servingTip = servingTip
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, name, category, colour, allergens
        case fromMonths = "from_months"
        case chokingRisk = "choking_risk"
        case servingTip = "serving_tip"
    }
}

/// Why a first-foods file was refused. A food with a wrong allergen or a missing age would be
/// a safety bug rather than a cosmetic one, so the catalogue refuses the whole file instead of
/// skipping the entry, and says which food and field to fix.
public enum FoodCatalogueError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file (or the allergen vocabulary it is checked against) cannot be read, or is not a
    /// JSON object `{"source": …, "foods": […]}`.
    case unreadable(file: String, reason: String)
    /// `food` is the food's id, or its position ("foods[3]") when it has no usable id.
    case invalidFood(food: String, field: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason):
            return "\(file): cannot read: \(reason)"
        case .invalidFood(let food, let field, let reason):
            return "\(HearthContent.File.firstFoods.rawValue): food \"\(food)\", field \"\(field)\": \(reason)"
        }
    }
}

/// The first-foods catalogue (`first_foods.json`): look-ups by id and by what a parent types,
/// and a prefix search for pickers. Pure and immutable: load once, share freely.
public struct FoodCatalogue: Sendable {
    /// Kept in code rather than derived from the file so a typo ("vegtable") is refused instead of
    /// becoming a new category.
    public static let categories = [
        "fruit", "vegetable", "grain", "meat", "dairy", "legume", "nuts_seeds", "fish", "egg", "herb_spice", "other",
    ]
    public static let chokingRisks = ["low", "medium", "high"]
    /// Solids start at about six months; nothing in the catalogue waits beyond five years.
    public static let fromMonthsRange = 6...60

    /// Provenance of the file (its `source`).
    public let source: String
    /// In the file's order (sorted by id).
    public let foods: [CatalogueFood]
    private let positionByID: [String: Int]
    /// Normalised name (see `key(_:)`) to position.
    private let positionByName: [String: Int]
    /// The same for ids read as words ("tinned-tuna" → "tinned tuna"), a fallback after names.
    private let positionByIDWords: [String: Int]
    /// Per food, the words of its name and id, for `search`.
    private let searchWords: [[String]]
    /// Per food, its normalised name, so ordering does not depend on case or accents.
    private let sortKeys: [String]

    /// The bundled `first_foods.json`, with every allergen checked against the bundled
    /// `allergen_synonyms.json`.
    public static func bundled() throws(FoodCatalogueError) -> FoodCatalogue {
        let vocabulary: AllergenVocabulary
        do {
            vocabulary = try AllergenVocabulary.bundled()
        } catch {
            throw .unreadable(file: HearthContent.File.allergenSynonyms.rawValue, reason: "\(error)")
        }
        let data: Data
        do {
            data = try HearthContent.data(of: .firstFoods)
        } catch {
            throw .unreadable(file: HearthContent.File.firstFoods.rawValue, reason: "\(error)")
        }
        return try FoodCatalogue(jsonData: data, vocabulary: vocabulary)
    }

    /// Decodes and checks a first-foods file. With a `vocabulary`, every allergen must be one of
    /// its canonical allergens; without one, only the shape of each allergen key is checked, which
    /// suits fixtures. Implications (wheat ⇒ gluten) are the file's job, checked by `validate.py`
    /// and the tests: the vocabulary does not expose them, and reading a key as a declaration
    /// would widen it ("shellfish" also declares molluscs).
    public init(jsonData: Data, vocabulary: AllergenVocabulary? = nil) throws(FoodCatalogueError) {
        let file: FileShape
        do {
            file = try JSONDecoder().decode(FileShape.self, from: jsonData)
        } catch let error as FoodCatalogueError {
            throw error
        } catch {
            throw .unreadable(file: HearthContent.File.firstFoods.rawValue, reason: Self.reason(error))
        }

        var positionByID: [String: Int] = [:]
        var positionByName: [String: Int] = [:]
        var positionByIDWords: [String: Int] = [:]
        var searchWords: [[String]] = []
        var sortKeys: [String] = []
        for (position, entry) in file.foods.enumerated() {
            let food = entry.food
            try Self.check(food, vocabulary: vocabulary)
            if let other = positionByID[food.id] {
                throw .invalidFood(food: food.id, field: "id", reason: "repeats the id of foods[\(other)]")
            }
            let name = Self.key(food.name)
            if let other = positionByName[name] {
                throw .invalidFood(
                    food: food.id, field: "name",
                    reason: "\"\(food.name)\" is also the name of \(file.foods[other].food.id) (names ignore case and spacing)")
            }
            positionByID[food.id] = position
            positionByName[name] = position
            positionByIDWords[Self.key(food.id)] = position
            searchWords.append(WordMatching.words(in: Self.folded(food.name)) + WordMatching.words(in: food.id))
            sortKeys.append(name)
        }
        // A name that is another's plural ("Pear" and "Pears") would make `food(named:)` depend on
        // which spelling was typed; refuse it while the file is being edited rather than guess later.
        for (position, name) in sortKeys.enumerated() {
            for plural in Self.plurals(of: name) {
                if let other = positionByName[plural] {
                    let food = file.foods[other].food
                    throw .invalidFood(
                        food: food.id, field: "name",
                        reason: "\"\(food.name)\" is the plural of the name of \(file.foods[position].food.id)")
                }
            }
        }

        source = file.source
        foods = file.foods.map(\.food)
        self.positionByID = positionByID
        self.positionByName = positionByName
        self.positionByIDWords = positionByIDWords
        self.searchWords = searchWords
        self.sortKeys = sortKeys
    }

    public func food(id: String) -> CatalogueFood? {
        positionByID[id].map { foods[$0] }
    }

    /// The food a parent means by `name`: case, accents, spacing and hyphens do not matter, and a
    /// regular plural or singular finds the catalogue's spelling ("bananas" → Banana,
    /// "blueberry" → Blueberries). An exact spelling always wins over a plural reading.
    public func food(named name: String) -> CatalogueFood? {
        position(named: name).map { foods[$0] }
    }

    /// Foods whose name or id has, for every word of `query`, a word starting with it (or the same
    /// word up to a plural): "pea" finds Peas, Peach and Peanut butter. The food `food(named:)`
    /// would return comes first, the rest follow by name.
    public func search(_ query: String, limit: Int = 20) -> [CatalogueFood] {
        let queryWords = WordMatching.words(in: Self.folded(query))
        guard !queryWords.isEmpty, limit > 0 else { return [] }
        let exact = position(named: query)
        var hits = foods.indices.filter { position in
            position != exact
                && queryWords.allSatisfy { word in
                    searchWords[position].contains { $0.hasPrefix(word) || WordMatching.samePluralInsensitive($0, word) }
                }
        }
        hits.sort { (sortKeys[$0], foods[$0].id) < (sortKeys[$1], foods[$1].id) }
        if let exact { hits.insert(exact, at: 0) }
        return hits.prefix(limit).map { foods[$0] }
    }

    // MARK: - Matching

    private func position(named name: String) -> Int? {
        let words = WordMatching.words(in: Self.folded(name))
        guard let last = words.last else { return nil }
        let stem = words.dropLast().joined(separator: " ")
        let prefix = stem.isEmpty ? "" : stem + " "
        // The typed spelling first, then the singulars it could be the plural of, then its plurals.
        let forms = [last] + WordMatching.pluralForms(last).dropFirst() + Self.plurals(of: last)
        for form in forms {
            if let position = positionByName[prefix + form] { return position }
        }
        for form in forms {
            if let position = positionByIDWords[prefix + form] { return position }
        }
        return nil
    }

    /// Accents folded ("purée" matches "puree"); `WordMatching` lower-cases.
    private static func folded(_ text: String) -> String {
        text.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil)
    }

    /// Names compared ignoring case, accents, spacing and hyphens ("Hard-boiled  egg" = "hard boiled egg").
    private static func key(_ text: String) -> String {
        WordMatching.words(in: folded(text)).joined(separator: " ")
    }

    /// Regular English plurals of the last word of `text`: "pear" → pears, peares; "berry" → berrys, berries.
    private static func plurals(of text: String) -> [String] {
        var plurals = [text + "s", text + "es"]
        if text.hasSuffix("y") { plurals.append(String(text.dropLast()) + "ies") }
        return plurals
    }

    // MARK: - Checking

    private static func check(_ food: CatalogueFood, vocabulary: AllergenVocabulary?) throws(FoodCatalogueError) {
        func refuse(_ field: CatalogueFood.CodingKeys, _ reason: String) -> FoodCatalogueError {
            .invalidFood(food: food.id, field: field.rawValue, reason: reason)
        }
        let idParts = food.id.split(separator: "-", omittingEmptySubsequences: false)
        guard !idParts.contains(where: \.isEmpty),
            food.id.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" })
        else {
            throw refuse(.id, "must be lower-case letters and digits joined by single hyphens")
        }
        guard !key(food.name).isEmpty, food.name == food.name.trimmingCharacters(in: .whitespacesAndNewlines) else {
            throw refuse(.name, "must be non-empty without surrounding spaces")
        }
        guard categories.contains(food.category) else {
            throw refuse(.category, "\"\(food.category)\" is not one of \(categories.joined(separator: ", "))")
        }
        guard TrackingLogInput.foodColours.contains(food.colour) else {
            throw refuse(.colour, "\"\(food.colour)\" is not one of \(TrackingLogInput.foodColours.joined(separator: ", "))")
        }
        guard Set(food.allergens).count == food.allergens.count else { throw refuse(.allergens, "lists an allergen twice") }
        for allergen in food.allergens {
            let parts = allergen.split(separator: "_", omittingEmptySubsequences: false)
            guard !parts.contains(where: \.isEmpty), allergen.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || $0 == "_" })
            else {
                throw refuse(.allergens, "\"\(allergen)\" is not a canonical allergen key (lower-case, e.g. tree_nut)")
            }
        }
        if let vocabulary {
            let canonical = Set(vocabulary.canonicalAllergens.map(\.rawValue))
            for allergen in food.allergens {
                guard canonical.contains(allergen) else {
                    throw refuse(.allergens, "\"\(allergen)\" is not a canonical allergen of \(HearthContent.File.allergenSynonyms.rawValue)")
                }
            }
        }
        guard fromMonthsRange.contains(food.fromMonths) else {
            throw refuse(.fromMonths, "\(food.fromMonths) is outside \(fromMonthsRange.lowerBound)...\(fromMonthsRange.upperBound)")
        }
        guard chokingRisks.contains(food.chokingRisk) else {
            throw refuse(.chokingRisk, "\"\(food.chokingRisk)\" is not one of \(chokingRisks.joined(separator: ", "))")
        }
        guard !food.servingTip.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw refuse(.servingTip, "must not be empty")
        }
    }

    // MARK: - Decoding

    private struct FileShape: Decodable {
        let source: String
        let foods: [Entry]
    }

    /// Decodes one food field by field, so a wrong type or a missing key is reported with the
    /// food's id and the field's name rather than as a bare coding path.
    private struct Entry: Decodable {
        let food: CatalogueFood

        init(from decoder: any Decoder) throws {
            let position = decoder.codingPath.last?.intValue.map { "foods[\($0)]" } ?? "foods[?]"
            let container: KeyedDecodingContainer<AnyKey>
            do {
                container = try decoder.container(keyedBy: AnyKey.self)
            } catch {
                throw FoodCatalogueError.invalidFood(food: position, field: "-", reason: "must be a JSON object")
            }
            func field<Value: Decodable>(_ key: CatalogueFood.CodingKeys, of food: String, as expected: String) throws -> Value {
                do {
                    return try container.decode(Value.self, forKey: AnyKey(key.rawValue))
                } catch DecodingError.keyNotFound {
                    throw FoodCatalogueError.invalidFood(food: food, field: key.rawValue, reason: "is missing")
                } catch DecodingError.valueNotFound {
                    throw FoodCatalogueError.invalidFood(food: food, field: key.rawValue, reason: "must be \(expected), not null")
                } catch {
                    throw FoodCatalogueError.invalidFood(food: food, field: key.rawValue, reason: "must be \(expected)")
                }
            }
            let id: String = try field(.id, of: position, as: "a string")
            let known = Set(CatalogueFood.CodingKeys.allCases.map(\.rawValue))
            // A misspelt key ("alergens") must not pass as an absent optional field.
            if let unknown = container.allKeys.map(\.stringValue).filter({ !known.contains($0) }).sorted().first {
                throw FoodCatalogueError.invalidFood(food: id, field: unknown, reason: "is not a known field")
            }
            food = CatalogueFood(
                id: id,
                name: try field(.name, of: id, as: "a string"),
                category: try field(.category, of: id, as: "a string"),
                colour: try field(.colour, of: id, as: "a string"),
                allergens: try field(.allergens, of: id, as: "a list of strings"),
                fromMonths: try field(.fromMonths, of: id, as: "a whole number"),
                chokingRisk: try field(.chokingRisk, of: id, as: "a string"),
                servingTip: try field(.servingTip, of: id, as: "a string"))
        }
    }

    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context):
            return context.underlyingError.map { "\($0)" } ?? context.debugDescription
        case DecodingError.keyNotFound(let key, _):
            return "missing \"\(key.stringValue)\""
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return "\(path.isEmpty ? "top level" : path): \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }
}
