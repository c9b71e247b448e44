import Foundation
import HearthEvents

/// The usage dashboard: the period's users, runs, tokens and cost, runs and tokens per day, cost
/// per model, top users and models. Self-contained HTML (inline CSS and SVG, no scripts or
/// external assets). Every figure carries an `id` or `data-` attribute so tools (and tests) can
/// read it back. Served whole by `GET /v1/admin/dashboard` (bearer token) and inside the
/// console's *Usage* page (`/admin/usage`).
struct DashboardPage {
    let stats: AdminStatsReport
    let generatedAt: Date

    static let periods = [7, 30, 90]

    /// The standalone page.
    var html: String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta http-equiv="refresh" content="60">
        <title>Hearth usage — last \(stats.periodDays) days</title>
        <style>
        \(HTML.style)
        </style>
        </head>
        <body>
        <main>
        <h1>Hearth usage</h1>
        \(sections)
        </main>
        </body>
        </html>
        """
    }

    /// Everything below the page's heading.
    var sections: String {
        let totals = stats.totals
        return """
        <p class="muted">Last \(stats.periodDays) days · generated \(Timestamp.format(generatedAt)) · refreshes every minute</p>
        <nav class="periods" aria-label="period">\(periodLinks)</nav>
        <dl class="cards">
        <div class="card"><dt>Users</dt><dd id="total-users" data-value="\(stats.totalUsers)">\(stats.totalUsers)</dd></div>
        <div class="card"><dt>Active users</dt><dd id="active-users" data-value="\(stats.activeUsers)">\(stats.activeUsers)</dd></div>
        <div class="card"><dt>Runs</dt><dd id="total-runs" data-value="\(totals.runs)">\(totals.runs)</dd></div>
        <div class="card"><dt>Tokens</dt><dd id="total-tokens" data-value="\(totals.totalTokens)">\(totals.totalTokens)</dd></div>
        <div class="card"><dt>Cost (USD)</dt><dd id="total-cost-usd" data-value="\(Money.dollars(fromCents: totals.costCents))">$\(String(format: "%.4f", Money.dollars(fromCents: totals.costCents)))</dd></div>
        </dl>
        <h2>Runs per day</h2>
        \(runsChart)
        <h2>Tokens per day</h2>
        \(tokensChart)
        <h2>Cost per model</h2>
        \(costChart)
        <h2>Top users</h2>
        \(topUsersTable)
        <h2>Models</h2>
        \(modelsTable)
        """
    }

    private var periodLinks: String {
        Self.periods.map { days in
            days == stats.periodDays
                ? #"<a class="current" href="?days=\#(days)" aria-current="page">\#(days) days</a>"#
                : #"<a href="?days=\#(days)">\#(days) days</a>"#
        }.joined(separator: " ")
    }

    private var runsChart: String {
        HTML.BarChart(
            id: "runs-per-day", label: "Runs per day",
            bars: stats.runsPerDay.map { day in
                .init(label: day.date, value: Double(day.runs), tooltip: "\(day.date): \(day.runs) runs",
                      attributes: [("data-date", day.date), ("data-runs", "\(day.runs)")])
            }
        ).svg
    }

    private var tokensChart: String {
        HTML.BarChart(
            id: "tokens-per-day", label: "Tokens per day",
            bars: stats.runsPerDay.map { day in
                .init(label: day.date, value: Double(day.tokens), tooltip: "\(day.date): \(day.tokens) tokens",
                      attributes: [("data-day", day.date), ("data-tokens", "\(day.tokens)")])
            }, color: "rgb(88,120,160)"
        ).svg
    }

    private var costChart: String {
        let models = stats.costPerModel.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        guard !models.isEmpty else { return #"<p class="muted" id="cost-per-model">No model calls in this period.</p>"# }
        return HTML.BarChart(
            id: "cost-per-model", label: "Cost per model (cents)",
            bars: models.map { model, cents in
                .init(label: model, value: cents, tooltip: "\(model): \(String(format: "%.4f", Money.cents(cents)))¢",
                      attributes: [("data-cost-model", model), ("data-cost-cents", "\(Money.cents(cents))")])
            }, width: Double(max(240, 120 * models.count)), color: "rgb(120,150,90)", peakText: { String(format: "%.4f¢", $0) }
        ).svg
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
            #"<tr data-model="\#(HTML.escape(model))" data-calls="\#(calls)"><td>\#(HTML.escape(model))</td><td class="n">\#(calls)</td></tr>"#
        }
        return """
        <table id="models"><thead><tr><th>Model</th><th>Calls</th></tr></thead>
        <tbody>
        \(rows.joined(separator: "\n"))
        </tbody></table>
        """
    }
}
