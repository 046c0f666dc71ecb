package sql

import (
	"errors"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// TestGroupingSetsExpand: the clause's grouping sets as PostgreSQL's
// expand_grouping_sets lists them (keys numbered by first appearance).
func TestGroupingSetsExpand(t *testing.T) {
	for _, c := range []struct {
		group string
		sets  [][]int
	}{
		{"ROLLUP (id, name)", [][]int{{0, 1}, {0}, {}}},
		{"CUBE (id, name)", [][]int{{0, 1}, {0}, {1}, {}}},
		{"GROUPING SETS ((id), (name), ())", [][]int{{0}, {1}, {}}},
		{"GROUPING SETS ((id), (id))", [][]int{{0}, {0}}},
		{"id, ROLLUP (name, score)", [][]int{{0, 1, 2}, {0, 1}, {0}}},
		{"ROLLUP ((id, name), score)", [][]int{{0, 1, 2}, {0, 1}, {}}},
		{"GROUPING SETS (ROLLUP (id), CUBE (name)), score", [][]int{{0, 2}, {2}, {1, 2}, {2}}},
		{"ROLLUP (id, id)", [][]int{{0}, {0}, {}}},
		{"()", [][]int{{}}},
		{"DISTINCT ROLLUP (id), ROLLUP (id)", [][]int{{0}, {}}}, // GROUP BY DISTINCT
	} {
		q := "SELECT 1 FROM t GROUP BY " + c.group
		stmts, err := pg_query.Parse(q)
		require.NoError(t, err)
		s := stmts.Stmts[0].Stmt.GetSelectStmt()
		l, err := newLowerer(&source{orig: q, text: q}, testCatalog, segment{})
		require.NoError(t, err)
		_, sc, err := l.fromItem(s.FromClause[0])
		require.NoError(t, err)
		_, _, _, sets, multi, err := l.groupingSets(s, sc)
		require.NoError(t, err, c.group)
		assert.True(t, multi, c.group)
		for i := range sets {
			if sets[i] == nil {
				sets[i] = []int{}
			}
		}
		assert.Equal(t, c.sets, sets, c.group)
	}
}

// TestGroupingSetsLowering: several sets are one AggregateRel grouping by
// the nulled keys and the set id, over the input crossed with the set ids;
// an empty set makes the expansion a RIGHT join and gates every measure.
func TestGroupingSetsLowering(t *testing.T) {
	_, root, names := parseQuery(t, "SELECT id, name, grouping(id, name), count(*) FROM t GROUP BY ROLLUP (id, name)")
	assert.Equal(t, []string{"id", "name", "grouping", "count"}, names)
	agg, ok := root.(*plan.ProjectRel).Input().(*plan.AggregateRel)
	require.True(t, ok)
	require.Len(t, agg.GroupingReferences(), 1)
	assert.Len(t, agg.GroupingReferences()[0], 3) // id, name, set id
	require.Len(t, agg.Measures(), 1)
	fn(t, agg.Measures()[0].Filter(), "is_not_null")
	var sawRight bool
	for r := agg.Input(); r != nil; {
		if j, ok := r.(*plan.JoinRel); ok && j.Type() == plan.JoinTypeRight {
			sawRight = true
		}
		in := r.GetInputs()
		if len(in) == 0 {
			break
		}
		r = in[0]
	}
	assert.True(t, sawRight)

	_, root, _ = parseQuery(t, "SELECT id, name, count(*) FROM t GROUP BY GROUPING SETS ((id), (name))")
	agg = root.(*plan.ProjectRel).Input().(*plan.AggregateRel)
	if f := agg.Measures()[0].Filter(); f != nil {
		assert.Equal(t, "boolean(true)", f.String()) // no empty set: no gate
	}
}

// TestGroupingSetsOnlyEmpty: grouping sets that are all empty
// (GROUPING SETS ((), ())) group by the set id alone: there is no key to
// null, and the lowering built an empty projection, which Substrait
// refuses ("must provide at least one expression").
func TestGroupingSetsOnlyEmpty(t *testing.T) {
	_, root, _ := parseQuery(t, "SELECT count(*) FROM t GROUP BY GROUPING SETS ((), ())")
	agg, ok := root.(*plan.ProjectRel).Input().(*plan.AggregateRel)
	require.True(t, ok)
	require.Len(t, agg.GroupingReferences(), 1)
	assert.Len(t, agg.GroupingReferences()[0], 1) // the set id
}

// TestGroupingSetsErrors: PostgreSQL's refusals, typed.
func TestGroupingSetsErrors(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want error
	}{
		{"SELECT grouping(score) FROM t GROUP BY ROLLUP (id)", ErrInvalid},
		{"SELECT id FROM t WHERE grouping(id) = 0 GROUP BY ROLLUP (id)", ErrInvalid},
		{"SELECT grouping(id) FROM t", ErrInvalid},
		{"SELECT 1 FROM t GROUP BY CUBE (id, name, score, id, name, score, id, name, score, id, name, score, id)", ErrInvalid},
		{"SELECT 1 FROM t GROUP BY CUBE (id, name, score, _rowid), CUBE (id, name, score, _rowid), CUBE (id, name, score, _rowid), CUBE (id)", ErrInvalid},
		{"SELECT id, score FROM t GROUP BY ROLLUP (id)", ErrInvalid},
	} {
		_, err := Parse(c.sql, testCatalog)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.sql, err, c.want)
		}
	}
}

