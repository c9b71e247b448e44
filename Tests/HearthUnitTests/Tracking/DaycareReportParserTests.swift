import Foundation
import HearthDomain
import Testing

/// The daycare sheet rules: the ten sample sheets give exactly their expected logs, and each rule
/// (time forms, the daycare day, ounces, OCR's misreadings, CSV and JSON shapes) on its own.
@Suite struct DaycareReportParserTests {
    /// The samples sit next to this file: the test target has no resources, and the integration
    /// tests render 08 and 09 from the same files.
    static let sheets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("DaycareSheets")

    static let samples = [
        "01_plain.txt", "02_ampm.txt", "03_ocr_noise.txt", "04_sheet.csv", "05_quoted.csv",
        "06_entries.json", "07_array.json", "08_printed.txt", "09_printed.txt", "10_mixed.txt",
    ]

    /// The lines each sample is meant to report: a CSV row with no time, and "Bottle: refused at 4".
    static let unread: [String: [Int]] = ["05_quoted.csv": [14], "10_mixed.txt": [18]]

    static let parser = DaycareReportParser()

    static func format(of name: String) -> DaycareReportFormat {
        name.hasSuffix(".csv") ? .csv : name.hasSuffix(".json") ? .json : .text
    }

    static func sample(_ name: String) throws -> (parse: DaycareParse, expected: [SuggestedLog]) {
        let content = try String(contentsOf: sheets.appendingPathComponent(name), encoding: .utf8)
        let expectedName = (name as NSString).deletingPathExtension + ".expected.json"
        let expected = try JSONDecoder().decode([SuggestedLog].self, from: Data(contentsOf: sheets.appendingPathComponent(expectedName)))
        return (parser.parse(content, format: format(of: name)), expected)
    }

    /// "14:05" as minutes since midnight.
    static func t(_ clock: String) -> Int {
        let parts = clock.split(separator: ":").map { Int($0)! }
        return parts[0] * 60 + parts[1]
    }

    static func text(_ content: String) -> DaycareParse { parser.parse(content, format: .text) }

    /// The one suggestion a line gives.
    static func one(_ line: String, format: DaycareReportFormat = .text) throws -> SuggestedLog {
        let parse = parser.parse(line, format: format)
        #expect(parse.suggestions.count == 1, "\(line) gave \(parse.suggestions)")
        #expect(parse.unreadLines.isEmpty, "\(line) left \(parse.unreadLines) unread")
        return try #require(parse.suggestions.first)
    }

    // MARK: samples

    @Test(arguments: samples)
    func eachSampleGivesExactlyItsExpectedLogs(name: String) throws {
        let (parse, expected) = try Self.sample(name)
        #expect(expected.count >= 8 && expected.count <= 20)
        #expect(parse.suggestions == expected)
        #expect(parse.unreadLines == Self.unread[name, default: []])
    }

    @Test func theRulesScorePerfectlyOnEverySample() throws {
        for name in Self.samples {
            let (parse, expected) = try Self.sample(name)
            let score = ImportScore.score(expected: expected, actual: parse.suggestions)
            #expect(score == ImportScore(precision: 1, recall: 1, matched: expected.count), "\(name)")
        }
    }

    @Test func everyKindAppearsAcrossTheSamples() throws {
        var kinds = Set<SuggestedLog.Kind>()
        for name in Self.samples { kinds.formUnion(try Self.sample(name).expected.map(\.kind)) }
        #expect(kinds == Set(SuggestedLog.Kind.allCases))
    }

    // MARK: time forms

    @Test(arguments: [
        "Nap 12:30–2:05", "Nap 12:30 - 14:05", "Nap 12:30 — 2:05 pm", "12:30-2:05 nap", "Nap from 12:30 to 2:05", "Nap 12:30, woke 2:05",
        "Nap 12:30pm until 2:05pm", "NAP 12:30 PM - 2:05 PM", "Nap 12.30pm-2.05pm",
    ])
    func aNapRangeInAnyCommonForm(line: String) throws {
        let nap = try Self.one(line)
        #expect(nap.kind == .nap)
        #expect(nap.start == Self.t("12:30"))
        #expect(nap.end == Self.t("14:05"))
    }

