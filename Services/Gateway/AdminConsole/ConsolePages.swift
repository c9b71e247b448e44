import Foundation
import HearthAssist
import HearthDomain
import HearthEvents

/// The console's pages: each one the HTML of its JSON twin's answer, inside one layout. Every
/// form carries the session's CSRF token; every figure an `id` or `data-` attribute.
enum ConsolePages {
    enum Section: String, CaseIterable {
        case usage, feedback, pipeline, moderation, users

        var title: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }
    }

    /// A page of the signed-in console: the header with the sections and sign-out, then `body`.
    static func layout(_ section: Section, csrf: String, notice: String? = nil, refreshSeconds: Int? = nil, body: String) -> String {
        let links = Section.allCases.map { item in
            item == section
                ? #"<a class="current" href="/admin/\#(item.rawValue)" aria-current="page">\#(item.title)</a>"#
                : #"<a href="/admin/\#(item.rawValue)">\#(item.title)</a>"#
        }.joined(separator: "\n")
        return """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        \(refreshSeconds.map { #"<meta http-equiv="refresh" content="\#($0)">"# } ?? "")
        <title>Hearth admin — \(section.title)</title>
        <style>
        \(HTML.style)
        </style>
        </head>
        <body data-section="\(section.rawValue)">
        <header class="console">
        <strong>Hearth admin</strong>
        \(links)
        <form method="post" action="/admin/sign-out">\(csrfField(csrf))<button type="submit">Sign out</button></form>
        </header>
        <main>
        \(notice.map { #"<p class="notice" id="notice">\#(HTML.escape($0))</p>"# } ?? "")
        \(body)
        </main>
        </body>
        </html>
        """
    }

    static func csrfField(_ token: String) -> String {
        #"<input type="hidden" name="csrf" value="\#(HTML.escape(token))">"#
    }

    /// A page outside a session: sign-in, refusals. `moveTo`: where the page sends the browser at once.
    static func plain(title: String, status: Int, moveTo: String? = nil, body: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        \(moveTo.map { #"<meta http-equiv="refresh" content="0;url=\#(HTML.escape($0))">"# } ?? "")
        <title>Hearth admin — \(HTML.escape(title))</title>
        <style>
        \(HTML.style)
        </style>
        </head>
        <body data-status="\(status)">
        <main>
        <h1>\(HTML.escape(title))</h1>
        \(body)
        </main>
        </body>
        </html>
        """
    }

    /// Sets nothing itself (the response's cookie does): moves on to the console.
    static func signedIn(next: String) -> String {
        plain(title: "Signed in", status: 200, moveTo: next, body: #"<p>Signed in. <a id="continue" href="\#(HTML.escape(next))">Continue</a></p>"#)
    }

    static func signIn(appleURL: String?, devLinks: Bool, message: String?) -> String {
        var parts: [String] = []
        if let message { parts.append(#"<p class="notice" id="notice">\#(HTML.escape(message))</p>"#) }
        parts.append("<p>The console is for Hearth's administrators.</p>")
        if let appleURL {
            parts.append(#"<p><a id="apple-sign-in" href="\#(HTML.escape(appleURL))">Sign in with Apple</a></p>"#)
        } else {
            parts.append(#"<p class="muted">Sign in with Apple is not configured on this server (HEARTH_APPLE_WEB_CLIENT_ID, HEARTH_PUBLIC_URL).</p>"#)
        }
        if devLinks {
            parts.append(#"<p class="muted" id="dev-links">Development: run <code>hearthctl admin link &lt;user id or dev name&gt;</code> and open the link it prints.</p>"#)
        }
        return plain(title: "Sign in", status: 200, body: parts.joined(separator: "\n"))
    }

    // MARK: Usage

    static func usage(_ stats: AdminStatsReport, generatedAt: Date, csrf: String) -> String {
        let dashboard = DashboardPage(stats: stats, generatedAt: generatedAt)
        return layout(.usage, csrf: csrf, refreshSeconds: 60, body: "<h1>Usage</h1>\n" + dashboard.sections)
    }

    // MARK: Feedback

    static func feedback(_ report: FeedbackReport, csrf: String) -> String {
        func options(_ values: [String], selected: String?, any: String) -> String {
            ([#"<option value="">\#(any)</option>"#] + values.map { value in
                #"<option value="\#(value)"\#(value == selected ? " selected" : "")>\#(value)</option>"#
            }).joined()
        }
        let filter = """
        <form method="get" action="/admin/feedback" id="feedback-filter">
        <label>Mode <select name="mode">\(options(FeedbackReview.modes, selected: report.mode, any: "any mode"))</select></label>
        <label>Rating <select name="rating">\(options(FeedbackReview.ratings, selected: report.rating, any: "any rating"))</select></label>
        <button type="submit">Filter</button>
        </form>
        """
        let chart = HTML.BarChart(
            id: "weekly-up-ratio", label: "Share of thumbs up per week",
            bars: report.weeks.map { week in
                .init(label: week.week, value: week.upRatio ?? 0,
                      tooltip: "week of \(week.week): \(week.up) up, \(week.down) down, \(week.edit) edits",
                      attributes: [("data-week", week.week), ("data-up", "\(week.up)"), ("data-down", "\(week.down)"),
                                   ("data-ratio", week.upRatio.map { String(format: "%.3f", $0) } ?? "")])
            }, height: 140, color: "rgb(46,125,50)", peakText: { String(format: "%.0f%%", $0 * 100) }
        ).svg
        let rows = report.items.map { item in
            """
            <tr data-feedback-id="\(item.feedbackId.uuidString.lowercased())" data-signal="\(HTML.escape(item.signal))" data-mode="\(HTML.escape(item.mode ?? ""))">
            <td>\(HTML.time(item.givenAt))</td><td>\(HTML.escape(signalMark(item.signal)))</td><td>\(HTML.escape(item.mode ?? "—"))</td>
            <td>\(HTML.escape(item.goal ?? "—"))</td><td>\(HTML.escape(item.models.joined(separator: ", ")))</td>
            <td>\(HTML.escape(item.planOutline ?? "—"))</td><td>\(HTML.escape(item.comment ?? ""))</td>
            <td class="muted">\(HTML.escape(item.runId))</td>
            </tr>
            """
        }
        let table = rows.isEmpty
            ? #"<p class="muted" id="feedback-items">No feedback matches.</p>"#
            : """
            <table id="feedback-items"><thead><tr><th>Given</th><th>Rating</th><th>Mode</th><th>Goal (redacted)</th><th>Models</th><th>Plan</th><th>Comment</th><th>Run</th></tr></thead>
            <tbody>
            \(rows.joined(separator: "\n"))
            </tbody></table>
            """
        let ups = report.items.filter { $0.signal == "up" }.count, downs = report.items.filter { $0.signal == "down" }.count
        let edits = report.items.filter { $0.signal == "edit" }.count
        return layout(.feedback, csrf: csrf, body: """
            <h1>Feedback</h1>
            \(filter)
            <dl class="cards">
            <div class="card"><dt>Shown</dt><dd id="feedback-count" data-value="\(report.items.count)">\(report.items.count)</dd></div>
            <div class="card"><dt>Thumbs up</dt><dd id="feedback-up" data-value="\(ups)">\(ups)</dd></div>
            <div class="card"><dt>Thumbs down</dt><dd id="feedback-down" data-value="\(downs)">\(downs)</dd></div>
            <div class="card"><dt>Edits</dt><dd id="feedback-edit" data-value="\(edits)">\(edits)</dd></div>
            </dl>
            <h2>Thumbs up per week (last \(FeedbackReview.weeks))</h2>
            \(chart)
            <h2>Newest first</h2>
            \(table)
            """)
    }

    private static func signalMark(_ signal: String) -> String {
        switch signal {
        case "up": "👍 up"
        case "down": "👎 down"
        default: "✎ edit"
        }
    }

    // MARK: Pipeline

    static func pipeline(_ report: PipelineReport, csrf: String, notice: String?) -> String {
        let rows = report.projections.map { state in
            let partitions = state.partitions.map { "\($0.topic)/\($0.partition): \($0.lag.map(String.init) ?? "?")" }.joined(separator: ", ")
            return """
            <tr data-projection="\(HTML.escape(state.projection))" data-lag="\(state.lag.map(String.init) ?? "")" data-stuck="\(state.stuck)">
            <td>\(HTML.escape(state.projection))</td><td class="n">\(state.lag.map(String.init) ?? "?")</td>
            <td class="n">\(state.eventsPerSecond.map { String(format: "%.1f", $0) } ?? "—")</td><td>\(HTML.time(state.lastProgressAt))</td>
            <td>\(state.stuck ? #"<span class="stuck">stuck</span>"# : #"<span class="ok">moving</span>"#)</td>
            <td class="muted">\(HTML.escape(partitions))</td>
            </tr>
            """
        }
        let parked = report.deadLetters.map { entry in
            let position = "\(entry.topic)/\(entry.partition)@\(entry.offset)"
            let redriven = entry.redrivenAt.map { "redriven \(HTML.time($0))" } ?? ""
            return """
            <tr class="parked" data-projection="\(HTML.escape(entry.projection))" data-position="\(HTML.escape(position))" data-event-id="\(entry.eventId?.uuidString.lowercased() ?? "")" data-redriven="\(entry.redrivenAt != nil)">
            <td>\(HTML.escape(entry.projection))</td><td>\(HTML.escape(position))</td><td>\(HTML.escape(entry.eventType ?? "?"))</td>
            <td class="muted">\(entry.eventId?.uuidString.lowercased() ?? "?")</td><td class="error">\(HTML.escape(entry.error))</td>
            <td>\(HTML.time(entry.parkedAt))</td>
            <td>\(entry.redrivenAt != nil ? #"<span class="muted">\#(redriven)</span>"# : """
            <form method="post" action="/admin/pipeline/redrive" class="inline">\(csrfField(csrf))
            <input type="hidden" name="projection" value="\(HTML.escape(entry.projection))"><input type="hidden" name="topic" value="\(HTML.escape(entry.topic))">
            <input type="hidden" name="partition" value="\(entry.partition)"><input type="hidden" name="offset" value="\(entry.offset)">
            <button type="submit">Redrive</button></form>
            """)</td>
            </tr>
            """
        }
        let stuck = report.projections.filter(\.stuck).count
        let totalLag = report.projections.compactMap(\.lag).reduce(0, +)
        return layout(.pipeline, csrf: csrf, notice: notice ?? report.kafkaError.map { "Kafka did not answer: \($0)" }, refreshSeconds: 15, body: """
            <h1>Pipeline</h1>
            <p class="muted">Generated \(Timestamp.format(report.generatedAt)) · refreshes every 15 s · stuck means behind the log and not moved for \(Int(PipelineHealth.stuckAfter)) s</p>
            <dl class="cards">
            <div class="card"><dt>Projections</dt><dd id="projection-count" data-value="\(report.projections.count)">\(report.projections.count)</dd></div>
            <div class="card"><dt>Total lag</dt><dd id="total-lag" data-value="\(totalLag)">\(totalLag)</dd></div>
            <div class="card"><dt>Stuck</dt><dd id="stuck-count" data-value="\(stuck)">\(stuck)</dd></div>
            <div class="card"><dt>Parked events</dt><dd id="parked-count" data-value="\(report.deadLetters.count)">\(report.deadLetters.count)</dd></div>
            </dl>
            <h2>Projections</h2>
            <table id="projections"><thead><tr><th>Projection</th><th>Lag</th><th>Events/s</th><th>Last progress</th><th>State</th><th>Lag per partition</th></tr></thead>
            <tbody>
            \(rows.joined(separator: "\n"))
            </tbody></table>
            <h2>Parked events</h2>
            \(parked.isEmpty ? #"<p class="muted" id="dead-letters">Nothing is parked.</p>"# : """
            <table id="dead-letters"><thead><tr><th>Projection</th><th>Position</th><th>Type</th><th>Event</th><th>Error</th><th>Parked</th><th></th></tr></thead>
            <tbody>
            \(parked.joined(separator: "\n"))
            </tbody></table>
            """)
            """)
    }

    // MARK: Moderation

    static func moderation(_ queue: ActivityModerationRoutes.Queue, status: String, csrf: String, notice: String?) -> String {
        let tabs = ActivityModerationRoutes.statuses.map { value in
            value == status
                ? #"<a class="current" href="?status=\#(value)" aria-current="page">\#(value)</a>"#
                : #"<a href="?status=\#(value)">\#(value)</a>"#
        }.joined(separator: " ")
        let reasons = ActivityRefusalReason.allCases.map { #"<option value="\#($0.rawValue)">\#($0.rawValue)</option>"# }.joined()
        let rows = queue.submissions.map { item in
            let id = item.submissionId.uuidString.lowercased()
            let decide = item.status == "held" || item.status == "pending"
                ? """
                <form method="post" action="/admin/moderation/\(id)/approve" class="inline">\(csrfField(csrf))<button type="submit">Approve</button></form>
                <form method="post" action="/admin/moderation/\(id)/reject" class="inline">\(csrfField(csrf))<select name="reason">\(reasons)</select><button type="submit">Reject</button></form>
                """
                : ""
            return """
            <tr class="submission" data-submission-id="\(id)" data-status="\(HTML.escape(item.status))">
            <td><strong>\(HTML.escape(item.content?.title ?? "—"))</strong><br><span class="muted">\(HTML.escape(item.content?.description ?? ""))</span></td>
            <td>\(HTML.escape(item.reason ?? "—"))<br><span class="muted">\(HTML.escape(item.note ?? ""))</span></td>
            <td>\(HTML.escape(item.nearestTitle ?? "—"))\(item.similarity.map { " (\(String(format: "%.2f", $0)))" } ?? "")</td>
            <td>\(HTML.time(item.submittedAt))</td><td>\(decide)</td>
            </tr>
            """
        }
        return layout(.moderation, csrf: csrf, notice: notice, body: """
            <h1>Moderation</h1>
            <nav class="periods" aria-label="status">\(tabs)</nav>
            <p class="muted"><span id="submission-count" data-value="\(queue.submissions.count)">\(queue.submissions.count)</span> \(status) submissions, oldest first.</p>
            \(rows.isEmpty ? #"<p class="muted" id="submissions">Nothing waits here.</p>"# : """
            <table id="submissions"><thead><tr><th>Activity</th><th>Why</th><th>Nearest in the feed</th><th>Submitted</th><th></th></tr></thead>
            <tbody>
            \(rows.joined(separator: "\n"))
            </tbody></table>
            """)
            """)
    }

    // MARK: Users

    static func users(query: String?, found: [UserView], detail: AdminUserDetail?, csrf: String, notice: String?) -> String {
        let search = """
        <form method="get" action="/admin/users" id="user-search">
        <label>User id or name <input type="search" name="q" value="\(HTML.escape(query ?? ""))" maxlength="200"></label>
        <button type="submit">Search</button>
        </form>
        <p class="muted">Hearth keeps no e-mail addresses: search by user id, sign-in name or display name.</p>
        """
        let rows = found.map { user in
            let id = user.userId.uuidString.lowercased()
            return """
            <tr data-user-id="\(id)"><td><a href="/admin/users?q=\(id)">\(id)</a></td><td>\(HTML.escape(user.displayName ?? "—"))</td>
            <td>\(HTML.escape(user.provider ?? "—"))</td><td>\(HTML.escape(user.role ?? "—"))</td><td>\(HTML.time(user.registeredAt))</td></tr>
            """
        }
        let list = query == nil ? "" : rows.isEmpty
            ? #"<p class="muted" id="users-found">No user matches.</p>"#
            : """
            <table id="users-found"><thead><tr><th>User</th><th>Name</th><th>Sign-in</th><th>Role</th><th>Registered</th></tr></thead>
            <tbody>
            \(rows.joined(separator: "\n"))
            </tbody></table>
            """
        var card = ""
        if let detail {
            let id = detail.user.userId.uuidString.lowercased()
            card = """
            <h2>\(HTML.escape(detail.user.displayName ?? id))</h2>
            <dl class="cards" id="user-detail" data-user-id="\(id)">
            <div class="card"><dt>Runs (30 days)</dt><dd id="user-runs" data-value="\(detail.runs30Days)">\(detail.runs30Days)</dd></div>
            <div class="card"><dt>Tokens (30 days)</dt><dd id="user-tokens" data-value="\(detail.tokens30Days)">\(detail.tokens30Days)</dd></div>
            <div class="card"><dt>Quota this month</dt><dd id="user-quota-used" data-value="\(detail.quota.used)">\(detail.quota.used) / \(detail.quota.quota)</dd></div>
            <div class="card"><dt>Sign-ins</dt><dd id="user-sign-ins" data-value="\(detail.signIns.total)">\(detail.signIns.total)</dd></div>
            </dl>
            <p class="muted">Last sign-in \(HTML.time(detail.signIns.lastSignedInAt)) · \(detail.signIns.open) open sessions · quota resets \(detail.quota.resetDate)\(detail.isAdmin ? " · administrator" : "") · households: \(detail.user.memberships.count)</p>
            <form method="post" action="/admin/users/\(id)/quota" id="quota-form">\(csrfField(csrf))
            <label>Monthly quota <input type="number" name="monthly_quota" min="\(QuotaRequest.range.lowerBound)" max="\(QuotaRequest.range.upperBound)" value="\(detail.customQuota.map(String.init) ?? "")" placeholder="\(detail.customQuota == nil ? "default \(detail.quota.quota)" : "empty: the default")"></label>
            <button type="submit">Set</button> <span class="muted" id="quota-source" data-value="\(detail.customQuota == nil ? "default" : "custom")">\(detail.customQuota == nil ? "the default applies" : "set by an administrator; empty for the default")</span>
            </form>
            """
        }
        return layout(.users, csrf: csrf, notice: notice, body: "<h1>Users</h1>\n\(search)\n\(list)\n\(card)")
    }
}
