package sql

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/plan"

	sqlvalue "github.com/stablerow/stablerow/value"
)

// A call over constants is its value in the plan, as PostgreSQL's
// planner evaluates it: position('%' IN '-5') is 0 before anything
// divides by it.
func TestConstantCallsFoldToValues(t *testing.T) {
	_, root, _ := parseQuery(t, "SELECT position('%' IN '-5'), upper('ab'), strpos('ab', 'b') - 2, CAST(NULL AS SMALLINT) <= (id / position('%' IN '-5')) FROM t")
	es := root.(*plan.ProjectRel).Expressions()
	require.Len(t, es, 4)
	assert.Equal(t, int32(0), litValue(t, es[0]), "position is integer, as in PostgreSQL")
	assert.Equal(t, "AB", litValue(t, es[1]))
	assert.Equal(t, int32(0), litValue(t, es[2]))
	// The strict comparison with a NULL constant is NULL: id / 0 is
	// never computed (difftest seed 20261206 case 3650).
	assert.Nil(t, litValue(t, es[3]))

	_, root, _ = parseQuery(t, "SELECT date_part('second', CAST(NULL AS DATE)) + (id + id), date_part('year', DATE '2020-05-01') FROM t")
	es = root.(*plan.ProjectRel).Expressions()
	assert.Nil(t, litValue(t, es[0]), "extract of NULL is NULL: the sum is never computed")
	assert.Equal(t, float64(2020), litValue(t, es[1]))
}

// A constant that raises raises while planning, also where no row would
// reach it, except where PostgreSQL's folding drops it first.
func TestConstantErrorsRaiseWhilePlanning(t *testing.T) {
	raise := []struct {
		sql  string
		want error
	}{
		{"SELECT 1 / 0", sqlvalue.ErrDivisionByZero},
		{"SELECT 9223372036854775807 * 2", sqlvalue.ErrOutOfRange},
		{"SELECT 1 / 0 FROM t WHERE false", sqlvalue.ErrDivisionByZero},
		{"SELECT CAST(-1e19 AS INTEGER) FROM t WHERE false", sqlvalue.ErrOutOfRange},
		{"SELECT id FROM t UNION SELECT CAST(-1e19 AS INTEGER) FROM t WHERE CAST(TRUE AS TEXT) ILIKE '%x%'", sqlvalue.ErrOutOfRange},
		{"SELECT id FROM t WHERE (1 / 0 = 1) AND false", sqlvalue.ErrDivisionByZero},
		{"SELECT id FROM t WHERE (1 / 0 = 1) OR true", sqlvalue.ErrDivisionByZero},
		{"SELECT CASE WHEN id > 0 THEN 1 / 0 ELSE 1 END FROM t", sqlvalue.ErrDivisionByZero},
		{"SELECT coalesce(id, 1 / 0) FROM t", sqlvalue.ErrDivisionByZero},
		{"SELECT coalesce(NULL, id, 1 / 0, 1) FROM t", sqlvalue.ErrDivisionByZero},
		{"SELECT id FROM t WHERE id IN (1, 2147483647 * 2)", sqlvalue.ErrOutOfRange},
		{"SELECT id FROM t WHERE 1 = (SELECT 1 / 0 FROM t)", sqlvalue.ErrDivisionByZero},
		{"SELECT id FROM t WHERE CAST(NULL AS SMALLINT) <= (id / (2147483647 * 2))", sqlvalue.ErrOutOfRange},
		// An item with a column is NULL <> item after PostgreSQL
		// simplified the item: its constant call raises (seed 20261229
		// case 157247).
		{"SELECT id FROM t WHERE CAST(NULL AS DOUBLE PRECISION) NOT IN (CAST(1 AS DOUBLE PRECISION), CAST(2 AS DOUBLE PRECISION), power(CAST(-2.25 AS DOUBLE PRECISION), CAST(-548.2 AS DOUBLE PRECISION)) / id)", sqlvalue.ErrInvalidArgument},
		{"SELECT id FROM t WHERE CAST(NULL AS BIGINT) IN (1, 2, id + 9223372036854775807 * 2)", sqlvalue.ErrOutOfRange},
		{"SELECT sum(1 / 0) FROM t", sqlvalue.ErrDivisionByZero},
		{"SELECT nullif(CAST(NULL AS SMALLINT), CAST(-100 AS SMALLINT) % CAST(0 AS SMALLINT)) FROM t", sqlvalue.ErrDivisionByZero},
		{"SELECT nullif(id * CAST(NULL AS BIGINT), CAST(9223372036854775807.5 AS BIGINT)) FROM t", sqlvalue.ErrOutOfRange},
		{"SELECT CAST('123456.78' AS NUMERIC(8,2)) / round(CAST(-0.0 AS NUMERIC(8,2)), 2) FROM t WHERE false", sqlvalue.ErrDivisionByZero},
		{"SELECT CAST(CAST('abc' AS TEXT) AS DOUBLE PRECISION) FROM t", sqlvalue.ErrInvalidArgument},
	}
	for _, c := range raise {
		_, err := Parse(c.sql, testCatalog)
		assert.ErrorIs(t, err, c.want, c.sql)
	}
	for _, sql := range []string{
		"SELECT id FROM t WHERE false AND (1 / 0 = 1)",
		"SELECT id FROM t WHERE true OR (1 / 0 = 1)",
		"SELECT CASE WHEN false THEN 1 / 0 ELSE 1 END FROM t",
		"SELECT CASE WHEN true THEN 1 ELSE 1 / 0 END FROM t",
		"SELECT coalesce(1, 1 / 0) FROM t",
		// A non-NULL constant ends COALESCE's list before PostgreSQL
		// simplifies the arguments after it (coalesceArgs).
		"SELECT coalesce(id, 1, 1 / 0) FROM t",
		"SELECT coalesce(id, NULL, 2, CAST(9223372036854775807 * 2 AS INTEGER)) FROM t",
		"SELECT nullif(CAST(NULL AS SMALLINT), id % CAST(0 AS SMALLINT)) FROM t",
		"SELECT date_part('second', CAST(NULL AS DATE)) + (id / 0) FROM t",
		"SELECT id FROM t WHERE CAST(NULL AS SMALLINT) <= (id / 0)",
		"SELECT id FROM t WHERE (SELECT 1 / 0) = 1 AND false",
		// A cast from text to a date is stable in PostgreSQL, evaluated
		// per row: no row, no error.
		"SELECT CAST(('2020' || '-13-01') AS DATE) FROM t WHERE false",
		"SELECT CAST(CAST(DATE '2020-01-01' AS TEXT) AS DOUBLE PRECISION) FROM t",
	} {
		_, err := Parse(sql, testCatalog)
		assert.NoError(t, err, sql)
	}
}