    @Test func slept1pmTo2pm() throws {
        let nap = try Self.one("Slept 1:10pm to 2:45pm")
        #expect(nap == SuggestedLog(kind: .nap, start: Self.t("13:10"), end: Self.t("14:45"), details: "Slept", line: 1))
    }

    @Test func twelveHourMarkersInTheirUsualSpellings() throws {
        #expect(try Self.one("Bottle 4 oz 10:15am").start == Self.t("10:15"))
        #expect(try Self.one("Bottle 4 oz 10:15 a.m.").start == Self.t("10:15"))
        #expect(try Self.one("Bottle 4 oz 2:15 PM").start == Self.t("14:15"))
        #expect(try Self.one("Bottle 4 oz 2:15p").start == Self.t("14:15"))
        #expect(try Self.one("Breakfast 9am oatmeal").start == Self.t("09:00"))
        #expect(try Self.one("Snack at noon").start == Self.t("12:00"))
        #expect(try Self.one("Bottle 4 oz 12:10 am").start == Self.t("00:10"))
        #expect(try Self.one("Bottle 4 oz 12:10 pm").start == Self.t("12:10"))
        // "a" needs to be on the time: "10:15 a bottle" is not a morning marker, the daycare day is.
        #expect(try Self.one("2:15 a bottle of 4 oz").start == Self.t("14:15"))
    }

    // MARK: the daycare day

    @Test func anUnmarkedTimeIsReadInsideTheDaycareDay() throws {
        #expect(try Self.one("Diaper wet 2:05").start == Self.t("14:05"))
        #expect(try Self.one("Arrived 7:30").start == Self.t("07:30"))
        #expect(try Self.one("Arrived 6:45").start == Self.t("06:45"))
        #expect(try Self.one("Lunch 12:15").start == Self.t("12:15"))
        #expect(try Self.one("Picked up 5:50").start == Self.t("17:50"))
        #expect(try Self.one("Lunch 11:59").start == Self.t("11:59"))
        #expect(try Self.one("Snack 1:00").start == Self.t("13:00"))
    }

    @Test func aTwentyFourHourOrZeroPaddedTimeIsTakenAsWritten() throws {
        #expect(try Self.one("Diaper wet 14:05").start == Self.t("14:05"))
        #expect(try Self.one("Arrived 05:30 (early shift)").start == Self.t("05:30"))
        #expect(try Self.one("Bottle 4 oz 08:15").start == Self.t("08:15"))
    }

    @Test func aRangeReadsEachEndAgainstTheOther() throws {
        // The end is the first reading after the start.
        let crossingNoon = try Self.one("Nap 11:30-1:15")
        #expect(crossingNoon.start == Self.t("11:30") && crossingNoon.end == Self.t("13:15"))
        let beforeNoon = try Self.one("Nap 11:30-12:15")
        #expect(beforeNoon.start == Self.t("11:30") && beforeNoon.end == Self.t("12:15"))
        // An unmarked start takes the reading just before a marked end.
        let evening = try Self.one("Nap 6:45-7:20pm")
        #expect(evening.start == Self.t("18:45") && evening.end == Self.t("19:20"))
        let marked = try Self.one("Nap 11:50-1:05pm")
        #expect(marked.start == Self.t("11:50") && marked.end == Self.t("13:05"))
        // A marked start carries into an unmarked end.
        let afternoon = try Self.one("Slept 1:10pm to 2:45")
        #expect(afternoon.start == Self.t("13:10") && afternoon.end == Self.t("14:45"))
    }

    @Test func aNonNapRangeKeepsItsEnd() throws {
        let play = try Self.one("Outdoor play 10:00-10:45")
        #expect(play.kind == .note && play.start == Self.t("10:00") && play.end == Self.t("10:45"))
    }

