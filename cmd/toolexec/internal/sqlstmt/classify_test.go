package sqlstmt

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

type classCase struct {
	sql    string
	effect Effect
	why    string
	rows   bool
}

func checkClasses(t *testing.T, d Dialect, cases []classCase) {
	t.Helper()
	for _, c := range cases {
		got := Classify(d, c.sql)
		assert.Equal(t, c.effect, got.Effect, "%s: %s", d, c.sql)
		assert.Equal(t, c.why, got.Why, "%s: %s", d, c.sql)
		assert.Equal(t, c.rows, got.Rows, "%s rows: %s", d, c.sql)
	}
}

func TestClassify_PostgreSQL(t *testing.T) {
	checkClasses(t, PostgreSQL, []classCase{
		// Reading.
		{"SELECT * FROM hotels WHERE name ILIKE '%' || $1 || '%';", Reads, "", true},
		{"select 1", Reads, "", true},
		{"(SELECT 1) UNION (SELECT 2)", Reads, "", true},
		{"VALUES (1), (2)", Reads, "", true},
		{"TABLE hotels", Reads, "", true},
		{"SHOW search_path", Reads, "", true},
		{"WITH a AS (SELECT 1) SELECT * FROM a", Reads, "", true},
		{"WITH RECURSIVE t(n) AS (VALUES (1) UNION ALL SELECT n+1 FROM t WHERE n < 5) SELECT n FROM t", Reads, "", true},
		{"WITH a AS MATERIALIZED (SELECT 1), b AS NOT MATERIALIZED (SELECT 2) SELECT * FROM a, b", Reads, "", true},
		{"WITH update AS (SELECT 1 AS x) SELECT x FROM update", Reads, "", true},
		{"WITH RECURSIVE t(n) AS (SELECT 1) SEARCH DEPTH FIRST BY n SET ord CYCLE n SET c USING p SELECT * FROM t", Reads, "", true},
		{"SELECT 'UPDATE t SET x = 1', \"delete\" FROM t -- DELETE FROM t", Reads, "", true},
		{"SELECT $$ DELETE FROM t; $$, $tag$ INSERT $tag$ /* UPDATE /* nested */ DROP */", Reads, "", true},
		{"SELECT E'it\\'s; DELETE FROM t'", Reads, "", true},
		{"SELECT substring(name FROM 1 FOR 3) FROM hotels", Reads, "", true},
		{"EXPLAIN DELETE FROM t", Reads, "", true},
		{"EXPLAIN (ANALYZE false, COSTS) DELETE FROM t", Reads, "", true},
		{"SELECT nextval('s')", Reads, "", true}, // functions count as reading
		{"SELECT count(*) AS into_count FROM t", Reads, "", true},
		{"", Reads, "", true},
		{"-- only a comment", Reads, "", true},
		// Writing.
		{"UPDATE hotels SET booked = B'1' WHERE id = $1;", Writes, "UPDATE", false},
		{"UPDATE hotels SET checkin_date = CAST($2 as date) WHERE id = $1", Writes, "UPDATE", false},
		{"insert into t (a) values ($1) returning id", Writes, "INSERT", true},
		{"DELETE FROM t WHERE id = $1", Writes, "DELETE", false},
		{"MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE", Writes, "MERGE", false},
		{"WITH x AS (DELETE FROM t RETURNING *) SELECT count(*) FROM x", Writes, "WITH … DELETE", true},
		{"WITH x AS MATERIALIZED (UPDATE t SET a = 1 RETURNING a) SELECT * FROM x", Writes, "WITH … UPDATE", true},
		{"WITH a AS (SELECT 1) INSERT INTO t SELECT * FROM a", Writes, "WITH … INSERT", false},
		{"WITH a AS (SELECT 1) DELETE FROM t RETURNING id", Writes, "WITH … DELETE", true},
		{"SELECT * INTO newtable FROM t", Writes, "SELECT … INTO", true},
		{"WITH a AS (SELECT 1) SELECT * INTO n FROM a", Writes, "SELECT … INTO", true},
		{"COPY t FROM STDIN", Writes, "COPY", true},
		{"COPY t TO '/tmp/x'", Writes, "COPY", true},
		{"CALL p($1)", Writes, "CALL", true},
		{"DO $$BEGIN DELETE FROM t; END$$", Writes, "DO", true},
		{"SET search_path = x", Writes, "SET", true},
		{"RESET ALL", Writes, "RESET", true},
		{"CREATE TABLE t (a int)", Writes, "CREATE", true},
		{"DROP TABLE t", Writes, "DROP", true},
		{"TRUNCATE t", Writes, "TRUNCATE", true},
		{"NOTIFY c", Writes, "NOTIFY", true},
		{"BEGIN", Writes, "BEGIN", true},
		{"EXPLAIN ANALYZE DELETE FROM t", Writes, "EXPLAIN ANALYZE DELETE", true},
		{"EXPLAIN (ANALYZE, BUFFERS) UPDATE t SET a = 1", Writes, "EXPLAIN ANALYZE UPDATE", true},
		{"EXPLAIN ANALYZE SELECT 1", Reads, "", true},
		{"SELECT 1; DELETE FROM t", Writes, "DELETE", true},
		{"'x'", Writes, "an unknown statement", true},
		// Locking.
		{"SELECT * FROM t WHERE id = $1 FOR UPDATE", Locks, "SELECT … FOR UPDATE", true},
		{"SELECT * FROM t FOR NO KEY UPDATE SKIP LOCKED", Locks, "SELECT … FOR NO KEY UPDATE", true},
		{"SELECT * FROM t FOR SHARE", Locks, "SELECT … FOR SHARE", true},
		{"SELECT * FROM t FOR KEY SHARE NOWAIT", Locks, "SELECT … FOR KEY SHARE", true},
		{"SELECT * FROM (SELECT * FROM t FOR UPDATE) s", Locks, "SELECT … FOR UPDATE", true},
		{"LOCK TABLE t IN ACCESS SHARE MODE", Locks, "LOCK", true},
	})
}