// A WHERE with a constant FALSE conjunct is FALSE before its NOT IN
// subquery is planned, as in PostgreSQL, so the subquery's out-of-range
// constant is never converted (difftest seed 20261206 case 10029). An
// uncorrelated IN is a join in PostgreSQL before the WHERE folds, and
// raises.
func TestFalseWherePlansNoNotInSubquery(t *testing.T) {
	_, err := Parse("SELECT id FROM t AS a WHERE (a.id NOT IN (SELECT s.id FROM t AS s WHERE s.name = a.name AND 1e400 <= s.score)) AND FALSE", testCatalog)
	require.NoError(t, err)
	_, err = Parse("SELECT id FROM t AS a WHERE a.id NOT IN (SELECT s.id FROM t AS s WHERE 1e400 <= s.score)", testCatalog)
	assert.ErrorIs(t, err, sqlvalue.ErrOutOfRange, "no FALSE conjunct: the subquery is planned")
	_, err = Parse("SELECT id FROM t AS a WHERE a.id IN (SELECT s.id FROM t AS s WHERE 1e400 <= s.score) AND FALSE", testCatalog)
	assert.ErrorIs(t, err, sqlvalue.ErrOutOfRange)
	// An uncorrelated EXISTS and a correlated IN are not joins in
	// PostgreSQL: dropped with the WHERE (seed 20261206 case 12340); a
	// correlated NOT EXISTS is.
	_, err = Parse("SELECT id FROM t AS a WHERE EXISTS (SELECT 1 FROM t AS s WHERE CAST(32767 AS SMALLINT) * CAST(-32767 AS SMALLINT) = s.id) AND CAST(NULL AS BOOLEAN)", testCatalog)
	assert.NoError(t, err)
	_, err = Parse("SELECT id FROM t AS a WHERE a.id IN (SELECT s.id FROM t AS s WHERE s.name = a.name AND 1e400 <= s.score) AND FALSE", testCatalog)
	assert.NoError(t, err)
	_, err = Parse("SELECT id FROM t AS a WHERE NOT EXISTS (SELECT 1 FROM t AS s WHERE s.name = a.name AND 1e400 <= s.score) AND FALSE", testCatalog)
	assert.ErrorIs(t, err, sqlvalue.ErrOutOfRange)
	// The same over two FROM items, where the set conjuncts are lowered
	// beside the cross product's conditions (joinorder.go; difftest seed
	// 20261227 case 18681).
	_, err = Parse("SELECT a.id FROM t AS a, u AS b WHERE a.id = b.id AND FALSE AND EXISTS (SELECT 1 FROM t AS s WHERE 1e400 <= s.score)", testCatalog)
	assert.NoError(t, err)
	_, err = Parse("SELECT a.id FROM t AS a, u AS b WHERE a.id = b.id AND NOT EXISTS (SELECT 1 FROM t AS s WHERE 1e400 <= s.score) AND FALSE", testCatalog)
	assert.NoError(t, err)
	_, err = Parse("SELECT a.id FROM t AS a, u AS b WHERE a.id = b.id AND NOT EXISTS (SELECT 1 FROM t AS s WHERE s.name = a.name AND 1e400 <= s.score) AND FALSE", testCatalog)
	assert.ErrorIs(t, err, sqlvalue.ErrOutOfRange, "a correlated NOT EXISTS is a join before the WHERE folds")
	_, err = Parse("SELECT a.id FROM t AS a, u AS b WHERE a.id = b.id AND EXISTS (SELECT 1 FROM t AS s WHERE 1e400 <= s.score)", testCatalog)
	assert.ErrorIs(t, err, sqlvalue.ErrOutOfRange, "no FALSE conjunct: the subquery is planned")
	// The dropped subquery is still analysed, as PostgreSQL parses it
	// (difftest seed 20261206 case 7959).
	_, err = Parse("SELECT id FROM t AS a WHERE (SELECT max(s.id IN (1, 2)) FROM t AS s WHERE s.name = a.name) AND FALSE", testCatalog)
	assert.Error(t, err, "max(boolean) does not exist")
}

