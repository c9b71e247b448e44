import HearthStore
import Testing

@Suite struct SQLScriptTests {
    @Test func splitsOnTopLevelSemicolonsOnly() {
        let script = """
            -- a comment; not a statement
            CREATE TABLE a (note text DEFAULT 'x;y');
            /* block; comment */ CREATE TABLE "b;c" (id int);
            CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql;
            INSERT INTO a VALUES ('it''s; fine')
            """
        let statements = SQLScript.statements(script)
        #expect(statements.count == 4)
        #expect(statements[0].hasSuffix("DEFAULT 'x;y')"))
        #expect(statements[1].contains("\"b;c\""))
        #expect(statements[2].contains("$body$ SELECT 1; $body$"))
        #expect(statements[3] == "INSERT INTO a VALUES ('it''s; fine')")
    }

    @Test func ignoresTrailingCommentsAndBlanks() {
        #expect(SQLScript.statements("SELECT 1;\n\n-- done\n") == ["SELECT 1"])
        #expect(SQLScript.statements("") == [])
    }
}