    // MARK: feeds and ounces

    @Test func bottleLayouts() throws {
        let expected = SuggestedLog(kind: .feed, start: Self.t("10:15"), amountMl: 118, details: "Bottle 4 oz", line: 1)
        #expect(try Self.one("Bottle 4 oz 10:15") == expected)
        #expect(try Self.one("Bottle: 4oz @ 10:15am") == SuggestedLog(kind: .feed, start: Self.t("10:15"), amountMl: 118, details: "Bottle: 4oz", line: 1))
        #expect(try Self.one("10:15 bottle 120ml") == SuggestedLog(kind: .feed, start: Self.t("10:15"), amountMl: 120, details: "bottle 120ml", line: 1))
    }

    @Test func ouncesBecomeWholeMillilitres() throws {
        #expect(try Self.one("Bottle 4 oz 10:15").amountMl == 118)  // 118.29
        #expect(try Self.one("Bottle 5oz 10:15").amountMl == 148)  // 147.87
        #expect(try Self.one("Bottle 6 ounces 10:15").amountMl == 177)  // 177.44
        #expect(try Self.one("Bottle 4.5 oz 10:15").amountMl == 133)  // 133.08
        #expect(try Self.one("Bottle 4½ oz 10:15").amountMl == 133)
        #expect(try Self.one("Bottle 4 1/2 oz 10:15").amountMl == 133)
        #expect(try Self.one("Bottle 8 fl oz 10:15").amountMl == 237)  // 236.59
        #expect(try Self.one("Bottle 150 mL 10:15").amountMl == 150)
        #expect(try Self.one("Bottle 10:15").amountMl == nil)
    }

    // MARK: diapers, solids, medication, notes

    @Test(arguments: [
        ("Diaper wet 11:00", "wet"), ("11:00 - wet diaper", "wet"), ("Diaper 11:00 pee", "wet"), ("Diaper W 11:00", "wet"),
        ("Nappy: BM 1:30", "dirty"), ("Diaper 11:00 poo", "dirty"), ("Diaper dirty 11:00", "dirty"), ("Diaper B.M. 11:00", "dirty"),
        ("Diaper wet & BM 11:00", "both"), ("Diaper: both 11:00", "both"), ("Diaper wet and dirty 11:00", "both"),
        ("Diaper dry 11:00", "Diaper dry"),
    ])
    func diaperContents(line: String, contents: String) throws {
        let diaper = try Self.one(line)
        #expect(diaper.kind == .diaper)
        #expect(diaper.details == contents)
    }

    @Test func aMealIsSolidsWithItsWords() throws {
        let lunch = try Self.one("Lunch 11:45 ate most of pasta and peas")
        #expect(lunch == SuggestedLog(kind: .solids, start: Self.t("11:45"), details: "Lunch: ate most of pasta and peas", line: 1))
        // The first kind word decides: milk with lunch is still lunch.
        #expect(try Self.one("Lunch 11:45 pasta and 2 oz milk").kind == .solids)
    }

    @Test func medicationKeepsItsDoseInMillilitresOnly() throws {
        let dose = try Self.one("Medication: Tylenol 2.5ml at 1:00")
        #expect(dose == SuggestedLog(kind: .medication, start: Self.t("13:00"), amountMl: 2.5, details: "Medication: Tylenol 2.5ml", line: 1))
        let tablet = try Self.one("Motrin 50 mg at 2:30")
        #expect(tablet.kind == .medication && tablet.amountMl == nil && tablet.details == "Motrin 50 mg")
    }

    @Test func anythingElseWithATimeIsANote() throws {
        #expect(try Self.one("Arrived 7:40 with Dad") == SuggestedLog(kind: .note, start: Self.t("07:40"), details: "Arrived with Dad", line: 1))
        #expect(try Self.one("Arrival: 7:45 am - dropped off by Mom").details == "Arrival: dropped off by Mom")
        #expect(try Self.one("15:40 - sensory play").details == "sensory play")
    }