// A constant FALSE HAVING is in the WHERE too, as PostgreSQL moves it
// there, so the WHERE never reads a row to raise on (difftest seed
// 20261206 cases 18577 and 21787): every filter of the plan is FALSE.
func TestFalseHavingEmptiesWhere(t *testing.T) {
	for _, sql := range []string{
		"SELECT count(*) FROM t WHERE CAST(name AS BIGINT) <= id HAVING FALSE",
		"SELECT name FROM t WHERE CAST(name AS BIGINT) <= id GROUP BY name HAVING NULL IS NOT NULL",
	} {
		_, root, _ := parseQuery(t, sql)
		n := 0
		var walk func(r plan.Rel)
		walk = func(r plan.Rel) {
			if f, ok := r.(*plan.FilterRel); ok {
				n++
				assert.True(t, constFalse(f.Condition()), "%s: filter %v", sql, f.Condition())
			}
			for _, in := range r.GetInputs() {
				walk(in)
			}
		}
		walk(root)
		assert.GreaterOrEqual(t, n, 2, sql)
	}
}

// A HAVING moved into the WHERE (whereWithHaving) empties it, but its
// FALSE does not keep the WHERE's own subqueries from being planned:
// PostgreSQL preprocesses the WHERE, planning an uncorrelated EXISTS in
// it, before it moves the HAVING there (subquery_planner), so the
// subquery's raising constant raises (difftest seed 20261229 case 26486).
// A FALSE of the WHERE's own still drops it, over one FROM item or two.
func TestMovedHavingDoesNotDropWhereSubqueries(t *testing.T) {
	for _, q := range []string{
		"SELECT id FROM t AS a WHERE EXISTS (SELECT 1 FROM t AS s WHERE CAST(NULL AS INTEGER) < abs(CAST(-2147483648 AS INTEGER))) GROUP BY 1 HAVING (CAST(NULL AS DOUBLE PRECISION) IS NOT NULL)",
		"SELECT a.id FROM t AS a, u AS b WHERE a.id = b.id AND EXISTS (SELECT 1 FROM t AS s WHERE 1e400 <= s.score) GROUP BY 1 HAVING FALSE",
		"SELECT count(*) FROM t AS a WHERE a.id NOT IN (SELECT s.id FROM t AS s WHERE 1e400 <= s.score) HAVING FALSE",
	} {
		_, err := Parse(q, testCatalog)
		assert.ErrorIs(t, err, sqlvalue.ErrOutOfRange, q)
	}
	for _, q := range []string{
		"SELECT id FROM t AS a WHERE EXISTS (SELECT 1 FROM t AS s WHERE CAST(NULL AS INTEGER) < abs(CAST(-2147483648 AS INTEGER))) AND FALSE GROUP BY 1 HAVING FALSE",
		"SELECT a.id FROM t AS a, u AS b WHERE a.id = b.id AND FALSE AND EXISTS (SELECT 1 FROM t AS s WHERE 1e400 <= s.score) GROUP BY 1 HAVING FALSE",
		"SELECT id FROM t AS a WHERE EXISTS (SELECT 1 FROM t AS s WHERE s.id = 1) GROUP BY 1 HAVING FALSE",
	} {
		_, err := Parse(q, testCatalog)
		assert.NoError(t, err, q)
	}
}

