/// One piece of a document, small enough for one embedding.
public struct TextChunk: Sendable, Equatable {
    public var index: Int
    /// The heading of the section the chunk starts in, if any.
    public var heading: String?
    public var text: String
    public var wordCount: Int

    public init(index: Int, heading: String?, text: String, wordCount: Int) {
        self.index = index
        self.heading = heading
        self.text = text
        self.wordCount = wordCount
    }
}

/// Splits a Markdown body into chunks of about `targetWords` words. A heading starts a new chunk
/// (unless the chunk so far is shorter than `minimumWords`, so tiny sections merge with the next);
/// paragraphs are kept whole when they fit; a paragraph longer than a chunk is cut into pieces.
/// Consecutive chunks of one section share `overlapWords` words, so a sentence cut at a boundary
/// is still whole in one of them. all-MiniLM-L6-v2 reads 256 tokens, about 190 words of prose,
/// hence the default 180.
public struct DocumentChunker: Sendable {
    public var targetWords: Int
    public var overlapWords: Int
    public var minimumWords: Int

    public init(targetWords: Int = 180, overlapWords: Int = 30, minimumWords: Int = 40) {
        precondition(targetWords > 0 && overlapWords >= 0 && overlapWords < targetWords, "overlap must be smaller than the chunk")
        self.targetWords = targetWords
        self.overlapWords = overlapWords
        self.minimumWords = minimumWords
    }

    enum Block: Equatable {
        case heading(String)
        case paragraph(String)
    }

    /// Headings (`#` lines) and paragraphs (runs of non-blank lines).
    static func blocks(of body: String) -> [Block] {
        var blocks: [Block] = []
        var paragraph: [String] = []
        func endParagraph() {
            if !paragraph.isEmpty { blocks.append(.paragraph(paragraph.joined(separator: "\n"))) }
            paragraph = []
        }
        for rawLine in body.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty {
                endParagraph()
            } else if line.hasPrefix("#") {
                endParagraph()
                let heading = String(line.drop { $0 == "#" }).trimmingCharacters(in: .whitespaces)
                if !heading.isEmpty { blocks.append(.heading(heading)) }
            } else {
                paragraph.append(line)
            }
        }
        endParagraph()
        return blocks
    }

    static func words(_ text: String) -> [Substring] {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
    }

    public func chunks(of body: String) -> [TextChunk] {
        var chunks: [TextChunk] = []
        var parts: [String] = []
        var words = 0
        var freshWords = 0  // words not carried over from the previous chunk
        var sectionHeading: String?
        var chunkHeading: String?

        func flush(carryOverlap: Bool) {
            guard freshWords > 0 else { return }
            let text = parts.joined(separator: "\n\n")
            chunks.append(TextChunk(index: chunks.count, heading: chunkHeading, text: text, wordCount: words))
            chunkHeading = sectionHeading
            if carryOverlap && overlapWords > 0 {
                let tail = Self.words(text).suffix(overlapWords)
                parts = [tail.joined(separator: " ")]
                words = tail.count
            } else {
                parts = []
                words = 0
            }
            freshWords = 0
        }

        func add(_ text: String, count: Int) {
            if freshWords > 0 && words + count > targetWords { flush(carryOverlap: true) }
            parts.append(text)
            words += count
            freshWords += count
        }

        for block in Self.blocks(of: body) {
            switch block {
            case .heading(let heading):
                if freshWords >= minimumWords { flush(carryOverlap: false) }
                if freshWords == 0 {
                    // Nothing new yet: any carried overlap belongs to the previous section.
                    parts = []
                    words = 0
                    chunkHeading = heading
                }
                sectionHeading = heading
                add(heading, count: Self.words(heading).count)
            case .paragraph(let paragraph):
                let paragraphWords = Self.words(paragraph)
                let pieceSize = targetWords - overlapWords
                if paragraphWords.count <= pieceSize {
                    add(paragraph, count: paragraphWords.count)
                } else {
                    var start = 0
                    while start < paragraphWords.count {
                        let piece = paragraphWords[start..<min(start + pieceSize, paragraphWords.count)]
                        add(piece.joined(separator: " "), count: piece.count)
                        start += pieceSize
                    }
                }
            }
        }
        flush(carryOverlap: false)
        return chunks
    }
}
