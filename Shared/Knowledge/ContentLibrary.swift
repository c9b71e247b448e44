import Foundation
import HearthContent
import HearthDomain

public struct ContentLibraryError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let reason: String
    public var description: String { "\(path): \(reason)" }
}

/// Reads documents from Hearth's built-in content (knowledge base and recipe catalogue) or from a
/// path given to `hearthctl ingest`: a Markdown file with front matter, a folder of them, or a
/// recipe catalogue in the `recipes.json` format.
public enum ContentLibrary {
    /// The 60 knowledge articles and the recipe catalogue, in a stable order.
    public static func builtIn() throws -> [SourceDocument] {
        try load(HearthContent.knowledgeDirectory) + recipes(from: HearthContent.data(of: .recipes), path: "recipes.json")
    }

    public static func load(_ url: URL) throws -> [SourceDocument] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ContentLibraryError(path: url.path, reason: "no such file or folder")
        }
        if isDirectory.boolValue {
            let names = try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
            return try names.filter { $0.hasSuffix(".md") || $0.hasSuffix(".json") }.flatMap { try load(url.appendingPathComponent($0)) }
        }
        let data = try Data(contentsOf: url)
        if url.pathExtension == "json" { return try recipes(from: data, path: url.path) }
        return [try markdownDocument(String(decoding: data, as: UTF8.self), path: url.path)]
    }

    public static func recipes(from data: Data, path: String) throws -> [SourceDocument] {
        do {
            return try RecipeCatalogue(jsonData: data).recipes.map(recipeDocument)
        } catch {
            throw ContentLibraryError(path: path, reason: "not a recipe catalogue: \(error)")
        }
    }

    /// A recipe as searchable prose: what it is first (so the first chunk says it), then the
    /// ingredients and the method under their own headings.
    public static func recipeDocument(_ recipe: Recipe) -> SourceDocument {
        var lines: [String] = []
        let summary = [
            recipe.description,
            "A \(recipe.cuisine.replacingOccurrences(of: "_", with: " ")) \(recipe.mainIngredient) dish, ready in \(recipe.minutes) minutes, serves \(recipe.servings).",
            recipe.tags.isEmpty ? "" : "Tags: \(recipe.tags.joined(separator: ", ")).",
            recipe.kidFriendly ? "Kid friendly." : "",
        ].filter { !$0.isEmpty }
        lines.append(summary.joined(separator: " "))
        lines.append("")
        lines.append("## Ingredients")
        lines.append("")
        for ingredient in recipe.ingredients { lines.append("- \(ingredient.item)") }
        if !recipe.steps.isEmpty {
            lines.append("")
            lines.append("## Method")
            lines.append("")
            for (index, step) in recipe.steps.enumerated() { lines.append("\(index + 1). \(step)") }
        }
        return SourceDocument(
            id: recipe.id, kind: DocumentKind.recipe, title: recipe.title, ageMin: nil, ageMax: nil,
            allergens: recipe.allergens.sorted(), body: lines.joined(separator: "\n"))
    }

    /// Parses `---`-delimited front matter (`id`, `title`, `kind`, `min_age`, `max_age`,
    /// optionally `allergens: a, b`) followed by the Markdown body.
    public static func markdownDocument(_ text: String, path: String) throws -> SourceDocument {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard lines.first == "---", let end = lines.dropFirst().firstIndex(of: "---") else {
            throw ContentLibraryError(path: path, reason: "no front matter (a block between --- lines)")
        }
        var fields: [String: String] = [:]
        for line in lines[1..<end] where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw ContentLibraryError(path: path, reason: "front matter line without a colon: \(line)") }
            fields[String(line[..<colon]).trimmingCharacters(in: .whitespaces)] =
                String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        }
        let body = text.split(separator: "\n", omittingEmptySubsequences: false)[(end + 1)...].joined(separator: "\n")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard let id = fields["id"], DocumentKind.isValidId(id) else { throw ContentLibraryError(path: path, reason: "id missing or not [a-z0-9-_.:]{1,128}") }
        guard let title = fields["title"], !title.isEmpty else { throw ContentLibraryError(path: path, reason: "title missing") }
        guard let kind = fields["kind"], DocumentKind.all.contains(kind) else {
            throw ContentLibraryError(path: path, reason: "kind must be one of \(DocumentKind.all.joined(separator: ", "))")
        }
        func age(_ key: String) throws -> Int? {
            guard let text = fields[key] else { return nil }
            guard let value = Int(text), (0...25).contains(value) else { throw ContentLibraryError(path: path, reason: "\(key) must be 0...25") }
            return value
        }
        let allergens = (fields["allergens"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !body.isEmpty else { throw ContentLibraryError(path: path, reason: "empty body") }
        return SourceDocument(id: id, kind: kind, title: title, ageMin: try age("min_age"), ageMax: try age("max_age"), allergens: allergens, body: body)
    }
}
