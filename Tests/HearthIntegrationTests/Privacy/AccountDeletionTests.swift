import Foundation
import GatewayService
import HearthCtlCommands
import HearthStore
import PostgresNIO
import Testing

extension BackboneSuite {
    /// `DELETE /v1/me` end to end: sessions end at once, the data keys are destroyed when the
    /// grace period is over, every read model forgets the user, and so does a replay of every
    /// projection from the archive and Kafka, which still hold the (sealed) events.
    @Suite struct AccountDeletion {
        static let erasingAtOnce = ["HEARTH_ACCOUNT_DELETION_GRACE_DAYS": "0", "HEARTH_ERASURE_CHECK_SECONDS": "1"]
        /// The projections of the services the test runs.
        static var running: [any Projection] { ReadModelCatalogue.projections(of: .gateway) + ReadModelCatalogue.projections(of: .notifier) }

        @Test func aDeletedUserLeavesNoTraceInTheReadModelsNorInAReplayAndTheOthersKeepTheirs() async throws {
            let tag = UUID().uuidString.prefix(8).lowercased()
            let adaStrings = ["Ada Lovelace \(tag)", "Ada's secret plan \(tag)", "Ada reminder \(tag)", "Ada's urge note \(tag)"]
            let benStrings = ["Ben's reply \(tag)", "The Sharers \(tag)"]
            let cleoStrings = ["Solo \(tag)", "Solo kid \(tag)", "Solo feed \(tag)"]
            try await ServiceProcess.with("gateway", environment: Self.erasingAtOnce) { gateway in
                try await ServiceProcess.with(["notifier"]) {
                    let base = gateway.baseURL
                    @Sendable func url(_ path: String) -> URL { base.appendingPathComponent(path) }
                    // Ada and Ben share a household and a chat; Cleo has one of her own.
                    let (ada, household) = try await GatewayUser.withHousehold(gateway, name: "The Sharers \(tag)")
                    let named = try await HTTPTestClient.postJSON(url("v1/users/upsert"), ["display_name": "Ada Lovelace \(tag)"], headers: ada.headers)
                    #expect(named.status == 200, "\(String(decoding: named.body, as: UTF8.self))")
                    let invite = try await HTTPTestClient.send("POST", url("v1/households/\(household)/invites"), headers: ada.headers)
                    let ben = try await GatewayUser.signIn(gateway)
                    let code = try #require(invite.json["code"] as? String)
                    #expect(try await HTTPTestClient.send("POST", url("v1/invites/\(code)/accept"), headers: ben.headers).status == 200)
                    let chat = try await HTTPTestClient.postJSON(url("v1/chats"), ["title": "Us", "member_ids": [ben.userId]], headers: ada.headers)
                    let chatId = try #require(chat.json["chat_id"] as? String)
                    #expect(try await HTTPTestClient.postJSON(
                        url("v1/chats/\(chatId)/messages"), ["text": "Ada's secret plan \(tag)", "client_id": "a-1"], headers: ada.headers).status == 201)
                    #expect(try await HTTPTestClient.postJSON(
                        url("v1/chats/\(chatId)/messages"), ["text": "Ben's reply \(tag)", "client_id": "b-1"], headers: ben.headers).status == 201)
                    let due = ISO8601DateFormatter().string(from: Date().addingTimeInterval(86_400))
                    let reminder = try await HTTPTestClient.postJSON(url("v1/reminders"), ["title": "Ada reminder \(tag)", "at": due], headers: ada.headers)
                    #expect(reminder.status == 202, "\(String(decoding: reminder.body, as: UTF8.self))")
                    // Ada's own wellbeing space: a check-in, its tips and a quiz go with her.
                    let checkIn = try await HTTPTestClient.postJSON(
                        url("v1/wellbeing/checkins"), ["mood": 4, "urge_level": 8, "note": "Ada's urge note \(tag)"], headers: ada.headers)
                    #expect(checkIn.status == 201, "\(String(decoding: checkIn.body, as: UTF8.self))")
                    #expect(try await HTTPTestClient.postJSON(url("v1/wellbeing/quizzes"), [:], headers: ada.headers).status == 201)
                    let (cleo, cleoHousehold) = try await GatewayUser.withHousehold(gateway, name: "Solo \(tag)")
                    // Cleo tracks her child: the logs (and the notifier's copy of the child's name) go with her household.
                    let kid = try await HTTPTestClient.postJSON(
                        url("v1/households/\(cleoHousehold)/members"), ["name": "Solo kid \(tag)", "role": "child"], headers: cleo.headers)
                    let kidId = try #require(kid.json["member_id"] as? String)
                    let kidPosition = try #require(kid.json["position"] as? String)
                    _ = try await HTTPTestClient.send("GET", url("v1/households/\(cleoHousehold)"), headers: cleo.headers(["X-Consistency-Token": kidPosition]))
                    let feed = try await HTTPTestClient.postJSON(
                        url("v1/children/\(kidId)/feeds"), ["method": "solids", "foods": ["pear"], "notes": "Solo feed \(tag)"], headers: cleo.headers)
                    #expect(feed.status == 201, "\(String(decoding: feed.body, as: UTF8.self))")
                    try await ProjectionCatchUp.require(Self.running, timeout: .seconds(60))
                    #expect(try await Self.tablesHolding(adaStrings + benStrings + cleoStrings).count >= 4, "the data is there before the deletion")
                    #expect(try await Self.wellbeingRows(of: ada.userId) >= 4, "a check-in, tips, a quiz and its questions")
                    #expect(try await Self.archiveHolds(adaStrings + benStrings + cleoStrings).isEmpty, "the archive holds personal fields sealed only")

