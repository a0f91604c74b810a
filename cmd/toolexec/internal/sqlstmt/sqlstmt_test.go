package sqlstmt

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckReadOnly_Refuses(t *testing.T) {
	for sql, word := range map[string]string{
		"ATTACH DATABASE ? AS x":                         "ATTACH",
		"attach ? as x":                                  "ATTACH",
		"SELECT 1; ATTACH ? AS x":                        "ATTACH",
		"SELECT 1 /* */ ;/**/attach/**/? as x":           "ATTACH",
		"DETACH x":                                       "DETACH",
		"VACUUM INTO ?":                                  "VACUUM",
		"vacuum main into 'x.db'":                        "VACUUM",
		"PRAGMA query_only = 0":                          "PRAGMA",
		"PRAGMA table_info(items)":                       "PRAGMA",
		"SELECT load_extension(?)":                       "load_extension",
		"SELECT LOAD_EXTENSION(?)":                       "load_extension",
		`SELECT "load_extension"(?)`:                     "load_extension",
		"SELECT `load_extension`(?)":                     "load_extension",
		"SELECT [load_extension](?)":                     "load_extension",
		"COMMIT; DELETE FROM t":                          "COMMIT",
		"SELECT 1; BEGIN":                                "BEGIN",
		"  end":                                          "END",
		"ROLLBACK":                                       "ROLLBACK",
		"SAVEPOINT a":                                    "SAVEPOINT",
		"RELEASE a":                                      "RELEASE",
		"SELECT 'it''s' ; ATTACH ? AS x":                 "ATTACH",
		"SELECT x'41' , 1e5, ?1, :a, @b, $c; VACUUM":     "VACUUM",
		"WITH a AS (SELECT 1) SELECT * FROM a; PRAGMA x": "PRAGMA",
	} {
		err := CheckReadOnly(sql)
		var re *RefusedError
		require.True(t, errors.As(err, &re), sql)
		assert.Equal(t, word, re.Word, sql)
		assert.Contains(t, err.Error(), "read-only tool", sql)
	}
}

func TestCheckReadOnly_Allows(t *testing.T) {
	for _, sql := range []string{
		"SELECT id, name FROM items WHERE name = ?",
		"SELECT 'ATTACH DATABASE x' AS s",
		`SELECT "attach", [vacuum], ` + "`pragma`" + ` FROM t`,
		"SELECT 1 -- ATTACH ? AS x",
		"SELECT 1 /* VACUUM INTO 'x' */",
		"SELECT * FROM pragma_table_info(?)",
		"SELECT CASE WHEN a THEN 1 ELSE 0 END FROM t",
		"SELECT attached_at, vacuumed, pragmatic FROM t",
		"SELECT 'load_extension'",
		"SELECT x FROM t WHERE y = 'unterminated",
		"SELECT 1 /* unterminated",
		"SELECT \"unterminated",
		"",
	} {
		assert.NoError(t, CheckReadOnly(sql), sql)
	}
}

func TestWords_QuotedIdentifiers(t *testing.T) {
	assert.Equal(t, []word{{text: `a"b`, quoted: true}, {text: "x"}}, words(`"a""b" x`))
	assert.Equal(t, []word{{text: "a", quoted: true}}, words(`[a]]`)[:1], "brackets have no escape")
}

// words is every word of sql, as eachWord yields them.
func words(sql string) []word {
	var out []word
	eachWord(sql, func(w word) bool { out = append(out, w); return true })
	return out
}
