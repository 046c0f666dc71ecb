package sql

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/internal/substraitfn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// TestWindowLowering: window calls become one ProjectRel of window
// functions over the FROM record (re-read by substrait-go), a named window
// and OVER (w ...) resolve as PostgreSQL resolves them, and the frames'
// bounds are Substrait's.
func TestWindowLowering(t *testing.T) {
	_, root, names := parseQuery(t, `SELECT id, rank() OVER w, sum(id) OVER (w ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING),
	  lag(score, 1, 0) OVER (PARTITION BY name) FROM t WINDOW w AS (PARTITION BY name ORDER BY score DESC)`)
	assert.Equal(t, []string{"id", "rank", "sum", "lag"}, names)
	proj, ok := root.(*plan.ProjectRel)
	require.True(t, ok, "root %T", root)
	win, ok := proj.Input().(*plan.ProjectRel)
	require.True(t, ok, "window projection %T", proj.Input())
	exprs := win.Expressions()
	require.Len(t, exprs, 3)
	rank, ok := exprs[0].(*expr.WindowFunction)
	require.True(t, ok)
	assert.Equal(t, "rank", rank.Name())
	require.Len(t, rank.Partitions, 1)
	assert.Equal(t, int32(1), fieldIndex(t, rank.Partitions[0]))
	require.Len(t, rank.Sorts, 1)
	assert.Equal(t, types.SortDescNullsFirst, rank.Sorts[0].Kind)
	assert.Equal(t, substraitpb.Expression_WindowFunction_BOUNDS_TYPE_RANGE, rank.BoundsType)
	assert.Equal(t, expr.Unbounded{}, rank.LowerBound)
	assert.Equal(t, expr.CurrentRow{}, rank.UpperBound)

	sum := exprs[1].(*expr.WindowFunction)
	assert.Equal(t, "sum", sum.Name())
	assert.Equal(t, "i64?", typeList([]types.Type{sum.GetType()}))
	assert.Equal(t, substraitpb.Expression_WindowFunction_BOUNDS_TYPE_ROWS, sum.BoundsType)
	assert.Equal(t, expr.PrecedingBound(2), sum.LowerBound)
	assert.Equal(t, expr.FollowingBound(1), sum.UpperBound)
	require.Len(t, sum.Sorts, 1, "OVER (w ...) copies w's ORDER BY")

	lag := exprs[2].(*expr.WindowFunction)
	require.Equal(t, 3, lag.NArgs())
	assert.Equal(t, "fp64?", typeList([]types.Type{lag.GetType()}), "the default takes the value's type")
	assert.Empty(t, lag.Sorts)

	// RANGE over a date: the interval's days.
	cat := fakeCatalog{"dated": {{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true}}}
	stmts, err := Parse("SELECT count(*) OVER (ORDER BY d RANGE BETWEEN '1 week' PRECEDING AND INTERVAL '2' DAY FOLLOWING) FROM dated", cat)
	require.NoError(t, err)
	root, _ = reread(t, stmts[0].(*Query).Plan)
	wf := root.(*plan.ProjectRel).Input().(*plan.ProjectRel).Expressions()[0].(*expr.WindowFunction)
	assert.Equal(t, expr.PrecedingBound(7), wf.LowerBound)
	assert.Equal(t, expr.FollowingBound(2), wf.UpperBound)
}

