package sql

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"

	sqlvalue "github.com/stablerow/stablerow/value"
)

// A top WHERE conjunct that reads no column is PostgreSQL's gating qual,
// evaluated once before any row: it raises over no rows, stable casts
// included, and a NULL or FALSE one empties the filter so the other
// conjuncts never see a row (seed 20261214); a subquery's is left to run
// with it.
func TestGatingQualsOfTheTopWhere(t *testing.T) {
	_, err := Parse("SELECT 3 FROM t AS a WHERE (CAST(-10 AS BIGINT) = CAST(CAST(TIMESTAMP '2023-12-31' AS TEXT) AS BIGINT))", testCatalog)
	assert.ErrorIs(t, err, sqlvalue.ErrInvalidArgument)
	_, err = Parse("SELECT 3 FROM t AS a WHERE a.id > 1 AND CAST(CAST(DATE '2023-12-31' AS TEXT) AS DOUBLE PRECISION) = 1", testCatalog)
	assert.ErrorIs(t, err, sqlvalue.ErrInvalidArgument)

	for _, sql := range []string{
		"SELECT CAST(-1 AS SMALLINT) FROM t AS a WHERE (mod(a.id, a.id) < CAST(4294967296 AS BIGINT)) GROUP BY 1 HAVING (CAST(NULL AS DOUBLE PRECISION) = CAST(NULL AS DOUBLE PRECISION))",
		"SELECT id FROM t AS a WHERE mod(a.id, a.id) = 1 AND CAST(NULL AS BOOLEAN)",
		"SELECT id FROM t AS a WHERE mod(a.id, a.id) = 1 AND CAST(CAST(DATE '2023-12-31' AS TEXT) AS DATE) > DATE '2024-01-01'",
	} {
		_, root, _ := parseQuery(t, sql)
		filters := filtersOf(root)
		require.NotEmpty(t, filters, sql)
		for _, f := range filters {
			assert.True(t, constFalse(f.Condition()), "%s: filter %v", sql, f.Condition())
		}
	}
	// In a subquery it is left to run as often as the subquery does.
	_, err = Parse("SELECT id FROM t AS a WHERE EXISTS (SELECT 1 FROM t AS s WHERE s.id = a.id AND CAST(CAST(DATE '2023-12-31' AS TEXT) AS DOUBLE PRECISION) = 1)", testCatalog)
	assert.NoError(t, err)
}

// Under LIMIT 0 the query never starts (ExecLimit returns at once for an
// empty window), so its gating quals are not evaluated while planning:
// the stable cast that raises under LIMIT 1 plans under LIMIT 0, also
// over a UNION's arms (seed 20261222 case 57522).
func TestLimitZeroStartsNoGatingQual(t *testing.T) {
	const where = " FROM t AS a WHERE CAST('0.1' AS DOUBLE PRECISION) = CAST(CAST(DATE '1970-01-01' AS TEXT) AS DOUBLE PRECISION)"
	_, err := Parse("SELECT DISTINCT a.id"+where+" ORDER BY 1 LIMIT 0", testCatalog)
	assert.NoError(t, err)
	_, err = Parse("(SELECT a.id"+where+") UNION ALL (SELECT 3) LIMIT 0", testCatalog)
	assert.NoError(t, err)
	_, err = Parse("SELECT a.id"+where+" LIMIT 1", testCatalog)
	assert.ErrorIs(t, err, sqlvalue.ErrInvalidArgument)
}

// NULL [NOT] IN (a, b) with two options that read no column, one of them
// a stable cast, is PostgreSQL's unfolded ScalarArrayOpExpr: evaluated,
// it raises though the value is NULL (here as a gating qual); a lone
// option, or options of constants, fold to NULL (seed 20261222 case
// 25282).
func TestNullInArrayOfStableOptionsIsEvaluated(t *testing.T) {
	_, err := Parse("SELECT count(*) FROM t AS a WHERE CAST(NULL AS BIGINT) NOT IN (CAST(CAST(DATE '1970-01-01' AS TEXT) AS BIGINT), CAST(-2147483648 AS BIGINT))", testCatalog)
	assert.ErrorIs(t, err, sqlvalue.ErrInvalidArgument)
	for _, sql := range []string{
		"SELECT count(*) FROM t AS a WHERE CAST(NULL AS BIGINT) NOT IN (CAST(CAST(DATE '1970-01-01' AS TEXT) AS BIGINT))",
		"SELECT count(*) FROM t AS a WHERE CAST(NULL AS BIGINT) IN (1, 2)",
	} {
		_, root, _ := parseQuery(t, sql)
		assert.GreaterOrEqual(t, falseFilters(root), 1, sql)
	}
}

