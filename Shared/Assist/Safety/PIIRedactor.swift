/// Replaces personal details with placeholders before text reaches a model or a log: e-mail
/// addresses → `[email]`, phone numbers (international with `+`/`00`, US and European domestic
/// formats) → `[phone]`, street addresses → `[address]`. Other numbers — quantities, times,
/// dates, temperatures, ages — stay, because plans depend on them.
///
/// Known gaps, on the side of keeping text: 7-digit local numbers without an area code, street
/// names written all in lower case with more than two words, and addresses without a street
/// type word (`Hauptstraße 5`).
public struct PIIRedactor: Sendable {
    public init() {}

    public func redact(_ text: String) -> String {
        var text = text
        text = Self.replace(Self.email, in: text, with: "[email]")
        text = Self.replace(Self.internationalPhone, in: text, with: "[phone]") { Self.digitCount($0) >= 8 && Self.digitCount($0) <= 17 }
        text = Self.replace(Self.northAmericanPhone, in: text, with: "[phone]")
        text = Self.replace(Self.domesticPhone, in: text, with: "[phone]") { (10...11).contains(Self.digitCount($0)) }
        text = Self.replace(Self.streetAddress, in: text, with: "[address]")
        return text
    }

    // swiftlint:disable force_try — literal patterns, compiled once; a typo fails every test.
    static let email = try! TextPattern(#"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}"#)

    /// `+44 20 7946 0958`, `+49 (0)30 1234567`, `+1-555-123-4567`, `0033 6 12 34 56 78`.
    static let internationalPhone = try! TextPattern(
        #"(?<![\w+])(?:\+|00)\d{1,3}(?:[ .\-]?(?:\(\d{1,4}\)|\d{1,5})){1,6}(?!\w)"#)

    /// `(555) 123-4567`, `555-123-4567`, `555.123.4567`, `555 123 4567`, `5551234567`, `1-555-123-4567`.
    static let northAmericanPhone = try! TextPattern(
        #"(?<![\w+])(?:1[ .\-]?)?(?:\(\d{3}\)[ .\-]?|\d{3}[ .\-]?)\d{3}[ .\-]?\d{4}(?!\w)"#)

    /// Domestic numbers with a trunk 0: `020 7946 0958`, `030 1234567`, `06 12 34 56 78`.
    static let domesticPhone = try! TextPattern(#"(?<![\w+.,:/])0\d{1,4}(?:[ .\-]?\d{2,5}){1,4}(?![\w.,:/])"#)

    /// A house number, up to four capitalised (or ordinal) name words and a street type word,
    /// with an optional direction and unit: `221B Baker Street`, `1600 Pennsylvania Avenue NW`,
    /// `42 W 3rd St., Apt 4B`; or a number, one or two lower-case words and an unambiguous type
    /// word: `12 elm street`. Capitals carry the signal: `2 blocks down the road` stays.
    static let streetAddress = try! TextPattern(
        #"(?<![\w.,])\d{1,6}[A-Za-z]?(?:-\d{1,4})?\s+"#
            + #"(?:(?:(?:[NSEW]\.?|North|South|East|West)\s+)?(?:(?:[A-Z][A-Za-z'\-]*|\d{1,3}(?:st|nd|rd|th))\s+){1,4}"#
            + #"(?i:(?:street|road|avenue|boulevard|lane|drive|court|place|way|terrace|close|crescent|parkway|highway|square|circle|trail)\b|(?:st|rd|ave|blvd|ln|dr|ct|pl|pkwy|hwy|sq)\b\.?)"#
            + #"|(?:[a-z]+\s+){1,2}(?:street|avenue|road|boulevard|lane)\b)"#
            + #"(?:\s+(?:NE|NW|SE|SW|N|S|E|W)\b)?"#
            + #"(?:,?\s+(?i:apt|apartment|unit|suite|ste|flat)\.?\s*#?[A-Za-z0-9]{1,6}\b)?"#,
        caseInsensitive: false)
    // swiftlint:enable force_try

    static func digitCount(_ text: Substring) -> Int {
        text.reduce(0) { $1.isASCII && $1.isNumber ? $0 + 1 : $0 }
    }

    private static func replace(
        _ pattern: TextPattern, in text: String, with placeholder: String, where accept: (Substring) -> Bool = { _ in true }
    ) -> String {
        var result = text
        // From the end, so earlier ranges stay valid as later ones are replaced.
        for range in pattern.ranges(in: text).reversed() where accept(text[range]) {
            result.replaceSubrange(range, with: placeholder)
        }
        return result
    }
}