// TestGroupingSetsConstantKey: over grouping sets a constant SELECT item
// that is a key reads the key's column (NULL in the sets without it, as
// PostgreSQL's grouped Var), not its constant value.
func TestGroupingSetsConstantKey(t *testing.T) {
	_, root, _ := parseQuery(t, "SELECT 10, count(*) FROM t GROUP BY ROLLUP (1)")
	proj := root.(*plan.ProjectRel)
	_, ok := proj.Expressions()[0].(*expr.FieldReference)
	assert.True(t, ok, "%s", proj.Expressions()[0])
}

// TestGroupingSetsTargetKeys: a GROUP BY item binds to a SELECT-list item
// (a position to its item, an expression to the first item equal to it),
// and each item so bound is a key of its own, as PostgreSQL's
// ressortgroupref: SELECT name, name ... GROUPING SETS ((name), (2), ())
// has two keys, and each item reads its own, so a set without one nulls
// that item only (difftest seed 20261229 case 73676). An expression that
// is no key item reads the first item's key in SELECT order; GROUPING the
// first key in GROUP BY order.
func TestGroupingSetsTargetKeys(t *testing.T) {
	for _, c := range []struct {
		sql   string
		cols  []int32 // the Project's field per output (-1: not a field)
		names []string
	}{
		{"SELECT name, name FROM t GROUP BY GROUPING SETS ((name), (2), ())", []int32{0, 1}, nil},
		{"SELECT name, name FROM t GROUP BY GROUPING SETS ((2), (1), ())", []int32{1, 0}, nil},
		{"SELECT name AS x, name AS y FROM t GROUP BY GROUPING SETS (2, name)", []int32{1, 0}, []string{"x", "y"}},
		{"SELECT name, name FROM t GROUP BY ROLLUP (1, 2)", []int32{0, 1}, nil},
		// One key: the second item is no key and reads the first's.
		{"SELECT name, name FROM t GROUP BY GROUPING SETS ((name), ())", []int32{0, 0}, nil},
		{"SELECT name, name FROM t GROUP BY GROUPING SETS (2, ())", []int32{0, 0}, nil},
		// name in the third item is the first name item's key (1).
		{"SELECT id, name, name FROM t GROUP BY GROUPING SETS ((3), (2), (id))", []int32{2, 1, 0}, nil},
	} {
		_, root, names := parseQuery(t, c.sql)
		if c.names != nil {
			assert.Equal(t, c.names, names, c.sql)
		}
		proj, ok := root.(*plan.ProjectRel)
		require.True(t, ok, "%s: root %T", c.sql, root)
		n := proj.Input().RecordType().FieldCount()
		var got []int32
		for _, m := range proj.OutputMapping() {
			f := int32(m)
			if f >= n {
				got = append(got, fieldIndex(t, proj.Expressions()[f-n]))
			} else {
				got = append(got, f)
			}
		}
		assert.Equal(t, c.cols, got, c.sql)
	}
	// ORDER BY a name two equal items carry is not ambiguous
	// (findTargetlistEntrySQL92 compares the items' expressions).
	_, err := Parse("SELECT name, name FROM t GROUP BY CUBE (1, 2) ORDER BY name", testCatalog)
	assert.NoError(t, err)
}

// TestSameSyntax: two parse trees are the same but for their locations;
// CASE WHEN TRUE THEN id END is not id, though it lowers to it
// (groupingKey tells GROUPING's arguments apart by it).
func TestSameSyntax(t *testing.T) {
	val := func(q string) *pg_query.Node {
		stmts, err := pg_query.Parse(q)
		require.NoError(t, err)
		return stmts.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().GetVal()
	}
	assert.True(t, sameSyntax(val("SELECT CASE WHEN TRUE THEN id END"), val("SELECT   CASE WHEN TRUE THEN id END FROM t")))
	assert.True(t, sameSyntax(val("SELECT a.id"), val("SELECT  a.id")))
	assert.False(t, sameSyntax(val("SELECT CASE WHEN TRUE THEN id END"), val("SELECT id")))
	assert.False(t, sameSyntax(val("SELECT a.id"), val("SELECT id")))
	assert.False(t, sameSyntax(nil, val("SELECT id")))
}