// A comparison of a column of one FROM item with a stable cast that
// raises raises while planning: PostgreSQL's selectivity estimate folds
// the cast (estimate_expression_value), also over no rows; under CASE,
// over two items' columns or in the select list it is not estimated
// (difftest seed 20261223 case 10858).
func TestEstimatedQualsRaiseWhilePlanning(t *testing.T) {
	const bad = "CAST(CAST(DATE '1999-12-31' AS TEXT) AS BIGINT)"
	for _, sql := range []string{
		"SELECT 1 FROM t AS a WHERE a.id = " + bad + " GROUP BY a.name",
		"SELECT 1 FROM t AS a WHERE a.id IN (1, " + bad + ")",
		"SELECT 1 FROM t AS a WHERE a.id < 3 OR NOT (a.id + 1 >= " + bad + ")",
		"SELECT 1 FROM t AS a LEFT JOIN t AS b ON a.id = " + bad,
		"SELECT 1 FROM t AS a WHERE a.id = " + bad + " LIMIT 0",
		// A DistinctExpr is estimated as = (seed 20261231 case 33922).
		"SELECT 1 FROM t AS a WHERE " + bad + " IS NOT DISTINCT FROM a.id",
		"SELECT 1 FROM t AS a WHERE a.id IS DISTINCT FROM " + bad,
	} {
		_, err := Parse(sql, testCatalog)
		assert.ErrorIs(t, err, sqlvalue.ErrInvalidArgument, sql)
	}
	for _, sql := range []string{
		"SELECT 1 FROM t AS a WHERE CASE WHEN a.id = " + bad + " THEN true END",
		"SELECT 1 FROM t AS a, t AS b WHERE a.id + b.id = " + bad,
		"SELECT 1 FROM t AS a WHERE false AND a.id = " + bad,
		"SELECT " + bad + " = id FROM t",
	} {
		_, err := Parse(sql, testCatalog)
		assert.NoError(t, err, sql)
	}
}

// NULL NOT IN (a stable cast, an option over a column, another stable
// cast) is (NULL <> ALL (the casts)) AND NULL, as PostgreSQL's parser
// splits the options with columns off the array and folds them to NULL:
// the top WHERE's NULL conjunct empties the filter while planning, and
// the option over the column is never evaluated (difftest seed 20261224).
func TestNullNotInSplitsColumnOptions(t *testing.T) {
	_, root, _ := parseQuery(t, "SELECT id FROM t AS a WHERE CAST(NULL AS TEXT) NOT IN (CAST(TIMESTAMP '2024-02-29 00:00:00' AS TEXT), CAST(a.score / 0.1 AS TEXT), CAST(DATE '2024-01-05' AS TEXT))")
	filters := filtersOf(root)
	require.NotEmpty(t, filters)
	for _, f := range filters {
		assert.True(t, constFalse(f.Condition()), "filter %v", f.Condition())
	}
}

// filtersOf is every filter relation under root.
func filtersOf(root plan.Rel) []*plan.FilterRel {
	var filters []*plan.FilterRel
	var walk func(r plan.Rel)
	walk = func(r plan.Rel) {
		if f, ok := r.(*plan.FilterRel); ok {
			filters = append(filters, f)
		}
		for _, in := range r.GetInputs() {
			walk(in)
		}
	}
	walk(root)
	return filters
}

// In a WHERE, an AND with a constant NULL is FALSE and an OR drops it
// (canonicalize_qual's find_duplicate_ors): the split NULL NOT IN's array
// is never built, also under an OR (difftest seed 20261224).
func TestWhereReducesNullConjuncts(t *testing.T) {
	_, root, _ := parseQuery(t, "SELECT id FROM t AS a WHERE (CAST(NULL AS BIGINT) NOT IN (a.id, CAST(CAST(TIMESTAMP '1969-12-31 23:59:59' AS TEXT) AS BIGINT), 5)) OR a.id = 3")
	filters := filtersOf(root)
	require.Len(t, filters, 1)
	f, ok := filters[0].Condition().(*expr.ScalarFunction)
	require.True(t, ok, "%v", filters[0].Condition())
	assert.Equal(t, "equal", baseName(f.Name()), "the OR keeps only a.id = 3: %v", f)
}
