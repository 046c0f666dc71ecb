package sql

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/plan"

	sqlvalue "github.com/stablerow/stablerow/value"
)

// numericCatalog has a numeric(8,2) column, the target of the assignment
// casts below.
var numericCatalog = fakeCatalog{
	"n": {
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "c0", Type: &arrow.Decimal128Type{Precision: 8, Scale: 2}, Nullable: true},
	},
	"t": testCatalog["t"],
}

// The assignment cast of a constant INSERT ... SELECT item or UPDATE SET
// value raises while planning, also when no row is written, as
// PostgreSQL's eval_const_expressions folds it after pull_up_subqueries
// put the item under the cast; the item is a constant call, not only a
// literal (difftest seed 1 case 2780). Not under ORDER BY (no pull-up),
// nor over a column.
func TestAssignmentCastOfConstantCallFolds(t *testing.T) {
	const item = "round(CAST('123456.78' AS NUMERIC(8,2)), 2) - CAST(2147483647 AS INTEGER)"
	for _, q := range []string{
		"INSERT INTO n SELECT g.g, " + item + " FROM generate_series(1, -1) AS g(g)",
		"INSERT INTO n (c0, k) SELECT " + item + ", 1 FROM t WHERE FALSE",
		"UPDATE n SET c0 = " + item + " WHERE FALSE",
	} {
		_, err := Parse(q, numericCatalog)
		assert.ErrorIs(t, err, sqlvalue.ErrOutOfRange, q)
	}
	for _, q := range []string{
		"INSERT INTO n SELECT g.g, " + item + " FROM generate_series(1, -1) AS g(g) ORDER BY 1",
		"INSERT INTO n SELECT g.g, " + item + " + g.g FROM generate_series(1, -1) AS g(g)",
		"INSERT INTO n SELECT g.g, round(CAST('12345.67' AS NUMERIC(8,2)), 1) FROM generate_series(1, -1) AS g(g)",
	} {
		_, err := Parse(q, numericCatalog)
		assert.NoError(t, err, q)
	}
}

// round, trunc, floor and ceil of a numeric constant are their values in
// the plan (numeric_round and the others are immutable), so a CASE
// condition over one is decided while planning and the arm it drops is
// never evaluated, as in PostgreSQL.
func TestNumericRoundingOfConstantsFolds(t *testing.T) {
	_, root, _ := parseQuery(t, "SELECT round(CAST('123456.78' AS NUMERIC(8,2)), 1), trunc(2.59, 1), floor(-2.5), ceil(2.1) FROM t")
	es := root.(*plan.ProjectRel).Expressions()
	require.Len(t, es, 4)
	for i, want := range []string{"123456.8", "2.5", "-3", "3"} {
		lit, ok := literalOf(es[i])
		require.True(t, ok, "item %d is not a constant: %v", i, es[i])
		d := lit.(decLit)
		assert.Equal(t, want, d.v.ToString(d.s), "item %d", i)
	}
	_, err := Parse("SELECT CASE WHEN round(1.5) > 1 THEN 1 ELSE 1 / 0 END FROM t", testCatalog)
	assert.NoError(t, err)
}
