/// One event of a `text/event-stream` body.
struct ServerSentEvent: Sendable, Equatable {
    var event: String?
    var data: String
}

/// Splits a `text/event-stream` body into events as bytes arrive, whatever the chunking: lines
/// end in LF, CR LF or CR; an empty line ends an event; `data:` lines join with LF; lines
/// starting with `:` are comments (keep-alives). Fields other than `event` and `data` are not
/// used by the model APIs and are ignored.
struct ServerSentEventParser: Sendable {
    private var line: [UInt8] = []
    private var lastWasCR = false
    private var eventName: String?
    private var dataLines: [String] = []

    mutating func feed(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n"), lastWasCR {
                // The LF of a CR LF: the CR already ended the line.
                lastWasCR = false
                continue
            }
            lastWasCR = byte == UInt8(ascii: "\r")
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                if let event = endLine() { events.append(event) }
            } else {
                line.append(byte)
            }
        }
        return events
    }

    /// The body ended: a last event without its closing blank line still counts.
    mutating func finish() -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        if !line.isEmpty, let event = endLine() { events.append(event) }
        if let event = endLine() { events.append(event) }
        return events
    }

    private mutating func endLine() -> ServerSentEvent? {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty {
            guard !dataLines.isEmpty || eventName != nil else { return nil }
            let event = ServerSentEvent(event: eventName, data: dataLines.joined(separator: "\n"))
            eventName = nil
            dataLines = []
            return event
        }
        if line.first == UInt8(ascii: ":") { return nil }
        let text = String(decoding: line, as: UTF8.self)
        let field: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
        } else {
            field = Substring(text)
            value = ""
        }
        switch field {
        case "data": dataLines.append(String(value))
        case "event": eventName = String(value)
        default: break
        }
        return nil
    }
}
