package sql

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
)

// TestDistinctOnLowering: DISTINCT ON is a filter of row_number() = 1
// over a window partitioned by the keys and ordered by the ORDER BY items
// after them, under the ORDER BY's own sort (distinct_on.go).
func TestDistinctOnLowering(t *testing.T) {
	_, root, names := parseQuery(t, `SELECT DISTINCT ON (name) name, id FROM t ORDER BY name, score DESC, id`)
	assert.Equal(t, []string{"name", "id"}, names)
	// Sort <- Project over the filter: every sort key is an output but
	// score, so the sort is under the projection.
	proj, ok := root.(*plan.ProjectRel)
	require.True(t, ok, "root %T", root)
	sort, ok := proj.Input().(*plan.SortRel)
	require.True(t, ok, "%T", proj.Input())
	require.Len(t, sort.Sorts(), 3)
	filter, ok := sort.Input().(*plan.FilterRel)
	require.True(t, ok, "%T", sort.Input())
	eq := fn(t, filter.Condition(), "equal")
	win, ok := filter.Input().(*plan.ProjectRel)
	require.True(t, ok, "%T", filter.Input())
	require.Len(t, win.Expressions(), 1)
	rn, ok := win.Expressions()[0].(*expr.WindowFunction)
	require.True(t, ok)
	assert.Equal(t, "row_number", rn.Name())
	// t: id 0, name 1, score 2; the window's column follows t's fields.
	require.Len(t, rn.Partitions, 1)
	assert.Equal(t, int32(1), fieldIndex(t, rn.Partitions[0]))
	require.Len(t, rn.Sorts, 2, "the key is constant in its partition: not a window sort key")
	assert.Equal(t, int32(2), fieldIndex(t, rn.Sorts[0].Expr))
	assert.Equal(t, types.SortDescNullsFirst, rn.Sorts[0].Kind)
	assert.Equal(t, int32(0), fieldIndex(t, rn.Sorts[1].Expr))
	assert.Equal(t, win.RecordType().FieldCount()-1, fieldIndex(t, eq.Arg(0).(expr.Expression)))
	lit, ok := literalOf(eq.Arg(1).(expr.Expression))
	require.True(t, ok)
	assert.Equal(t, int64(1), lit)
}

// TestDistinctOnOrderRule: transformDistinctOnClause's rule, which ORDER
// BY lists go with which DISTINCT ON keys.
func TestDistinctOnOrderRule(t *testing.T) {
	for _, q := range []string{
		"SELECT DISTINCT ON (id) id FROM t",
		"SELECT DISTINCT ON (id, name) id FROM t ORDER BY name, id, score",
		"SELECT DISTINCT ON (id, name) id FROM t ORDER BY name DESC", // id is added after: allowed
		"SELECT DISTINCT ON (1) id AS k FROM t ORDER BY k, name",
		"SELECT DISTINCT ON (id + 1) id FROM t ORDER BY id + 1, name",
		"SELECT DISTINCT ON (id) id FROM t ORDER BY id, name, id", // the second id is the first
		"SELECT DISTINCT ON (id, id) id FROM t ORDER BY id, name",
		"SELECT DISTINCT ON (CAST('NaN' AS REAL)) id FROM t ORDER BY CAST('NaN' AS REAL), id", // equal() compares constants' bits
	} {
		_, err := Parse(q, testCatalog)
		assert.NoError(t, err, q)
	}
	for _, q := range []string{
		"SELECT DISTINCT ON (id) id FROM t ORDER BY name",
		"SELECT DISTINCT ON (id, name) id FROM t ORDER BY name, score, id",
		"SELECT DISTINCT ON (id) id FROM t ORDER BY name, id",
		"SELECT DISTINCT ON (id + 1) id FROM t ORDER BY id, name",
	} {
		_, err := Parse(q, testCatalog)
		assert.ErrorIs(t, err, ErrInvalidColumnReference, q)
		assert.ErrorContains(t, err, "SELECT DISTINCT ON expressions must match initial ORDER BY expressions", q)
	}
}

// TestDistinctOnVariadicKeys: DISTINCT ON, ORDER BY and select items that
// are the same variadic call with different argument counts
// (coalesce(a, a) against coalesce(a, a, b)) are different expressions,
// compared without a panic (sameexpr.go; difftest seed 20261229 case
// 97210 raised an internal error).
func TestDistinctOnVariadicKeys(t *testing.T) {
	for _, q := range []string{
		"SELECT DISTINCT ON (coalesce(score, score)) coalesce(score, score, CAST('-0' AS REAL)) FROM t ORDER BY coalesce(score, score) DESC, id",
		"SELECT DISTINCT ON (coalesce(score, score, 1)) coalesce(score, score) FROM t ORDER BY coalesce(score, score, 1) NULLS FIRST, coalesce(score, score)",
		"SELECT DISTINCT ON (coalesce(id, id)) coalesce(id, id, 2), coalesce(id, id) FROM t ORDER BY 2 DESC NULLS LAST, coalesce(id, id, 2)",
		"SELECT DISTINCT ON (2) coalesce(id, 1, 2), coalesce(id, 1) FROM t ORDER BY coalesce(id, 1), coalesce(id, 1, 2) DESC",
		"SELECT coalesce(id, id), coalesce(id, id, 3) FROM t GROUP BY coalesce(id, id, 3), coalesce(id, id) ORDER BY coalesce(id, id, 3)",
	} {
		_, err := Parse(q, testCatalog)
		assert.NoError(t, err, q)
	}
	// The longer call is no DISTINCT ON key: the rule's error, not a panic.
	_, err := Parse("SELECT DISTINCT ON (coalesce(score, score)) score FROM t ORDER BY coalesce(score, score, 1), coalesce(score, score)", testCatalog)
	assert.ErrorIs(t, err, ErrInvalidColumnReference)
}
