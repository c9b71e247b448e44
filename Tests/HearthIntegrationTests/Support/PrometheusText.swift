import Foundation

/// Reading an executable's `/metrics` (Prometheus text exposition) in tests.
enum PrometheusText {
    /// Every family declared by a `# TYPE` line, with its type.
    static func families(_ text: String) -> [String: String] {
        var types: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("# TYPE ") {
            let parts = line.split(separator: " ")
            if parts.count == 4 { types[String(parts[2])] = String(parts[3]) }
        }
        return types
    }

    /// Per family, the label names its series carry (a histogram's `_bucket`, `_sum` and
    /// `_count` series count as its own; their `le` is left out).
    static func labelNames(_ text: String) -> [String: Set<String>] {
        let types = families(text)
        var names: [String: Set<String>] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.isEmpty {
            let series = line.prefix { $0 != "{" && $0 != " " }
            var family = String(series)
            for suffix in ["_bucket", "_sum", "_count"] where family.hasSuffix(suffix) {
                let base = String(family.dropLast(suffix.count))
                if types[base] == "histogram" || types[base] == "summary" { family = base }
            }
            names[family, default: []].formUnion(labels(of: line.dropFirst(series.count)).filter { $0 != "le" })
        }
        return names
    }

    /// The label names of `{a="x",b="y"} 1`, reading quoted values whole (a route's `{id}` is
    /// in a value, not the end of the set).
    private static func labels(of rest: Substring) -> [String] {
        guard rest.first == "{" else { return [] }
        var names: [String] = []
        var name = ""
        var inValue = false
        var escaped = false
        for character in rest.dropFirst() {
            if inValue {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inValue = false }
                continue
            }
            switch character {
            case "}": return names
            case "=": names.append(name.trimmingCharacters(in: .whitespaces)); name = ""
            case "\"": inValue = true
            case ",": name = ""
            default: name.append(character)
            }
        }
        return names
    }

    /// The value of one series, written as `name{labels}` exactly as exposed.
    static func sample(_ text: String, _ series: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
    }
}