func TestClassify_MySQL(t *testing.T) {
	checkClasses(t, MySQL, []classCase{
		{"SELECT * FROM flights WHERE airline = ? AND flight_number = ? LIMIT 10", Reads, "", true},
		{"SELECT \"UPDATE t\", 'it''s; DELETE' FROM t # DELETE FROM t", Reads, "", true},
		{"SELECT 'C:\\\\dir' FROM t", Reads, "", true},
		{"SELECT 1 -- DELETE FROM t", Reads, "", true},
		{"SELECT 1 /* DELETE */", Reads, "", true},
		{"SELECT `delete` FROM t", Reads, "", true},
		{"SHOW TABLES", Reads, "", true},
		{"DESCRIBE t", Reads, "", true},
		{"EXPLAIN SELECT 1", Reads, "", true},
		{"EXPLAIN DELETE FROM t", Reads, "", true},
		{"DO SLEEP(1)", Reads, "", true},
		{"WITH a AS (SELECT 1) SELECT * FROM a", Reads, "", true},
		{"ANALYZE SELECT 1", Reads, "", true},
		{"UPDATE t SET a = 1 WHERE id = ?", Writes, "UPDATE", false},
		{"REPLACE INTO t VALUES (1)", Writes, "REPLACE", false},
		{"DELETE FROM t RETURNING id", Writes, "DELETE", true},
		{"WITH a AS (SELECT 1) UPDATE t, a SET t.x = 1", Writes, "WITH … UPDATE", false},
		{"SELECT * FROM t INTO OUTFILE '/tmp/x'", Writes, "SELECT … INTO", true},
		// INTO at any depth, and right after a number.
		{"SELECT 1.5INTO OUTFILE '/tmp/x'", Writes, "SELECT … INTO", true},
		{"SELECT .5INTO OUTFILE '/tmp/x'", Writes, "SELECT … INTO", true},
		{"SELECT 1e1INTO OUTFILE '/tmp/x'", Writes, "SELECT … INTO", true},
		{"SELECT 1.INTO @v", Writes, "SELECT … INTO", true},
		{"SELECT 1e+1INTO DUMPFILE '/tmp/x'", Writes, "SELECT … INTO", true},
		{"(SELECT 1) INTO OUTFILE '/tmp/x'", Writes, "SELECT … INTO", true},
		{"(SELECT 1) UNION (SELECT 2) INTO OUTFILE '/tmp/x'", Writes, "SELECT … INTO", true},
		{"((SELECT 1)) INTO OUTFILE '/tmp/x'", Writes, "SELECT … INTO", true},
		{"(VALUES ROW(1)) INTO OUTFILE '/tmp/x'", Writes, "SELECT … INTO", true},
		{"(VALUES (1)) INTO OUTFILE '/tmp/x'", Writes, "SELECT … INTO", true},
		{"WITH a AS (SELECT 1) (SELECT * FROM a) INTO OUTFILE '/tmp/x'", Writes, "SELECT … INTO", true},
		{"ANALYZE (SELECT 1) INTO OUTFILE '/tmp/x'", Writes, "ANALYZE SELECT … INTO", true},
		{"ANALYZE SELECT 1.5INTO OUTFILE '/tmp/x'", Writes, "ANALYZE SELECT … INTO", true},
		{"DO 1 INTO @v", Writes, "DO … INTO", true},
		// Where a setting of the server changes how the text reads, the
		// reading that writes counts: NO_BACKSLASH_ESCAPES ends the
		// string at \', ANSI_QUOTES makes "…" an identifier, and a server
		// older than a versioned comment skips it.
		{"SELECT 'a\\', 1 INTO OUTFILE '/tmp/x' #'", Writes, "SELECT … INTO", true},
		{"SELECT \"a\\\", 1 INTO OUTFILE '/tmp/x' #\"", Writes, "SELECT … INTO", true},
		{"SELECT \"it's\", 'a\\\\b', `c\\` FROM t", Reads, "", true},
		{"SELECT 1 /*!99999 'x */ INTO OUTFILE '/tmp/x' /*' */", Writes, "SELECT … INTO", true},
		{"SELECT 1 /*M!100000 'x */ INTO OUTFILE '/tmp/x' /*' */", Writes, "SELECT … INTO", true},
		{"SELECT 'it\\'s; DELETE' FROM t", Writes, "DELETE", true},
		{"SELECT a INTO @x FROM t", Writes, "SELECT … INTO", true},
		{"SELECT 1 /*! ; DELETE FROM t */", Writes, "DELETE", true},
		{"SELECT 1 /*!50000 INTO @x */", Writes, "SELECT … INTO", true},
		{"SELECT 1 --1\n; DELETE FROM t", Writes, "DELETE", true},
		{"LOAD DATA INFILE 'x' INTO TABLE t", Writes, "LOAD", true},
		{"CALL p()", Writes, "CALL", true},
		{"SET @a = 1", Writes, "SET", true},
		{"LOCK TABLES t READ", Writes, "LOCK", true},
		{"ANALYZE TABLE t", Writes, "ANALYZE", true},
		{"ANALYZE FORMAT=JSON DELETE FROM t", Writes, "ANALYZE DELETE", true},
		{"EXPLAIN ANALYZE UPDATE t SET a = 1", Writes, "EXPLAIN ANALYZE UPDATE", true},
		{"SELECT * FROM t FOR UPDATE", Locks, "SELECT … FOR UPDATE", true},
		{"SELECT * FROM t LOCK IN SHARE MODE", Locks, "SELECT … LOCK IN SHARE MODE", true},
		{"SELECT * FROM t FOR SHARE", Locks, "SELECT … FOR SHARE", true},
	})
}

