import Foundation
import HearthKafka
import HearthRuntime
import HearthStore
import Testing

@testable import GatewayService

/// The admin console's pure parts: form bodies, where a sign-in may send the browser, CSRF
/// comparison, escaping, the feedback filter and the plan outline, redrive headers.
@Suite struct AdminConsoleFormTests {
    @Test func formBodiesDecodeAsBrowsersEncodeThem() throws {
        let form = try AdminConsoleRoutes.parseForm("csrf=a%2Bb&note=two+words%21&reason=spam&reason=pii&empty=")
        #expect(form == ["csrf": "a+b", "note": "two words!", "reason": "spam", "empty": ""], "the first of a repeated name wins")
        #expect(try AdminConsoleRoutes.parseForm("") == [:])
        // What Foundation's URLComponents would stop the process on is decoded or refused.
        #expect(try AdminConsoleRoutes.parseForm("note=raw space é&x=%E2%9C%93&flag") == ["note": "raw space é", "x": "✓", "flag": ""])
        #expect(throws: (any Error).self) { try AdminConsoleRoutes.parseForm("csrf=%zz") }
    }

    @Test func afterSignInOnlyConsolePathsAreFollowed() {
        #expect(AdminConsoleRoutes.consolePath("/admin/pipeline") == "/admin/pipeline")
        #expect(AdminConsoleRoutes.consolePath("/admin/usage?days=7") == "/admin/usage?days=7")
        for hostile in [nil, "https://evil.example/admin/", "//evil.example/admin/x", "/admin//evil.example", "/v1/admin/stats", "/admin", "/admin/\\evil"] {
            #expect(AdminConsoleRoutes.consolePath(hostile) == nil, "\(hostile ?? "nil")")
        }
    }

    @Test func csrfTokensCompareWholeAndExactly() {
        let token = SecretToken.random()
        #expect(AdminConsoleRoutes.constantTimeEqual(token, token))
        #expect(!AdminConsoleRoutes.constantTimeEqual(token, String(token.dropLast())))
        #expect(!AdminConsoleRoutes.constantTimeEqual(token, String(token.dropLast()) + (token.hasSuffix("A") ? "B" : "A")))
        #expect(!AdminConsoleRoutes.constantTimeEqual("", token))
    }

    @Test func secretTokensAre256RandomBitsAndOnlyWellFormedOnesAreLookedUp() {
        let tokens = (0..<50).map { _ in SecretToken.random() }
        #expect(Set(tokens).count == 50)
        #expect(tokens.allSatisfy { $0.utf8.count == 43 && SecretToken.isWellFormed($0) })
        #expect(SecretToken.hash(tokens[0]).count == 32 && SecretToken.hash(tokens[0]) != SecretToken.hash(tokens[1]))
        for bad in ["", "short", String(repeating: "!", count: 43), tokens[0] + "A"] { #expect(!SecretToken.isWellFormed(bad), "\(bad)") }
    }

    @Test func textIsEscapedForContentAndAttributes() {
        #expect(HTML.escape(#"<script>alert("x")</script> & 'y'"#) == "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;")
        #expect(HTML.escape("Crème brûlée 🍮") == "Crème brûlée 🍮")
    }

    @Test func theSignOutFormAndEveryPageCarryTheSessionsCSRFToken() {
        let page = ConsolePages.layout(.pipeline, csrf: "tok\"en", body: "<p>x</p>")
        #expect(page.contains(#"<input type="hidden" name="csrf" value="tok&quot;en">"#))
        #expect(page.contains(#"aria-current="page">Pipeline"#))
        #expect(!page.contains("<script"))
    }

    @Test func theFeedbackFilterNamesTheFieldItRefuses() throws {
        #expect(try FeedbackReview.Filter(mode: "", rating: nil, limit: nil) == FeedbackReview.Filter(mode: nil, rating: nil, limit: "100"))
        let chores = try FeedbackReview.Filter(mode: "chores", rating: "down", limit: "5")
        #expect(chores.mode == "chores" && chores.rating == "down" && chores.limit == 5)
        for (mode, rating, limit, field) in [("games", nil, nil, "mode"), (nil, "meh", nil, "rating"), (nil, nil, "0", "limit"), (nil, nil, "x", "limit")] as [(String?, String?, String?, String)] {
            do {
                _ = try FeedbackReview.Filter(mode: mode, rating: rating, limit: limit)
                Issue.record("accepted \(field)")
            } catch let error as APIError {
                #expect(error.field == field)
            }
        }
    }

    @Test func thePlanOutlineCountsPartsWithoutTheirWords() {
        let outline = FeedbackReview.outline(#"{"days":[{"meals":["Secret soup"]},{}],"grocery_list":{"a":1,"b":2,"c":3},"summary":"Secret words"}"#)
        #expect(outline == "days: 2 · grocery_list: 3 · summary")
        #expect(FeedbackReview.outline("[1,2]") == nil)
        #expect(FeedbackReview.outline("{}") == nil)
        #expect(FeedbackReview.outline("not json") == nil)
    }

    @Test func aRedrivenCopyKeepsTheEventsHeadersAndSaysWhereItCameFrom() {
        let own = [KafkaHeader(key: "ce_id", string: "e1"), KafkaHeader(key: "ce_type", string: "household.upserted")]
        let parked = DeadLetterHeaders(error: "boom", projection: "households", topic: "households", partition: 2, offset: 9).kafkaHeaders
        let stale = [KafkaHeader(key: DeadLetterHeaders.Name.redrivenFrom, string: "earlier")]
        let headers = DeadLetterHeaders.redriveHeaders(eventHeaders: own + parked + stale, from: "households:households/2@9")
        #expect(headers.map(\.key) == ["ce_id", "ce_type", DeadLetterHeaders.Name.redrivenFrom])
        #expect(headers.last.map { String(decoding: $0.value, as: UTF8.self) } == "households:households/2@9")
    }
}
