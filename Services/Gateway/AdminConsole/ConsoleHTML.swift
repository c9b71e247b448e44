import Foundation
import HearthEvents

/// Text made safe for HTML element content and double-quoted attributes.
enum HTML {
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    static func time(_ date: Date?) -> String {
        date.map { #"<time datetime="\#(Timestamp.format($0))">\#(Timestamp.format($0))</time>"# } ?? "—"
    }

    /// The console's one stylesheet, inline: the pages fetch nothing (the gateway's CSP allows
    /// inline styles and no scripts).
    static let style = """
        body { font: 15px/1.4 system-ui, sans-serif; margin: 0; color: #222; background: #fafaf7; }
        main { margin: 1.5rem 2rem 3rem; }
        header.console { display: flex; align-items: center; gap: 1.2rem; background: #2f2a24; color: #f4efe6; padding: .6rem 2rem; }
        header.console a { color: #f4efe6; text-decoration: none; } header.console a.current { font-weight: bold; border-bottom: 2px solid rgb(217,130,43); }
        header.console form { margin-left: auto; } header.console button { background: none; border: 1px solid #8a7f70; color: #f4efe6; border-radius: 4px; padding: .2rem .6rem; cursor: pointer; }
        h1 { font-size: 1.4rem; margin: 0 0 .3rem; } h2 { font-size: 1.1rem; margin-top: 2rem; }
        nav.periods a { margin-right: .8rem; } nav.periods a.current { font-weight: bold; text-decoration: none; color: #222; }
        .cards { display: flex; gap: 1rem; flex-wrap: wrap; margin-top: 1rem; }
        .card { background: #fff; border: 1px solid #e3e1da; border-radius: 8px; padding: .8rem 1.2rem; min-width: 9rem; }
        .card dt { color: #666; font-size: .85rem; } .card dd { margin: 0; font-size: 1.6rem; font-weight: 600; }
        table { border-collapse: collapse; background: #fff; } th, td { border: 1px solid #e3e1da; padding: .35rem .7rem; text-align: left; vertical-align: top; }
        td.n { text-align: right; font-variant-numeric: tabular-nums; } svg { background: #fff; border: 1px solid #e3e1da; border-radius: 8px; }
        .muted { color: #777; font-size: .85rem; } .stuck { color: #b3261e; font-weight: 600; } .ok { color: #2e7d32; }
        .error { font-family: ui-monospace, monospace; font-size: .8rem; max-width: 40rem; overflow-wrap: anywhere; }
        form.inline { display: inline; } button { font: inherit; }
        .notice { background: #fff7e6; border: 1px solid #f0c36d; border-radius: 6px; padding: .5rem 1rem; }
        """

    /// A bar chart: one bar per entry scaled to the largest, a `<title>` tooltip on each, and the
    /// entry's data attributes on its `<rect>` so tools read the figures back.
    struct BarChart {
        struct Bar {
            let label: String
            let value: Double
            let tooltip: String
            let attributes: [(String, String)]
        }

        let id: String
        let label: String
        let bars: [Bar]
        var width = 720.0
        var height = 180.0
        var color = "rgb(217,130,43)"
        /// How the largest value is written in the corner.
        var peakText: (Double) -> String = { String(Int($0)) }

        var svg: String {
            let top = 10.0, bottom = 24.0
            let slot = width / Double(max(bars.count, 1))
            let peak = bars.map(\.value).max() ?? 0
            let scale = peak > 0 ? peak : 1
            var rects: [String] = []
            for (index, bar) in bars.enumerated() {
                let barHeight = (height - top - bottom) * bar.value / scale
                let x = Double(index) * slot + slot * 0.1
                let attributes = bar.attributes.map { #" \#($0.0)="\#(HTML.escape($0.1))""# }.joined()
                rects.append(#"<rect x="\#(Self.format(x))" y="\#(Self.format(height - bottom - barHeight))" width="\#(Self.format(slot * 0.8))" height="\#(Self.format(barHeight))" fill="\#(color)"\#(attributes)><title>\#(HTML.escape(bar.tooltip))</title></rect>"#)
            }
            let first = bars.first?.label ?? "", last = bars.last?.label ?? ""
            return """
            <svg id="\(id)" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" role="img" aria-label="\(HTML.escape(label))">
            <line x1="0" y1="\(Self.format(height - bottom))" x2="\(Int(width))" y2="\(Self.format(height - bottom))" stroke="#999"/>
            \(rects.joined(separator: "\n"))
            <text x="4" y="\(Int(height) - 6)" font-size="11" fill="#666">\(HTML.escape(first))</text>
            <text x="\(Int(width) - 4)" y="\(Int(height) - 6)" font-size="11" fill="#666" text-anchor="end">\(HTML.escape(last))</text>
            <text x="4" y="\(Int(top) + 10)" font-size="11" fill="#666">max \(HTML.escape(peakText(peak)))</text>
            </svg>
            """
        }

        static func format(_ value: Double) -> String { String(format: "%.1f", value) }
    }
}