func TestClassify_PostgreSQLWithoutStandardStrings(t *testing.T) {
	// With standard_conforming_strings off, \' escapes a quote in '…':
	// the string below ends later, and the DELETE after it is a statement.
	checkClasses(t, PostgreSQL, []classCase{
		{`SELECT '\'' ; DELETE FROM t --'`, Writes, "DELETE", true},
		{`SELECT 'a\' ; DELETE FROM t --'`, Writes, "DELETE", true},
		{`SELECT 'C:\dir' FROM t`, Reads, "", true},
	})
}

func TestStatements(t *testing.T) {
	assert.Equal(t, 1, Statements(MySQL, "SELECT 1;"))
	assert.Equal(t, 2, Statements(MySQL, "SELECT 1; SELECT 2"))
	assert.Equal(t, 1, Statements(MySQL, "SELECT 'a;b'"))
	assert.Equal(t, 2, Statements(MySQL, `SELECT 'a\'; SELECT 2 #'`), "two where the server does not read backslash escapes")
	assert.Equal(t, 0, Statements(PostgreSQL, "-- nothing"))
}

func TestClassify_SQLite(t *testing.T) {
	checkClasses(t, SQLite, []classCase{
		{"SELECT * FROM hotels WHERE name LIKE '%' || ? || '%'", Reads, "", true},
		{"WITH a AS (SELECT 1) SELECT * FROM a", Reads, "", true},
		{"VALUES (1)", Reads, "", true},
		{"EXPLAIN QUERY PLAN DELETE FROM t", Reads, "", true},
		{`SELECT "update", [delete], ` + "`insert`" + ` FROM t`, Reads, "", true},
		{"SELECT * FROM pragma_table_info(?)", Reads, "", true},
		{"UPDATE hotels SET booked = 1 WHERE id = ?", Writes, "UPDATE", false},
		{"INSERT INTO t VALUES (?) RETURNING id", Writes, "INSERT", true},
		{"INSERT INTO t VALUES (?) ON CONFLICT(id) DO UPDATE SET a = 1", Writes, "INSERT", false},
		{"REPLACE INTO t VALUES (1)", Writes, "REPLACE", false},
		{"WITH a AS (SELECT 1) DELETE FROM t WHERE id IN a", Writes, "WITH … DELETE", false},
		{"CREATE TABLE t (a)", Writes, "CREATE", true},
		{"ATTACH ? AS x", Writes, "ATTACH", true},
		{"PRAGMA user_version = 1", Writes, "PRAGMA", true},
		{"VACUUM", Writes, "VACUUM", true},
	})
}