// A WHERE folded to FALSE by a constant conjunct has its conjuncts before
// that one folded outside their subqueries: the left operand of NOT IN
// and the other operand of a scalar subquery comparison raise, but not
// after the FALSE, nor in a subquery's body (difftest seed 1 case 12004;
// PostgreSQL's simplify_and_arguments).
func TestFalseWhereFoldsSubqueryOperandsBeforeIt(t *testing.T) {
	for q, want := range map[string]error{
		"SELECT id FROM t AS a WHERE ((1e400 >= CAST(1 AS DOUBLE PRECISION)) NOT IN (SELECT TRUE FROM t AS s)) AND FALSE":                      sqlvalue.ErrOutOfRange,
		"SELECT id FROM t AS a WHERE ((1e400 >= CAST(1 AS DOUBLE PRECISION)) NOT IN (SELECT TRUE FROM t AS s)) AND NULL":                       sqlvalue.ErrOutOfRange,
		"SELECT id FROM t AS a WHERE (1 / 0 = (SELECT 1 FROM t AS s)) AND FALSE":                                                               sqlvalue.ErrDivisionByZero,
		"SELECT id FROM t AS a WHERE ((1e400 >= CAST(1 AS DOUBLE PRECISION)) IN (SELECT s.score > 0 FROM t AS s WHERE s.id = a.id)) AND FALSE": sqlvalue.ErrOutOfRange,
	} {
		_, err := Parse(q, testCatalog)
		assert.ErrorIs(t, err, want, q)
	}
	for _, q := range []string{
		"SELECT id FROM t AS a WHERE FALSE AND ((1e400 >= CAST(1 AS DOUBLE PRECISION)) NOT IN (SELECT TRUE FROM t AS s))",
		"SELECT id FROM t AS a WHERE (a.id NOT IN (SELECT s.id FROM t AS s WHERE 1e400 <= s.score)) AND FALSE",
		"SELECT id FROM t AS a WHERE (a.id NOT IN (SELECT s.id FROM t AS s WHERE s.id = 1 / 0)) AND FALSE",
		"SELECT id FROM t AS a WHERE ((SELECT 1 / 0) = 1) AND FALSE",
	} {
		_, err := Parse(q, testCatalog)
		assert.NoError(t, err, q)
	}
}

// NULLIF keeps its first operand's type when PostgreSQL compares the
// operands with a cross-type = (int48eq, float48eq, ...), and takes the
// promoted type across families (difftest seed 20261224).
func TestNullIfKeepsFirstTypeWithinFamily(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"SELECT nullif(CAST(id AS INTEGER), id) FROM t", "i32"},
		{"SELECT nullif(CAST(id AS SMALLINT), id) FROM t", "i16"},
		{"SELECT nullif(CAST(score AS REAL), score) FROM t", "fp32"},
		{"SELECT nullif(id, CAST(id AS INTEGER)) FROM t", "i64"},
		{"SELECT nullif(CAST(id AS INTEGER), score) FROM t", "fp64"},
	} {
		_, root, _ := parseQuery(t, c.sql)
		got := root.RecordType().Types()[0].ShortString()
		assert.Equal(t, c.want, strings.TrimSuffix(got, "?"), c.sql)
	}
}