// TestWindowErrors: PostgreSQL's errors (and their kinds) where window
// functions may not stand, for frames it refuses, and the constructs
// Substrait cannot carry, refused by name.
func TestWindowErrors(t *testing.T) {
	for _, c := range []struct {
		sql, msg string
		kind     error
	}{
		{"SELECT id FROM t WHERE rank() OVER () > 1", "window functions are not allowed in WHERE", ErrInvalid},
		{"SELECT name FROM t GROUP BY name HAVING rank() OVER () > 1", "window functions are not allowed in HAVING", ErrInvalid},
		{"SELECT name FROM t GROUP BY rank() OVER ()", "window functions are not allowed in GROUP BY", ErrInvalid},
		{"SELECT sum(rank() OVER ()) OVER () FROM t", "window function calls cannot be nested", ErrInvalid},
		{"SELECT sum(rank() OVER ()) FROM t", "aggregate function calls cannot contain window function calls", ErrInvalid},
		{"SELECT rank() OVER (ORDER BY rank() OVER ()) FROM t", "window functions are not allowed in window definitions", ErrInvalid},
		{"SELECT rank() OVER w FROM t", `window "w" does not exist`, ErrInvalid},
		{"SELECT rank() OVER (w PARTITION BY id) FROM t WINDOW w AS (ORDER BY id)", `cannot override PARTITION BY clause of window "w"`, ErrInvalid},
		{"SELECT rank() OVER (w ORDER BY id) FROM t WINDOW w AS (ORDER BY id)", `cannot override ORDER BY clause of window "w"`, ErrInvalid},
		{"SELECT rank() OVER (w) FROM t WINDOW w AS (ORDER BY id ROWS 1 PRECEDING)", `cannot copy window "w" because it has a frame clause`, ErrInvalid},
		{"SELECT sum(id) OVER (ORDER BY id, score RANGE 1 PRECEDING) FROM t", "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column", ErrInvalid},
		{"SELECT sum(id) OVER (ORDER BY id ROWS BETWEEN -1 PRECEDING AND CURRENT ROW) FROM t", "frame starting offset must not be negative", ErrInvalid},
		{"SELECT sum(id) OVER (ORDER BY id ROWS BETWEEN NULL PRECEDING AND CURRENT ROW) FROM t", "frame starting offset must not be null", ErrInvalid},
		{"SELECT upper(name) OVER () FROM t", "OVER specified, but upper is not a window function nor an aggregate function", ErrInvalid},
		{"SELECT ntile(id) OVER () FROM t", "", ErrType},
		{"SELECT sum(DISTINCT id) OVER () FROM t", "DISTINCT is not implemented for window functions", ErrUnsupported},
		{"SELECT sum(id) OVER (GROUPS 1 PRECEDING) FROM t", "GROUPS mode requires an ORDER BY clause", ErrInvalid},
		{"SELECT sum(id) OVER (ORDER BY name RANGE 1 PRECEDING) FROM t", "not supported for column type", ErrUnsupported},
		{"SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY id) OVER () FROM t", "percentile_cont as a window function", ErrUnsupported},
		{"SELECT bit_and(name) OVER () FROM t", "bit_and", ErrType},
		{"SELECT every(id) OVER () FROM t", "bool_and", ErrType},
		{"SELECT string_agg(name, ',' ORDER BY id) OVER () FROM t", "aggregate ORDER BY is not implemented for window functions", ErrUnsupported},
		{"SELECT count(*) OVER (ORDER BY d RANGE '1 month' PRECEDING) FROM dated", "RANGE offset of months over a date", ErrUnsupported},
		{"SELECT count(*) OVER (ORDER BY d RANGE 1 PRECEDING) FROM dated", "not supported for column type date", ErrInvalid},
		{"SELECT count(*) OVER (ORDER BY d RANGE '-1 day' PRECEDING) FROM dated", "invalid preceding or following size in window function", ErrInvalid},
	} {
		cat := fakeCatalog{"t": testCatalog["t"], "dated": {{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true}}}
		_, err := Parse(c.sql, cat)
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %v %q", c.sql, err, c.kind, c.msg)
		}
	}
}

// TestWindowExcludeOption: a frame's EXCLUDE travels as stablerow's
// window function option stablerow.frame_exclude (Substrait has no
// exclusion), read back after substrait-go re-reads the plan; EXCLUDE NO
// OTHERS is the default, no option. It was refused as "frame EXCLUDE".
func TestWindowExcludeOption(t *testing.T) {
	for q, want := range map[string]int{
		"SELECT sum(id) OVER (ORDER BY id ROWS 1 PRECEDING EXCLUDE CURRENT ROW) FROM t":                       1,
		"SELECT max(id) OVER (ORDER BY score RANGE BETWEEN 1 PRECEDING AND 2 FOLLOWING EXCLUDE GROUP) FROM t": 2,
		"SELECT first_value(id) OVER (ORDER BY id GROUPS 1 PRECEDING EXCLUDE TIES) FROM t":                    3,
		"SELECT count(*) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING EXCLUDE NO OTHERS) FROM t":                0,
	} {
		_, root, _ := parseQuery(t, q)
		wf := root.(*plan.ProjectRel).Input().(*plan.ProjectRel).Expressions()[0].(*expr.WindowFunction)
		got, err := substraitfn.FrameExcludeOf(wf.GetOptions())
		require.NoError(t, err, q)
		assert.Equal(t, want, got, q)
	}
}

// TestLagDefaultCommonType: lag and lead are (anycompatible, integer,
// anycompatible) in PostgreSQL 15, so the value and the default meet at
// their common type: lag(id, 1, bigint) of an integer id is bigint, and a
// string default beside an integer is read as an integer (and fails as
// one). difftest seed 20261225 case 4382 raised "bigint value where
// integer is expected".
func TestLagDefaultCommonType(t *testing.T) {
	cat := fakeCatalog{"n": {{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true}}}
	for q, want := range map[string]string{
		"SELECT lead(i, 3, CAST(7 AS BIGINT)) OVER (ORDER BY i) FROM n": "i64?",
		"SELECT lag(i, 1, 7) OVER () FROM n":                            "i32?",
		"SELECT lag(i, 1, 1.5) OVER () FROM n":                          "decimal?",
		"SELECT lag(CAST(i AS BIGINT), 1, i) OVER () FROM n":            "i64?",
	} {
		stmts, err := Parse(q, cat)
		require.NoError(t, err, q)
		root, _ := reread(t, stmts[0].(*Query).Plan)
		wf := root.(*plan.ProjectRel).Input().(*plan.ProjectRel).Expressions()[0].(*expr.WindowFunction)
		assert.True(t, strings.HasPrefix(typeList([]types.Type{wf.GetType()}), want), "%s: %s", q, typeList([]types.Type{wf.GetType()}))
	}
	_, err := Parse("SELECT lag(i, 1, 'abc') OVER () FROM n", cat)
	require.Error(t, err)
}

