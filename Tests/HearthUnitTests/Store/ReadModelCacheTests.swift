import HearthStore
import Testing

@Suite struct ReadModelCacheTests {
    func listening(_ name: String) -> ReadModelGeneration {
        let generation = ReadModelGeneration(readModel: name)
        generation.startListening()
        return generation
    }

    @Test func aValueIsServedUntilAnyWatchedReadModelChanges() throws {
        let households = listening("households")
        let members = listening("household_members")
        let cache = ReadModelCache<String, Int>(capacity: 8, watching: [households, members])
        var stamp = try #require(cache.readStamp)
        cache.store(1, for: "a", readUnder: stamp)
        #expect(cache.value(for: "a") == 1)
        #expect(cache.value(for: "b") == nil)

        members.advance()
        #expect(cache.value(for: "a") == nil)
        #expect(cache.count == 0)

        stamp = try #require(cache.readStamp)
        cache.store(2, for: "a", readUnder: stamp)
        households.advance()
        #expect(cache.value(for: "a") == nil)
    }

    @Test func aValueReadBeforeAChangeIsNotKept() throws {
        let households = listening("households")
        let cache = ReadModelCache<String, Int>(capacity: 8, watching: [households, listening("users")])
        let stamp = try #require(cache.readStamp)
        households.advance()
        cache.store(1, for: "a", readUnder: stamp)
        #expect(cache.value(for: "a") == nil)
        #expect(cache.count == 0)
    }

    @Test func nothingIsCachedWhileAnyWatchedChangeCouldGoUnheard() throws {
        let households = ReadModelGeneration(readModel: "households")
        let users = listening("users")
        let cache = ReadModelCache<String, Int>(capacity: 8, watching: [households, users])
        #expect(cache.readStamp == nil)

        households.startListening()
        let stamp = try #require(cache.readStamp)
        cache.store(1, for: "a", readUnder: stamp)
        #expect(cache.value(for: "a") == 1)
        users.stopListening()
        #expect(cache.value(for: "a") == nil)
        #expect(cache.readStamp == nil)

        #expect(ReadModelCache<String, Int>(capacity: 8, watching: nil).readStamp == nil)
        #expect(ReadModelCache<String, Int>(capacity: 8, watching: []).capacity == 0)
        #expect(ReadModelCache<String, Int>(capacity: 0, watching: [users]).readStamp == nil)
    }

    @Test func theCacheStaysBounded() throws {
        let cache = ReadModelCache<Int, Int>(capacity: 2, watching: [listening("households")])
        let stamp = try #require(cache.readStamp)
        for i in 0..<10 { cache.store(i, for: i, readUnder: stamp) }
        #expect(cache.count <= 4)
        #expect(cache.value(for: 9) == 9)
        #expect(cache.value(for: 0) == nil)
    }
}