// Results that are all varchar(n) of one n (NULLs aside) meet at
// varchar(n), as PostgreSQL's select_common_type keeps them; mixed
// lengths, text or an untyped string meet at text, and NULLIF's operands
// stay an operator's (difftest seed 20261224).
func TestVarcharResultsKeepVarchar(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"SELECT CASE WHEN id > 0 THEN CAST('ab' AS VARCHAR(6)) END FROM t", "vchar"},
		{"SELECT CASE WHEN id > 0 THEN CAST('ab' AS VARCHAR(6)) ELSE CAST('x' AS VARCHAR(6)) END FROM t", "vchar"},
		{"SELECT greatest(CAST('ab' AS VARCHAR(6)), CAST('x' AS VARCHAR(6))) FROM t", "vchar"},
		{"SELECT CASE WHEN id > 0 THEN CAST('ab' AS VARCHAR(6)) ELSE CAST('x' AS VARCHAR(3)) END FROM t", "str"},
		{"SELECT CASE WHEN id > 0 THEN CAST('ab' AS VARCHAR(6)) ELSE 'abcdefgh' END FROM t", "str"},
		{"SELECT CASE WHEN id > 0 THEN CAST('ab' AS VARCHAR(6)) ELSE name END FROM t", "str"},
		{"SELECT nullif(CAST('ab' AS VARCHAR(6)), name) FROM t", "str"},
	} {
		_, root, _ := parseQuery(t, c.sql)
		got := root.RecordType().Types()[0].ShortString()
		assert.Equal(t, c.want, strings.TrimSuffix(got, "?"), c.sql)
	}
}

// TestCharCallsFold: a call over character(n) constants folds to a
// character(n) literal, padded, as PostgreSQL's eval_const_expressions
// folds it, so a failing cast of its value raises while planning, over
// no rows (difftest seed 20261228 case 113155).
func TestCharCallsFold(t *testing.T) {
	_, root, _ := parseQuery(t, "SELECT nullif(CAST('ab' AS CHAR(4)), CAST('x' AS CHAR(4))) FROM t")
	v, ok := literalOf(root.(*plan.ProjectRel).Expressions()[0])
	require.True(t, ok, "nullif of char(4) constants is a literal")
	assert.Equal(t, charLit{s: "ab  ", n: 4}, v)
	_, err := Parse("SELECT CAST(CAST(nullif(CAST('abc ' AS CHAR(4)), CAST('héllo' AS CHAR(4))) AS TEXT) AS DOUBLE PRECISION) FROM t WHERE FALSE", testCatalog)
	assert.ErrorIs(t, err, sqlvalue.ErrInvalidArgument)
}

// TestCharResultsTakeLiterals: character(n) results beside string
// literals meet at character(n), as select_common_type skips the
// unknown-typed literals (difftest/regressions/bpchar_untyped_results.slt:
// the CASE then compares as bpchar); a literal longer than n, or a typed
// text arm, makes the result text.
func TestCharResultsTakeLiterals(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"SELECT CASE WHEN id > 0 THEN CAST('a' AS CHAR(3)) ELSE 'bb ' END FROM t", "fchar"},
		{"SELECT coalesce(CAST(NULL AS CHAR(3)), 'z', NULL) FROM t", "fchar"},
		{"SELECT CASE WHEN id > 0 THEN CAST('a' AS CHAR(3)) ELSE 'bbbb' END FROM t", "str"},
		{"SELECT CASE WHEN id > 0 THEN CAST('a' AS CHAR(3)) ELSE name END FROM t", "str"},
		{"SELECT CASE WHEN id > 0 THEN 'a' ELSE 'bb ' END FROM t", "str"},
	} {
		_, root, _ := parseQuery(t, c.sql)
		got := root.RecordType().Types()[0].ShortString()
		assert.Equal(t, c.want, strings.TrimSuffix(got, "?"), c.sql)
	}
}
