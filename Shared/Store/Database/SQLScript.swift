import Foundation

/// Splits a migration file into statements. PostgresNIO speaks the extended protocol, which
/// takes one statement at a time; semicolons inside quotes, dollar-quoted bodies and comments
/// do not end a statement.
public enum SQLScript {
    public static func statements(_ script: String) -> [String] {
        var statements: [String] = []
        var current = ""
        var chars = Array(script)
        chars.append("\n")
        var index = 0
        func flush() {
            let trimmed = current.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty, !isOnlyComments(trimmed) { statements.append(trimmed) }
            current = ""
        }
        while index < chars.count {
            let char = chars[index]
            let next: Character? = index + 1 < chars.count ? chars[index + 1] : nil
            switch char {
            case "-" where next == "-":
                while index < chars.count, chars[index] != "\n" { current.append(chars[index]); index += 1 }
                continue
            case "/" where next == "*":
                while index < chars.count, !(chars[index] == "*" && index + 1 < chars.count && chars[index + 1] == "/") {
                    current.append(chars[index]); index += 1
                }
                current.append("*/")
                index += 2
                continue
            case "'", "\"":
                current.append(char)
                index += 1
                while index < chars.count {
                    current.append(chars[index])
                    if chars[index] == char {
                        if index + 1 < chars.count, chars[index + 1] == char { current.append(char); index += 2; continue }
                        break
                    }
                    index += 1
                }
                index += 1
                continue
            case "$":
                // A dollar-quote tag: $$ or $name$.
                var end = index + 1
                while end < chars.count, chars[end] == "_" || chars[end].isLetter || chars[end].isNumber { end += 1 }
                if end < chars.count, chars[end] == "$" {
                    let tag = String(chars[index...end])
                    current += tag
                    index = end + 1
                    let tagChars = Array(tag)
                    while index < chars.count {
                        if chars[index] == "$", index + tagChars.count <= chars.count, Array(chars[index..<index + tagChars.count]) == tagChars {
                            current += tag
                            index += tagChars.count
                            break
                        }
                        current.append(chars[index])
                        index += 1
                    }
                    continue
                }
                current.append(char)
            case ";":
                flush()
            default:
                current.append(char)
            }
            index += 1
        }
        flush()
        return statements
    }

    private static func isOnlyComments(_ text: String) -> Bool {
        text.split(separator: "\n").allSatisfy { $0.trimmingCharacters(in: .whitespaces).hasPrefix("--") || $0.trimmingCharacters(in: .whitespaces).isEmpty }
    }
}