                    // Deleting: the token that asked stops working at once (the deletion is pending
                    // until the eraser runs, then the account is gone).
                    let deleted = try await HTTPTestClient.send("DELETE", url("v1/me"), headers: ada.headers)
                    #expect(deleted.status == 202, "\(String(decoding: deleted.body, as: UTF8.self))")
                    #expect(deleted.json["status"] as? String == "deletion_scheduled")
                    #expect(try await KafkaTestEnvironment.eventually {
                        try await HTTPTestClient.send("GET", url("v1/households/\(household)"), headers: ada.headers).status == 401
                    }, "Ada's session ends")
                    #expect(try await HTTPTestClient.send("DELETE", url("v1/me"), headers: cleo.headers).status == 202)
                    #expect(try await KafkaTestEnvironment.eventually(timeout: .seconds(30)) { try await Self.erased([ada.userId, cleo.userId]) }, "both erased")
                    try await ProjectionCatchUp.require(Self.running, timeout: .seconds(60))

                    let leftLive = try await Self.tablesHolding(adaStrings + cleoStrings)
                    #expect(leftLive.isEmpty, "read models still holding the erased users' data: \(leftLive)")
                    #expect(try await Self.wellbeingRows(of: ada.userId) == 0, "nothing of Ada's wellbeing space is left")
                    #expect(try await Self.sessionRows(of: [ada.userId, cleo.userId]) == 0, "their sign-in sessions and refresh tokens are gone")
                    #expect(try await Self.sessionRows(of: [ben.userId]) > 0, "Ben's session stays")
                    let kept = try await Self.tablesHolding(benStrings)
                    #expect(Set(kept.map(\.string)) == Set(benStrings), "Ben keeps his message and the household: \(kept)")
                    // Ben still reads the chat: his own message, and Ada's as a deleted user's.
                    let messages = try await HTTPTestClient.send("GET", url("v1/chats/\(chatId)/messages"), headers: ben.headers)
                    #expect(messages.status == 200)
                    let text = String(decoding: messages.body, as: UTF8.self)
                    #expect(text.contains("Ben's reply \(tag)") && !text.contains("Ada's secret plan"), "\(text)")
                    // Ada owned the household alone: it passes to Ben, who can now invite and choose coaches.
                    #expect(try await Self.role(of: ben.userId, in: household) == "owner")
                    #expect(try await HTTPTestClient.send("POST", url("v1/households/\(household)/invites"), headers: ben.headers).status == 201)
                }
            }
            // Every projection rebuilt from the archive and Kafka, with the keys gone: still nothing.
            let replay = try await CommandLineTool.run(["replay", "--all"])
            #expect([0, 3].contains(replay.status), "\(replay.output)\n\(replay.errors.suffix(2000))")
            let leftReplayed = try await Self.tablesHolding(adaStrings + cleoStrings)
            #expect(leftReplayed.isEmpty, "a replay brought back: \(leftReplayed)")
            #expect(Set(try await Self.tablesHolding(benStrings).map(\.string)) == Set(benStrings))
            #expect(try await Self.roles(inHouseholdNamed: "The Sharers \(tag)") == ["owner"], "the replay passes ownership on the same way")
            // The archive read with every key there is (as `hearthctl tail` opens it): Ben's words
            // open, the erased users' stay sealed for good.
            let chats = try await CommandLineTool.run(["tail", "chats", "--raw"])
            #expect(chats.status == 0, "\(chats.errors)")
            #expect(chats.output.contains("Ben's reply \(tag)") && !chats.output.contains("Ada's secret plan \(tag)"))
            let users = try await CommandLineTool.run(["tail", "users", "--raw"])
            #expect(!users.output.contains("Ada Lovelace \(tag)"))
        }

        @Test func aPendingDeletionCanBeRestoredAfterSigningInAgain() async throws {
            try await ServiceProcess.with("gateway", environment: ["HEARTH_ACCOUNT_DELETION_GRACE_DAYS": "7"]) { gateway in
                let base = gateway.baseURL
                @Sendable func url(_ path: String) -> URL { base.appendingPathComponent(path) }
                let name = "restorer-\(UUID().uuidString.prefix(8))"
                let user = try await GatewayUser.signIn(gateway, name: name)
                #expect(try await HTTPTestClient.send("POST", url("v1/me/restore"), headers: user.headers).status == 409, "nothing to restore yet")
                let deleted = try await HTTPTestClient.send("DELETE", url("v1/me"), headers: user.headers)
                #expect(deleted.status == 202)
                let eraseAfter = try #require(deleted.json["erase_after"] as? String)
                #expect(try await KafkaTestEnvironment.eventually {
                    try await HTTPTestClient.send("GET", url("v1/me"), headers: user.headers).status == 401
                }, "the session that asked has ended")

                // Signing in again: the account shows its pending deletion, and nothing else answers.
                try await Task.sleep(for: .milliseconds(1100))  // a token of a later second
                let again = try await GatewayUser.signIn(gateway, name: name)
                #expect(again.userId == user.userId)
                let me = try await HTTPTestClient.send("GET", url("v1/me"), headers: again.headers)
                #expect(me.status == 200)
                #expect((me.json["deletion"] as? [String: Any])?["erase_after"] as? String == eraseAfter)
                let blocked = try await HTTPTestClient.postJSON(url("v1/households/upsert"), ["name": "Mine", "prefs": ["adults": 1]], headers: again.headers)
                #expect(blocked.status == 403)
                #expect((blocked.json["error"] as? [String: Any])?["code"] as? String == "account_pending_deletion")
                #expect(try await HTTPTestClient.send("DELETE", url("v1/me"), headers: again.headers).json["erase_after"] as? String == eraseAfter,
                        "asking again changes nothing")

                let restored = try await HTTPTestClient.send("POST", url("v1/me/restore"), headers: again.headers)
                #expect(restored.status == 200)
                #expect(restored.json["status"] as? String == "restored")
                #expect(try await KafkaTestEnvironment.eventually {
                    try await HTTPTestClient.postJSON(url("v1/households/upsert"), ["name": "Mine", "prefs": ["adults": 1]], headers: again.headers).status == 200
                }, "the account works again")
                #expect(try await HTTPTestClient.send("GET", url("v1/me"), headers: user.headers).status == 401, "the old session stays ended")
                try await TestEnvironment.withPostgres { client in
                    let keys = try await client.query(
                        "SELECT count(*)::int FROM data_keys WHERE subject = \("user:\(user.userId)") AND wrapped IS NULL", logger: TestEnvironment.logger
                    ).collect().first?.decode(Int.self)
                    #expect(keys == 0, "a restored account's key is never destroyed")
                }
            }
        }

        /// True once every user has been erased (the eraser destroyed their keys and the users
        /// projection applied `user.erased`).
        static func erased(_ users: [String]) async throws -> Bool {
            try await TestEnvironment.withPostgres { client in
                let rows = try await client.query(
                    "SELECT count(*)::int FROM users WHERE user_id::text = ANY(\(users)) AND erased_at IS NOT NULL", logger: TestEnvironment.logger)
                return try await rows.collect().first?.decode(Int.self) == users.count
            }
        }

        struct Holding: Sendable, CustomStringConvertible {
            let table: String
            let string: String
            var description: String { "\(table) holds \"\(string)\"" }
        }

        /// Each read model table (the archive and the key store aside) holding one of `strings`.
        /// Rows of the user in every wellbeing table of the gateway.
        static func wellbeingRows(of user: String) async throws -> Int {
            try await TestEnvironment.withPostgres { client in
                var total = 0
                for table in WellbeingProjection().tables {
                    for try await count in try await client.query(
                        "SELECT count(*)::int FROM \(unescaped: table) WHERE user_id = \(UUID(uuidString: user)!)", logger: .init(label: "test")
                    ).decode(Int.self) { total += count }
                }
                return total
            }
        }

        /// Sign-in sessions (`auth_sessions`, whose refresh tokens go with them) of `users`.
        static func sessionRows(of users: [String]) async throws -> Int {
            try await TestEnvironment.withPostgres { client in
                let rows = try await client.query(
                    "SELECT count(*)::int FROM auth_sessions WHERE user_id::text = ANY(\(users))", logger: TestEnvironment.logger)
                return try await rows.collect().first?.decode(Int.self) ?? 0
            }
        }

        static func tablesHolding(_ strings: [String]) async throws -> [Holding] {
            try await TestEnvironment.withPostgres { client in
                var tables: [String] = []
                for try await table in try await client.query(
                    """
                    SELECT table_name::text FROM information_schema.tables
                    WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
                      AND table_name NOT IN ('event_log', 'data_keys', 'schema_migrations', 'projection_offsets', 'projection_dead_letters')
                    ORDER BY 1
                    """, logger: TestEnvironment.logger
                ).decode(String.self) { tables.append(table) }
                var found: [Holding] = []
                for table in tables {
                    for string in strings {
                        let query = PostgresQuery(unsafeSQL: "SELECT count(*)::int FROM \"\(table)\" t WHERE t::text LIKE '%' || $1 || '%'", binds: {
                            var binds = PostgresBindings()
                            binds.append(string)
                            return binds
                        }())
                        if let count = try await client.query(query, logger: TestEnvironment.logger).collect().first?.decode(Int.self), count > 0 {
                            found.append(Holding(table: table, string: string))
                        }
                    }
                }
                return found
            }
        }

        /// The personal strings the archive holds in the clear (none: they are sealed).
        static func archiveHolds(_ strings: [String]) async throws -> [String] {
            try await TestEnvironment.withPostgres { client in
                var found: [String] = []
                for string in strings {
                    let rows = try await client.query(
                        "SELECT count(*)::int FROM event_log WHERE envelope::text LIKE '%' || \(string) || '%'", logger: TestEnvironment.logger)
                    if try await rows.collect().first?.decode(Int.self) ?? 0 > 0 { found.append(string) }
                }
                return found
            }
        }

        static func role(of user: String, in household: String) async throws -> String? {
            guard let user = UUID(uuidString: user), let household = UUID(uuidString: household) else { return nil }
            return try await TestEnvironment.withPostgres { client in
                let rows = try await client.query(
                    "SELECT role FROM user_households WHERE user_id = \(user) AND household_id = \(household)", logger: TestEnvironment.logger)
                for try await role in rows.decode(String.self) { return role }
                return nil
            }
        }

        static func roles(inHouseholdNamed name: String) async throws -> [String] {
            try await TestEnvironment.withPostgres { client in
                let rows = try await client.query(
                    """
                    SELECT uh.role FROM user_households uh JOIN households h ON h.household_id = uh.household_id
                    WHERE h.name = \(name) ORDER BY uh.role
                    """, logger: TestEnvironment.logger)
                var roles: [String] = []
                for try await role in rows.decode(String.self) { roles.append(role) }
                return roles
            }
        }
    }
}
