import HearthAssist
import Testing

@Suite struct PIIRedactorTests {
    let redactor = PIIRedactor()

    @Test(arguments: [
        ("call me on +44 20 7946 0958 tonight", "call me on [phone] tonight"),
        ("Handy: +49 (0)30 1234567.", "Handy: [phone]."),
        ("+1-555-123-4567", "[phone]"),
        ("numéro 0033 6 12 34 56 78", "numéro [phone]"),
        ("+33612345678 is mine", "[phone] is mine"),
        ("text (555) 123-4567 after 5", "text [phone] after 5"),
        ("555-123-4567", "[phone]"),
        ("555.123.4567 or 555 123 4567", "[phone] or [phone]"),
        ("my cell is 5551234567", "my cell is [phone]"),
        ("1-800-555-0199 is the clinic", "[phone] is the clinic"),
        ("ring 020 7946 0958", "ring [phone]"),
        ("Festnetz 030 1234567", "Festnetz [phone]"),
        ("portable 06 12 34 56 78", "portable [phone]"),
    ])
    func phones(_ input: String, _ expected: String) {
        #expect(redactor.redact(input) == expected)
    }

    @Test(arguments: [
        ("write to jane.doe@example.com please", "write to [email] please"),
        ("ADA+kids@Mail.Example.co.uk", "[email]"),
        ("a_b-c@sub-domain.example.org, or x@y.io", "[email], or [email]"),
    ])
    func emails(_ input: String, _ expected: String) {
        #expect(redactor.redact(input) == expected)
    }

    @Test(arguments: [
        ("we live at 221B Baker Street with two kids", "we live at [address] with two kids"),
        ("1600 Pennsylvania Avenue NW, Washington", "[address], Washington"),
        ("deliver to 42 W 3rd St., Apt 4B tomorrow", "deliver to [address] tomorrow"),
        ("10 Downing St is the address", "[address] is the address"),
        ("pickup at 7 Maple Grove Lane", "pickup at [address]"),
        ("home is 12 elm street", "home is [address]"),
        ("305 North Oak Ridge Road", "[address]"),
    ])
    func addresses(_ input: String, _ expected: String) {
        #expect(redactor.redact(input) == expected)
    }

    @Test(arguments: [
        "Bake at 350 degrees for 25 minutes",
        "Serves 4; 2 cups flour, 1.5 tsp salt, 500 g chicken",
        "Kids aged 4 and 9, adults 2",
        "Bedtime 19:30, wake at 06:45",
        "School year 2024-2025, starts 2024-09-02",
        "Budget $1,250.00 for 12 weeks",
        "Recipe #12345, page 3 of 10",
        "Fever of 38.5 for 2 days",
        "walk 2 blocks down the road to the park",
        "Read 3 Harry Potter books on the way",
        "Takes 0.5 to 0.75 cups of oats",
        "10 000 steps and 8 hours of sleep",
        "Call mum on Sunday at 5",
    ])
    func nonPersonalNumbersStay(_ input: String) {
        #expect(redactor.redact(input) == input)
    }

    @Test func mixedTextRedactsEachKind() {
        let input = "I'm Sam (sam@example.com, 555-867-5309), 14 Oak Avenue. Kids 3 and 7, dinner at 18:00."
        #expect(redactor.redact(input) == "I'm Sam ([email], [phone]), [address]. Kids 3 and 7, dinner at 18:00.")
    }

    @Test func redactionIsIdempotent() {
        let once = redactor.redact("+44 20 7946 0958, a@b.co, 9 High Street")
        #expect(redactor.redact(once) == once)
    }
}
