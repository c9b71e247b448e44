import Foundation

/// Parses an iCalendar document with the PyPI `icalendar` package (installed by
/// deploy/local/setup.sh into `.run/venv`), so the feed is judged by a real parser rather than
/// by Hearth's own idea of RFC 5545. Recurrences are expanded by `dateutil` in the event's zone.
enum ICalendarProbe {
    struct Event: Decodable {
        let uid: String
        let summary: String?
        let location: String?
        /// RFC 3339 UTC for date-times, `YYYY-MM-DD` for dates.
        let start: String
        let end: String?
        let sequence: Int?
        let rrule: String?
        let timeZone: String?
        let occurrences: [String]

        enum CodingKeys: String, CodingKey {
            case uid, summary, location, start, end, sequence, rrule
            case timeZone = "time_zone"
            case occurrences
        }
    }

    struct Calendar: Decodable {
        let version: String
        let productId: String
        let events: [Event]

        enum CodingKeys: String, CodingKey {
            case version
            case productId = "prodid"
            case events
        }
    }

    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    static let script = #"""
import sys, json, datetime
import icalendar
from itertools import islice
from dateutil.rrule import rrulestr

def stamp(value):
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            raise SystemExit("floating time without a zone: %r" % value)
        return value.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return value.isoformat()

cal = icalendar.Calendar.from_ical(sys.stdin.buffer.read())
events = []
for component in cal.walk("VEVENT"):
    start = component.decoded("DTSTART")
    end = component.decoded("DTEND") if "DTEND" in component else None
    rule = component.get("RRULE")
    occurrences = []
    rule_text = None
    if rule is not None:
        rule_text = rule.to_ical().decode()
        # The first 60 occurrences: an open-ended rule (a daily routine) has no end.
        occurrences = [stamp(o) for o in islice(rrulestr(rule_text, dtstart=start), 60)]
    events.append({
        "uid": str(component.get("UID")),
        "summary": str(component.get("SUMMARY")) if "SUMMARY" in component else None,
        "location": str(component.get("LOCATION")) if "LOCATION" in component else None,
        "start": stamp(start), "end": stamp(end) if end is not None else None,
        "sequence": int(component.get("SEQUENCE")) if "SEQUENCE" in component else None,
        "rrule": rule_text,
        "time_zone": component["DTSTART"].params.get("TZID"),
        "occurrences": occurrences,
    })
print(json.dumps({"version": str(cal.get("VERSION")), "prodid": str(cal.get("PRODID")), "events": events}))
"""#

    static var python: URL {
        if let venv = ProcessInfo.processInfo.environment["HEARTH_VENV"], !venv.isEmpty {
            return URL(fileURLWithPath: venv).appendingPathComponent("bin/python")
        }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".run/venv/bin/python")
    }

    static func parse(_ document: Data) throws -> Calendar {
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", script]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(document)
        try input.fileHandleForWriting.close()
        let result = output.fileHandleForReading.readDataToEndOfFile()
        let problems = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failed(description: "icalendar could not parse the feed: \(String(decoding: problems, as: UTF8.self))")
        }
        return try JSONDecoder().decode(Calendar.self, from: result)
    }
}