    @Test func linesWithoutATimeAreNotEntries() {
        let parse = Self.text("Sunny Days Childcare\nChild: Leo\nDate: 14.03.2026\nPlease send more diapers and wipes!\nLeo had a great day")
        #expect(parse == DaycareParse())
    }

    // MARK: layouts

    @Test func severalEntriesOnOneLine() {
        let parse = Self.text("Diapers: 9:15 wet, 11:00 BM, 2:30 W\nLunch 11:45 pasta, peas, banana; snack 3:00 crackers")
        #expect(parse.suggestions == [
            SuggestedLog(kind: .diaper, start: Self.t("09:15"), details: "wet", line: 1),
            SuggestedLog(kind: .diaper, start: Self.t("11:00"), details: "dirty", line: 1),
            SuggestedLog(kind: .diaper, start: Self.t("14:30"), details: "wet", line: 1),
            SuggestedLog(kind: .solids, start: Self.t("11:45"), details: "Lunch: pasta, peas, banana", line: 2),
            SuggestedLog(kind: .solids, start: Self.t("15:00"), details: "snack: crackers", line: 2),
        ])
        // A bare comma between a nap's times makes two naps; a wake word makes one.
        #expect(Self.text("Naps: 9:30, 12:45").suggestions.map(\.start) == [Self.t("09:30"), Self.t("12:45")])
    }

    @Test func aHeadingGivesItsKindToTheLinesUnderIt() {
        let parse = Self.text("NAPS\n9:40 - 10:25\n\n10:50 outside\nBottles & feeds\n9:00 5 oz formula\nNOTES\n3:00 music")
        #expect(parse.suggestions == [
            SuggestedLog(kind: .nap, start: Self.t("09:40"), end: Self.t("10:25"), details: "", line: 2),
            // A blank line ends the section.
            SuggestedLog(kind: .note, start: Self.t("10:50"), details: "outside", line: 4),
            SuggestedLog(kind: .feed, start: Self.t("09:00"), amountMl: 148, details: "5 oz formula", line: 6),
            SuggestedLog(kind: .note, start: Self.t("15:00"), details: "music", line: 8),
        ])
        #expect(parse.unreadLines.isEmpty)
    }

    @Test func aTimeInBracketsIsPartOfTheRemark() throws {
        let dose = try Self.one("Medication: Calpol 5ml at 13:00 (temp 38.1 at 12:55)")
        #expect(dose.start == Self.t("13:00") && dose.amountMl == 5)
        #expect(dose.details == "Medication: Calpol 5ml (temp 38.1 at 12:55)")
        #expect(try Self.one("Nap (12:30-2:05)").end == Self.t("14:05"))
    }

    // MARK: OCR

    @Test func ocrLettersInsideATimeAreReadAsDigits() throws {
        #expect(try Self.one("Bottle 4 oz 1O:15").start == Self.t("10:15"))
        #expect(try Self.one("Bottle 4 oz 10:l5").start == Self.t("10:15"))
        #expect(try Self.one("Bottle 4 oz I0:15").start == Self.t("10:15"))
        #expect(try Self.one("Bottle 4 oz |0:15").start == Self.t("10:15"))
        let nap = try Self.one("Nap  l2:4O  -  2:l5")
        #expect(nap.start == Self.t("12:40") && nap.end == Self.t("14:15"))
        // Extra spaces, and the space OCR puts around a colon.
        #expect(try Self.one("Pick  up   5: 15  Dad").start == Self.t("17:15"))
        #expect(try Self.one("Diaper   wet   11 :00").start == Self.t("11:00"))
        // Letters alone are never a time.
        #expect(Self.text("lO:Ol").suggestions.isEmpty)
    }

    @Test func tesseractsMisreadingsOfBlurredSheets() throws {
        // Seen from tesseract on low-resolution renders of 09_printed.txt.
        #expect(try Self.one("Diaper BM 12:65 pm").start == Self.t("12:05"))
        #expect(try Self.one("Diaper 8M 12:05 pm").details == "dirty")
        let nap = try Self.one("Nap 9:15 am to 16:20 am")
        #expect(nap.start == Self.t("09:15") && nap.end == Self.t("10:20"))
        #expect(try Self.one("Bottle 4 02 at 2:50 pm").amountMl == 118)
        #expect(try Self.one("Bottle 4 07 at 2:50 pm").amountMl == 118)
        #expect(try Self.one("Bottle 5 0z 2:45").amountMl == 148)
        #expect(try Self.one("Bottle l20ml 11:00").amountMl == 120)
        #expect(try Self.one("Medication: Tylenol 2.5 mi at 4:00 pm").amountMl == 2.5)
        #expect(try Self.one("‘Snack 3:40 pm half a banana").details == "Snack: half a banana")
        // A digit form of "oz" counts only after a space: room 402 is not four ounces.
        #expect(try Self.one("Bottle in room 402 at 2:50").amountMl == nil)
    }

    // MARK: unread lines

    @Test func linesThatLookLikeEntriesButCannotBeReadAreReported() {
        let parse = Self.text(
            """
            Nap 12:75
            Bottle refused
            Nap 1:3
            Nap 2:05-12:30
            Bottle 4 oz 10:15
            Lunch 11:30 then 12:10 snack 1:40
            20 am
            """)
        #expect(parse.suggestions.map(\.line) == [5])
        #expect(parse.unreadLines == [1, 2, 3, 4, 6, 7])
    }

    @Test func emptyInputGivesNothing() {
        for format in DaycareReportFormat.allCases {
            for content in ["", "  \n\n \t", "\u{FEFF}"] {
                #expect(Self.parser.parse(content, format: format) == DaycareParse(), "\(format) \(content.debugDescription)")
            }
        }
        #expect(Self.parser.parse("time,type,notes\n", format: .csv) == DaycareParse())
        #expect(Self.parser.parse("[]", format: .json) == DaycareParse())
        #expect(Self.parser.parse("{\"entries\": []}", format: .json) == DaycareParse())
    }

    // MARK: CSV

    @Test func csvQuotedFieldsHoldCommasQuotesAndLineBreaks() {
        let csv = """
            Time,Type,Notes
            11:40,Lunch,"Mashed carrots, lentils"
            12:30,Nap,"Took a while to settle,
            then ""slept"" soundly"
            2:15,Diaper,Wet
            """
        let parse = Self.parser.parse(csv, format: .csv)
        #expect(parse.suggestions == [
            SuggestedLog(kind: .solids, start: Self.t("11:40"), details: "Mashed carrots, lentils", line: 2),
            SuggestedLog(kind: .nap, start: Self.t("12:30"), details: "Took a while to settle, then \"slept\" soundly", line: 3),
            SuggestedLog(kind: .diaper, start: Self.t("14:15"), details: "wet", line: 5),
        ])
    }

    @Test func csvHeaderSynonymsInAnyCaseAndATitleRowAbove() {
        let csv = """
            Rainbow Room export,,,,
            "START TIME","Woke","Activity","Amount (oz)","Comments"
            9:40 AM,10:50 AM,Nap,,
            10:15 AM,,Bottle,4.5,Formula
            """
        #expect(Self.parser.parse(csv, format: .csv).suggestions == [
            SuggestedLog(kind: .nap, start: Self.t("09:40"), end: Self.t("10:50"), details: "Nap", line: 3),
            SuggestedLog(kind: .feed, start: Self.t("10:15"), amountMl: 133, details: "Formula", line: 4),
        ])
    }

    @Test func csvAmountsWithAndWithoutUnits() {
        let csv = "time,type,amount,unit,notes\n8:00,Bottle,4,,\n9:00,Bottle,150,,\n10:00,Bottle,5,oz,\n11:00,Bottle,120 ml,,\n"
            + "1:00,Medication,2.5,,Tylenol\n2:00,Medication,,,Tylenol 2.5 ml\n3:00,Snack,2 oz,,yogurt\n"
        let parse = Self.parser.parse(csv, format: .csv)
        // A bare bottle volume up to 12 is ounces; a bare dose is not guessed at.
        #expect(parse.suggestions.map(\.amountMl) == [118, 150, 148, 120, nil, 2.5, nil])
    }

    @Test func csvWithSemicolonsOrTabs() {
        let semicolons = "Time;Type;Amount;Notes\n10:15;Bottle;4,5 oz;formula\n"
        #expect(Self.parser.parse(semicolons, format: .csv).suggestions == [
            SuggestedLog(kind: .feed, start: Self.t("10:15"), amountMl: 133, details: "formula", line: 2)
        ])
        let tabs = "time\tend\ttype\n12:30\t2:05\tnap\n"
        #expect(Self.parser.parse(tabs, format: .csv).suggestions == [
            SuggestedLog(kind: .nap, start: Self.t("12:30"), end: Self.t("14:05"), details: "nap", line: 2)
        ])
    }

    @Test func csvRowsWithoutATimeAreReportedAndRangesMayShareACell() {
        let csv = "time,type,notes\n,Diaper,wet\n12:30-2:05,Nap,\nsoon,Bottle,\n,,\n"
        let parse = Self.parser.parse(csv, format: .csv)
        #expect(parse.suggestions == [SuggestedLog(kind: .nap, start: Self.t("12:30"), end: Self.t("14:05"), details: "Nap", line: 3)])
        #expect(parse.unreadLines == [2, 4])
    }

    @Test func aTypeTheRulesDoNotKnowIsANoteAndAnEmptyTypeLetsTheNotesDecide() {
        let csv = "time,type,notes\n4:30,Outdoor play,ate a snack outside\n4:45,,wet diaper\n"
        #expect(Self.parser.parse(csv, format: .csv).suggestions.map(\.kind) == [.note, .diaper])
    }

    @Test func csvWithoutAHeaderIsReadAsLines() {
        let csv = "10:15,Bottle,4 oz\n12:30-2:05,Nap\n"
        #expect(Self.parser.parse(csv, format: .csv).suggestions.map(\.kind) == [.feed, .nap])
    }

    // MARK: JSON

    @Test func jsonShapes() throws {
        let entry = #"{"time": "10:15", "type": "bottle", "amount": 4}"#
        let expected = [SuggestedLog(kind: .feed, start: Self.t("10:15"), amountMl: 118, details: "bottle", line: 1)]
        for document in ["[\(entry)]", #"{"entries": [\#(entry)]}"#, #"{"child": "Noah", "logs": [\#(entry)]}"#, entry] {
            #expect(Self.parser.parse(document, format: .json).suggestions == expected, "\(document)")
        }
        // Any array of objects under an unfamiliar name.
        #expect(Self.parser.parse(#"{"day": [\#(entry)]}"#, format: .json).suggestions == expected)
    }

    @Test func jsonKeysInAnyCaseWithIsoTimesDurationsAndUnits() throws {
        let document = """
            [
              {"StartTime": "2026-03-09T09:15:00", "durationMinutes": 70, "Activity": "Nap"},
              {"start_time": "2026-03-09T10:35:00-05:00", "activity": "Bottle", "amount": "120 ml", "details": "breast milk"},
              {"when": "2:40 PM", "what": "Bottle", "amount_oz": 5},
              {"start": "12:30", "end": "14:15", "type": "nap", "notes": "cot"},
              {"time": "16:20", "type": "diaper", "contents": "wet and dirty"}
            ]
            """
        #expect(Self.parser.parse(document, format: .json).suggestions == [
            SuggestedLog(kind: .nap, start: Self.t("09:15"), end: Self.t("10:25"), details: "Nap", line: 2),
            SuggestedLog(kind: .feed, start: Self.t("10:35"), amountMl: 120, details: "breast milk", line: 3),
            SuggestedLog(kind: .feed, start: Self.t("14:40"), amountMl: 148, details: "Bottle", line: 4),
            SuggestedLog(kind: .nap, start: Self.t("12:30"), end: Self.t("14:15"), details: "cot", line: 5),
            SuggestedLog(kind: .diaper, start: Self.t("16:20"), details: "both", line: 6),
        ])
    }

    @Test func jsonEntriesThatCannotBeReadAreReportedByLine() {
        let document = "{\n  \"entries\": [\n    {\"type\": \"nap\"},\n    \"Nap 12:30\",\n    {\"time\": 1015, \"type\": \"bottle\"},\n    {\"time\": \"9:00\", \"type\": \"snack\"}\n  ]\n}"
        let parse = Self.parser.parse(document, format: .json)
        #expect(parse.suggestions == [SuggestedLog(kind: .solids, start: Self.t("09:00"), details: "snack", line: 6)])
        #expect(parse.unreadLines == [3, 4, 5])
    }

    @Test func brokenJsonReportsWhereReadingStopped() {
        #expect(Self.parser.parse("[\n  {\"time\": \"9:00\",\n  \"type\": }\n]", format: .json) == DaycareParse(unreadLines: [3]))
        #expect(Self.parser.parse("Nap 12:30-2:05", format: .json) == DaycareParse(unreadLines: [1]))
    }

    @Test func jsonStringEscapes() {
        let document = #"[{"time": "9:00", "type": "note", "notes": "Caf\u00e9 trip \ud83d\ude00 \"fun\"\nback"}]"#
        #expect(Self.parser.parse(document, format: .json).suggestions.first?.details == "Café trip 😀 \"fun\" back")
    }

    // MARK: Codable

    @Test func suggestionsUseSnakeCaseKeysAndLeaveOutWhatIsAbsent() throws {
        let log = SuggestedLog(kind: .feed, start: 615, amountMl: 118, details: "Bottle 4 oz", line: 6)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(log), as: UTF8.self)
        #expect(json == #"{"amount_ml":118,"details":"Bottle 4 oz","kind":"feed","line":6,"start":615}"#)
        let nap = SuggestedLog(kind: .nap, start: 750, end: 845, details: "Nap", line: 1)
        #expect(try JSONDecoder().decode(SuggestedLog.self, from: encoder.encode(nap)) == nap)
        #expect(SuggestedLog.clock(845) == "14:05" && SuggestedLog.clock(5) == "00:05")
    }

    // MARK: score

    @Test func theScoreMatchesSameKindWithinFiveMinutesOnce() {
        func log(_ kind: SuggestedLog.Kind, _ clock: String) -> SuggestedLog { SuggestedLog(kind: kind, start: Self.t(clock), details: "", line: 1) }
        let expected = [log(.feed, "10:15"), log(.nap, "12:30"), log(.diaper, "14:00"), log(.diaper, "14:04")]
        let actual = [log(.feed, "10:20"), log(.note, "12:30"), log(.diaper, "14:02"), log(.diaper, "14:03"), log(.diaper, "14:30")]
        let score = ImportScore.score(expected: expected, actual: actual)
        // feed within 5 min; the nap read as a note does not count; two diapers pair one to one.
        #expect(score.matched == 3)
        #expect(score.precision == 3.0 / 5.0)
        #expect(score.recall == 3.0 / 4.0)
        #expect(ImportScore.score(expected: [log(.feed, "10:15")], actual: [log(.feed, "10:21")]).matched == 0)
        #expect(ImportScore.score(expected: [], actual: []) == ImportScore(precision: 1, recall: 1, matched: 0))
        #expect(ImportScore.score(expected: [log(.feed, "10:15")], actual: []) == ImportScore(precision: 1, recall: 0, matched: 0))
    }
}
