import HearthStore
import Testing

@Suite struct EventPositionTests {
    @Test func roundTripsThroughItsToken() throws {
        let position = EventPosition(topic: "assist.events", partition: 4, offset: 1234)
        #expect(position.description == "assist.events:4:1234")
        #expect(EventPosition(token: position.description) == position)
    }

    @Test(arguments: ["", "households", "households:1", "households:x:1", "households:1:-5", ":1:2", "households:1:2:3"])
    func rejectsMalformedTokens(_ token: String) {
        #expect(EventPosition(token: token) == nil)
    }
}
