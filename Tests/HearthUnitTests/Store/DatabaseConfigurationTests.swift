import HearthStore
import PostgresNIO
import Testing

@Suite struct DatabaseConfigurationTests {
    @Test func theURLFillsThePoolAndTheSingleConnectionAlike() throws {
        let configuration = try DatabaseConfiguration(url: "postgres://hearth:p%40ss%2Fword@db.internal:6543/family?sslmode=disable")
        #expect(configuration.client.host == "db.internal")
        #expect(configuration.client.port == 6543)
        #expect(configuration.client.username == "hearth")
        #expect(configuration.client.password == "p@ss/word")
        #expect(configuration.client.database == "family")
        let connection = try configuration.connection
        #expect(connection.host == "db.internal")
        #expect(connection.port == 6543)
        #expect(connection.username == "hearth")
        #expect(connection.password == "p@ss/word")
        #expect(connection.database == "family")
        #expect(!connection.tls.isAllowed)
    }

    @Test func theRedactedFormKeepsEverythingButThePassword() throws {
        let configuration = try DatabaseConfiguration(url: "postgresql://hearth:secret@127.0.0.1/hearth")
        #expect(configuration.redacted == "postgresql://hearth@127.0.0.1:5432/hearth")
        #expect(configuration.client.port == 5432)
    }

    @Test func sslModesMapToTLS() throws {
        let required = try DatabaseConfiguration(url: "postgres://u@h/d?sslmode=require")
        #expect(try required.connection.tls.isEnforced)
        let preferred = try DatabaseConfiguration(url: "postgres://u@h/d?sslmode=prefer").connection
        #expect(preferred.tls.isAllowed && !preferred.tls.isEnforced)
    }

    @Test(arguments: [
        ("mysql://u@h/d", "postgres:// scheme"), ("postgres:///d", "no host"), ("postgres://h/d", "no user"),
        ("postgres://u@h/d?sslmode=sometimes", "unknown sslmode sometimes"),
    ])
    func unusableURLsSayWhy(url: String, reason: String) {
        #expect {
            try DatabaseConfiguration(url: url)
        } throws: { error in
            "\(error)".contains(reason) && "\(error)".contains("HEARTH_DATABASE_URL")
        }
    }
}
