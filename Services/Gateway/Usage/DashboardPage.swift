import Foundation
import HearthEvents

/// The admin dashboard: one self-contained HTML page (inline CSS and SVG, no scripts or external
/// assets) with the period's users, runs, tokens and cost, runs per day, top users and models.
/// Every figure carries an `id` or `data-` attribute so tools (and tests) can read it back.
struct DashboardPage {
    let stats: AdminStatsReport
    let generatedAt: Date

    static let periods = [7, 30, 90]

    var html: String {
        let totals = stats.totals
        return """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta http-equiv="refresh" content="60">
        <title>Hearth usage — last \(stats.periodDays) days</title>
        <style>
        body { font: 15px/1.4 system-ui, sans-serif; margin: 2rem; color: #222; background: #fafaf7; }
        h1 { font-size: 1.4rem; margin: 0 0 .3rem; } h2 { font-size: 1.1rem; margin-top: 2rem; }
        nav a { margin-right: .8rem; } nav a.current { font-weight: bold; text-decoration: none; color: #222; }
        .cards { display: flex; gap: 1rem; flex-wrap: wrap; margin-top: 1rem; }
        .card { background: #fff; border: 1px solid #e3e1da; border-radius: 8px; padding: .8rem 1.2rem; min-width: 9rem; }
        .card dt { color: #666; font-size: .85rem; } .card dd { margin: 0; font-size: 1.6rem; font-weight: 600; }
        table { border-collapse: collapse; background: #fff; } th, td { border: 1px solid #e3e1da; padding: .35rem .7rem; text-align: left; }
        td.n { text-align: right; font-variant-numeric: tabular-nums; } svg { background: #fff; border: 1px solid #e3e1da; border-radius: 8px; }
        .muted { color: #777; font-size: .85rem; }
        </style>
        </head>
        <body>
        <h1>Hearth usage</h1>
        <p class="muted">Last \(stats.periodDays) days · generated \(Timestamp.format(generatedAt)) · refreshes every minute</p>
        <nav aria-label="period">\(periodLinks)</nav>
        <dl class="cards">
        <div class="card"><dt>Users</dt><dd id="total-users" data-value="\(stats.totalUsers)">\(stats.totalUsers)</dd></div>
        <div class="card"><dt>Active users</dt><dd id="active-users" data-value="\(stats.activeUsers)">\(stats.activeUsers)</dd></div>
        <div class="card"><dt>Runs</dt><dd id="total-runs" data-value="\(totals.runs)">\(totals.runs)</dd></div>
        <div class="card"><dt>Tokens</dt><dd id="total-tokens" data-value="\(totals.totalTokens)">\(totals.totalTokens)</dd></div>
        <div class="card"><dt>Cost (USD)</dt><dd id="total-cost-usd" data-value="\(Money.dollars(fromCents: totals.costCents))">$\(String(format: "%.4f", Money.dollars(fromCents: totals.costCents)))</dd></div>
        </dl>
        <h2>Runs per day</h2>
        \(chart)
        <h2>Top users</h2>
        \(topUsersTable)
        <h2>Models</h2>
        \(modelsTable)
        </body>
        </html>
        """
    }

    private var periodLinks: String {
        Self.periods.map { days in
            days == stats.periodDays
                ? #"<a class="current" href="?days=\#(days)" aria-current="page">\#(days) days</a>"#
                : #"<a href="?days=\#(days)">\#(days) days</a>"#
        }.joined(separator: " ")
    }

    /// Bars of runs per day, scaled to the busiest day; each bar has a `<title>` tooltip.
    private var chart: String {
        let series = stats.runsPerDay
        let width = 720.0, height = 180.0, top = 10.0, bottom = 24.0
        let slot = width / Double(max(series.count, 1))
        let peak = max(series.map(\.runs).max() ?? 0, 1)
        var bars: [String] = []
        for (index, day) in series.enumerated() {
            let barHeight = (height - top - bottom) * Double(day.runs) / Double(peak)
            let x = Double(index) * slot + slot * 0.1
            let y = height - bottom - barHeight
            bars.append(#"<rect x="\#(format(x))" y="\#(format(y))" width="\#(format(slot * 0.8))" height="\#(format(barHeight))" fill="rgb(217,130,43)" data-date="\#(day.date)" data-runs="\#(day.runs)"><title>\#(day.date): \#(day.runs) runs</title></rect>"#)
        }
        let first = series.first?.date ?? "", last = series.last?.date ?? ""
        return """
        <svg id="runs-per-day" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" role="img" aria-label="Runs per day">
        <line x1="0" y1="\(format(height - bottom))" x2="\(Int(width))" y2="\(format(height - bottom))" stroke="#999"/>
        \(bars.joined(separator: "\n"))
        <text x="4" y="\(Int(height) - 6)" font-size="11" fill="#666">\(first)</text>
        <text x="\(Int(width) - 4)" y="\(Int(height) - 6)" font-size="11" fill="#666" text-anchor="end">\(last)</text>
        <text x="4" y="\(Int(top) + 10)" font-size="11" fill="#666">max \(peak)</text>
        </svg>
        """
    }

    private var topUsersTable: String {
        guard !stats.topUsers.isEmpty else { return #"<p class="muted" id="top-users">No runs in this period.</p>"# }
        let rows = stats.topUsers.map { user in
            let id = user.userId.uuidString.lowercased()
            return #"<tr data-user-id="\#(id)" data-tokens="\#(user.totalTokens)" data-runs="\#(user.runs)"><td>\#(id)</td><td class="n">\#(user.runs)</td><td class="n">\#(user.totalTokens)</td><td class="n">\#(String(format: "%.4f", Money.cents(user.costCents)))</td></tr>"#
        }
        return """
        <table id="top-users"><thead><tr><th>User</th><th>Runs</th><th>Tokens</th><th>Cost (¢)</th></tr></thead>
        <tbody>
        \(rows.joined(separator: "\n"))
        </tbody></table>
        """
    }

    private var modelsTable: String {
        guard !stats.modelsBreakdown.isEmpty else { return #"<p class="muted" id="models">No model calls in this period.</p>"# }
        let rows = stats.modelsBreakdown.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { model, calls in
            #"<tr data-model="\#(escape(model))" data-calls="\#(calls)"><td>\#(escape(model))</td><td class="n">\#(calls)</td></tr>"#
        }
        return """
        <table id="models"><thead><tr><th>Model</th><th>Calls</th></tr></thead>
        <tbody>
        \(rows.joined(separator: "\n"))
        </tbody></table>
        """
    }

    private func format(_ value: Double) -> String { String(format: "%.1f", value) }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
