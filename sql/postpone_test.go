package sql

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/substrait-io/substrait-go/v8/plan"

	sqlvalue "github.com/stablerow/stablerow/value"
)

// TestWideConstantConvertsWhereFoldingReachesIt: a decimal constant out
// of a float's or an integer's range is converted (and raises 22003) only
// where PostgreSQL's constant folding reaches the conversion: not in a
// CASE arm after a FALSE or NULL condition, nor in a COALESCE argument
// after a non-NULL constant (seed 20261206 cases 61484, 155710;
// difftest/regressions/wide_constant_folding.slt holds PostgreSQL's
// answers); elsewhere while planning, also over no rows.
func TestWideConstantConvertsWhereFoldingReachesIt(t *testing.T) {
	for _, q := range []string{
		"SELECT id FROM t WHERE CASE WHEN FALSE THEN score <= 1e400 ELSE id = 1 END",
		"SELECT id FROM t WHERE CASE WHEN CAST(NULL AS BOOLEAN) THEN 1e-400 < score END",
		"SELECT id FROM t WHERE coalesce(TRUE, (NOT FALSE), (1e400 >= CAST('1.5' AS REAL)))",
		"DELETE FROM t WHERE coalesce(FALSE, 1e400 >= score)",
		"SELECT CASE WHEN FALSE THEN CAST(1e300 AS INTEGER) ELSE 7 END FROM t",
		"SELECT CASE WHEN FALSE THEN CAST(1e400 AS DOUBLE PRECISION) ELSE score END FROM t",
	} {
		_, err := Parse(q, testCatalog)
		assert.NoError(t, err, q)
	}
	for _, q := range []string{
		"SELECT id FROM t WHERE score <= 1e400",
		"SELECT 1e400 > score FROM t WHERE FALSE",
		"SELECT CASE WHEN id = 2 THEN CAST(1e300 AS INTEGER) ELSE 7 END FROM t WHERE FALSE",
		"SELECT id FROM t WHERE coalesce(NULL, 1e400 >= score)",
		"SELECT CAST(-1e400 AS REAL)",
	} {
		_, err := Parse(q, testCatalog)
		require.ErrorIs(t, err, sqlvalue.ErrOutOfRange, q)
	}
}

// TestExpensiveItem: PostgreSQL's cost test of make_sort_input_target,
// more than 10 operator calls, with its float sum (ten calls are
// 0.024999999999999998, not more than 0.025); AND, OR, IS NULL, CASE and
// COALESCE cost nothing, a cast to text two calls (CoerceViaIO).
func TestExpensiveItem(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want bool
	}{
		{"id * 4 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1", false},    // 10 calls
		{"id * 4 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1", true}, // 11
		{"CASE WHEN id > 1 AND id < 9 OR id IS NULL THEN coalesce(id, 1) END", false},
		{"CAST(id AS TEXT) || 'a' || 'b' || 'c' || 'd' || 'e' || 'f' || 'g' || 'h'", false}, // 2 + 8
		{"CAST(id AS TEXT) || 'a' || 'b' || 'c' || 'd' || 'e' || 'f' || 'g' || 'h' || 'i'", true},
	} {
		stmts, err := Parse("SELECT "+c.sql+" FROM t", testCatalog)
		require.NoError(t, err, c.sql)
		root, _ := reread(t, stmts[0].(*Query).Plan)
		p, ok := root.(*plan.ProjectRel)
		require.True(t, ok, c.sql)
		assert.Equal(t, c.want, expensiveItem(p.Expressions()[0]), c.sql)
	}
}

// TestConstantInListAndInsertedConstantFold: x IN (constants) folds while
// lowering, so the CASE arm it decides drops out (seed 20261208 case
// 497), and the assignment cast of a constant item of a simple INSERT ...
// SELECT raises while planning, over no rows too, but not under ORDER BY
// (seed 20261206 case 12082); regressions/constant_folding_found.slt
// holds PostgreSQL's answers.
func TestConstantInListAndInsertedConstantFold(t *testing.T) {
	for _, q := range []string{
		"SELECT CASE WHEN 'a' IN ('b', 'c') THEN 1 / 0 ELSE 1 END FROM t",
		"SELECT CASE WHEN 3 IN (1, 2, NULL) THEN 1 / 0 ELSE 2 END FROM t",
		"INSERT INTO t (id) SELECT 1e19 FROM generate_series(2, -2) AS g(g) ORDER BY 1",
	} {
		_, err := Parse(q, testCatalog)
		assert.NoError(t, err, q)
	}
	for q, want := range map[string]error{
		"SELECT 2.50 / CASE WHEN 'abcd' IN ('Infi', ' ') THEN id WHEN TRUE THEN 0 END FROM t WHERE FALSE": sqlvalue.ErrDivisionByZero,
		"INSERT INTO t (id) SELECT 1e19 FROM generate_series(2, -2) AS g(g)":                              sqlvalue.ErrOutOfRange,
		"INSERT INTO t (id) SELECT 1e19 FROM t AS a WHERE FALSE":                                          sqlvalue.ErrOutOfRange,
	} {
		_, err := Parse(q, testCatalog)
		assert.ErrorIs(t, err, want, q)
	}
}