func TestClassify_Unterminated(t *testing.T) {
	// Whatever follows an unterminated literal or comment is inside it, as
	// the database reads it.
	for _, d := range []Dialect{SQLite, PostgreSQL, MySQL} {
		assert.Equal(t, Reads, Classify(d, "SELECT 'x; DELETE FROM t").Effect, d)
		assert.Equal(t, Reads, Classify(d, "SELECT 1 /* ; DELETE FROM t").Effect, d)
	}
	assert.Equal(t, Reads, Classify(PostgreSQL, "SELECT $a$ ; DELETE FROM t").Effect)
	assert.Equal(t, Reads, Classify(PostgreSQL, "SELECT 1 /* /* */ ; DELETE FROM t").Effect, "comments nest")
}

func TestClassify_Linear(t *testing.T) {
	// A long statement of many parts is classified, not rejected.
	stmt := strings.Repeat("SELECT a FROM t WHERE b IN (SELECT c FROM u); ", 2000) + "DELETE FROM t"
	c := Classify(PostgreSQL, stmt)
	assert.Equal(t, Writes, c.Effect)
	assert.Equal(t, "DELETE", c.Why)
}

func TestPlaceholders(t *testing.T) {
	q, n := Placeholders(MySQL, `SELECT ? FROM t WHERE a = 'it\'s ?' AND b = "?" AND c = ? # ?`)
	assert.Equal(t, 2, q)
	assert.Equal(t, 0, n)
	q, n = Placeholders(PostgreSQL, `SELECT $1, '$2', $$ $3 $$, $10 -- $11`)
	assert.Equal(t, 0, q)
	assert.Equal(t, 10, n)
}

func TestHasBareWord(t *testing.T) {
	assert.True(t, HasBareWord(PostgreSQL, "SELECT * FROM marker", "MARKER"))
	for _, s := range []string{"SELECT 'marker'", `SELECT "marker"`, "SELECT 1 -- marker", "SELECT markers"} {
		assert.False(t, HasBareWord(PostgreSQL, s, "marker"), s)
	}
}

// numberForm is a number as MySQL and PostgreSQL read one: digits, a
// decimal point and digits, an exponent.
var numberForm = regexp.MustCompile(`^([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// FuzzClassify_NumberGluedToInto: whatever number is glued to INTO, the
// statement writes, and the file it names is refused.
func FuzzClassify_NumberGluedToInto(f *testing.F) {
	for _, n := range []string{"1", "1.5", ".5", "1e1", "1e+1", "1E-1", "1.", "1.e1", "0.5e10", "007"} {
		f.Add(n, "INTO")
	}
	f.Add("1.5", "into")
	f.Add("1", "InTo")
	f.Fuzz(func(t *testing.T, n, into string) {
		if !numberForm.MatchString(n) || !strings.EqualFold(into, "INTO") {
			t.Skip()
		}
		for _, d := range []Dialect{MySQL, PostgreSQL} {
			for _, form := range []string{"SELECT %s%s OUTFILE '/tmp/x'", "(SELECT %s)%s OUTFILE '/tmp/x'", "SELECT 1 FROM t WHERE a = %s%s @v"} {
				sql := fmt.Sprintf(form, n, into)
				c := Classify(d, sql)
				if c.Effect != Writes {
					t.Fatalf("%s: %q reads as %s", d, sql, c.Effect)
				}
			}
		}
		err := CheckReadOnly(MySQL, "SELECT "+n+into+" OUTFILE '/tmp/x'")
		if err == nil {
			t.Fatalf("%q is not refused", n+into)
		}
	})
}

// FuzzClassify_AnyText: any text is classified and checked without a
// panic, and a statement that reads, with a write appended after a ";",
// writes.
func FuzzClassify_AnyText(f *testing.F) {
	for _, s := range []string{"SELECT 1", "SELECT 'a\\'", `SELECT "a\"`, "/*!50000 SELECT */", "$a$ x $a$", "E'\\''", "--", "#", "[x", "(((", ")))", "1.5e", ".e1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, d := range []Dialect{SQLite, PostgreSQL, MySQL} {
			_ = CheckReadOnly(d, s)
			_ = Statements(d, s)
			c := Classify(d, s)
			if c.Effect == Reads && Classify(d, "SELECT 1; DELETE FROM t; "+s).Effect != Writes {
				t.Fatalf("%s: a DELETE before %q is lost", d, s)
			}
		}
	})
}
