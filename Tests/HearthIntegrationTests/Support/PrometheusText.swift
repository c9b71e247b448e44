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

    /// The value of one series, written as `name{labels}` exactly as exposed.
    static func sample(_ text: String, _ series: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
    }
}