// TestWindowAggregates: every aggregate PostgreSQL evaluates over a
// window lowers to a window function of GROUP BY's name and result type:
// the statistics to Substrait's std_dev and variance with the
// distribution option (stddev and variance the sample forms), every to
// bool_and, bit_and and bit_or keep the argument's type, string_agg
// reads its literal delimiter as text. Before, each was "unsupported: x
// as a window function" (every, bit_and, bit_or: not an aggregate).
func TestWindowAggregates(t *testing.T) {
	cat := fakeCatalog{"t": testCatalog["t"], "u": testCatalog["u"]}
	for _, c := range []struct{ sql, name, dist, typ string }{
		{"SELECT stddev(id) OVER () FROM t", "std_dev", "SAMPLE", "decimal?<38,20>"},
		{"SELECT stddev_samp(score) OVER (ORDER BY id) FROM t", "std_dev", "SAMPLE", "fp64?"},
		{"SELECT stddev_pop(score) OVER () FROM t", "std_dev", "POPULATION", "fp64?"},
		{"SELECT variance(id) OVER (ORDER BY id ROWS 2 PRECEDING) FROM t", "variance", "SAMPLE", "decimal?<38,20>"},
		{"SELECT var_samp(score) OVER () FROM t", "variance", "SAMPLE", "fp64?"},
		{"SELECT var_pop(id) OVER () FROM t", "variance", "POPULATION", "decimal?<38,20>"},
		{"SELECT bool_and(flag) OVER () FROM u", "bool_and", "", "boolean?"},
		{"SELECT every(flag) OVER (ORDER BY id) FROM u", "bool_and", "", "boolean?"},
		{"SELECT bool_or(flag) FILTER (WHERE id > 1) OVER () FROM u", "bool_or", "", "boolean?"},
		{"SELECT bit_and(id) OVER () FROM t", "bit_and", "", "i64?"},
		{"SELECT bit_or(id) OVER () FROM u", "bit_or", "", "i64?"},
		{"SELECT string_agg(name, ',') OVER (ORDER BY id) FROM t", "string_agg", "", "string?"},
	} {
		stmts, err := Parse(c.sql, cat)
		require.NoError(t, err, c.sql)
		root, _ := reread(t, stmts[0].(*Query).Plan)
		wf := root.(*plan.ProjectRel).Input().(*plan.ProjectRel).Expressions()[0].(*expr.WindowFunction)
		assert.Equal(t, c.name, wf.Name(), c.sql)
		assert.Equal(t, c.typ, typeList([]types.Type{wf.GetType()}), c.sql)
		var dist string
		for _, o := range wf.GetOptions() {
			if o.Name == "distribution" && len(o.Preference) > 0 {
				dist = o.Preference[0]
			}
		}
		assert.Equal(t, c.dist, dist, c.sql)
	}
	// every and bit_and as GROUP BY aggregates.
	for q, name := range map[string]string{"SELECT every(flag) FROM u": "bool_and", "SELECT bit_or(id) FROM u": "bit_or"} {
		stmts, err := Parse(q, cat)
		require.NoError(t, err, q)
		require.Contains(t, stmts[0].(*Query).Plan.String(), name, q)
	}
}

// TestAggregateUnknownArgument: an untyped NULL or string literal argument
// of bool_and, bool_or and every is boolean, of the statistics double
// precision, in GROUP BY and over a window, as PostgreSQL's
// func_select_candidate resolves type unknown; before, it was text and
// the call had no signature.
func TestAggregateUnknownArgument(t *testing.T) {
	cat := fakeCatalog{"t": testCatalog["t"]}
	for q, want := range map[string]string{
		"SELECT bool_and(NULL) OVER () FROM t": "boolean?",
		"SELECT every('t') OVER () FROM t":     "boolean?",
		"SELECT stddev(NULL) OVER () FROM t":   "fp64?",
		"SELECT var_pop('2.5') OVER () FROM t": "fp64?",
		"SELECT bool_or(NULL) FROM t":          "boolean?",
		"SELECT variance('1') FROM t":          "fp64?",
	} {
		stmts, err := Parse(q, cat)
		require.NoError(t, err, q)
		root, _ := reread(t, stmts[0].(*Query).Plan)
		typs := root.RecordType().Types()
		assert.Equal(t, want, typeList(typs[len(typs)-1:]), q)
	}
}
