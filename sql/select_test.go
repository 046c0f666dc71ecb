package sql

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	"google.golang.org/protobuf/types/known/structpb"

	sqlvalue "github.com/stablerow/stablerow/value"
)

// fieldIndex returns the struct field a root field reference points at.
func fieldIndex(t *testing.T, e expr.Expression) int32 {
	t.Helper()
	f, ok := e.(*expr.FieldReference)
	require.True(t, ok, "not a field reference: %v", e)
	sf, ok := f.Reference.(*expr.StructFieldRef)
	require.True(t, ok)
	return sf.Field
}

func detailOf(t *testing.T, r plan.Rel) map[string]any {
	t.Helper()
	ext, ok := r.(*plan.ExtensionTableReadRel)
	require.True(t, ok, "not an extension table: %T", r)
	var st structpb.Struct
	require.NoError(t, ext.Detail().UnmarshalTo(&st))
	return st.AsMap()
}

func TestSeedQuery(t *testing.T) {
	q, root, names := parseQuery(t, `SELECT v.ord, t._rowaddr
FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord)
LEFT JOIN t ON t._rowid = v.rowid
ORDER BY v.ord`)
	assert.Equal(t, []string{"ids"}, q.ParamNames)
	assert.Equal(t, []string{"ord", "_rowaddr"}, names)

	sort, ok := root.(*plan.SortRel)
	require.True(t, ok, "root %T", root)
	require.Len(t, sort.Sorts(), 1)
	assert.Equal(t, int32(0), fieldIndex(t, sort.Sorts()[0].Expr))
	assert.Equal(t, types.SortAscNullsLast, sort.Sorts()[0].Kind)

	proj, ok := sort.Input().(*plan.ProjectRel)
	require.True(t, ok)
	require.Len(t, proj.Expressions(), 2)
	// Join record: v.rowid 0, v.ord 1, t.id 2, t.name 3, t.score 4, t._rowid 5, t._rowaddr 6.
	assert.Equal(t, int32(1), fieldIndex(t, proj.Expressions()[0]))
	assert.Equal(t, int32(6), fieldIndex(t, proj.Expressions()[1]))
	assert.Equal(t, []int32{7, 8}, proj.OutputMapping())

	join, ok := proj.Input().(*plan.JoinRel)
	require.True(t, ok)
	assert.Equal(t, plan.JoinTypeLeft, join.Type())
	cond, ok := join.Expr().(*expr.ScalarFunction)
	require.True(t, ok)
	assert.Equal(t, "equal", cond.Name())
	assert.Equal(t, int32(0), fieldIndex(t, cond.Arg(0).(expr.Expression)))
	assert.Equal(t, int32(5), fieldIndex(t, cond.Arg(1).(expr.Expression)))

	d := detailOf(t, join.Left())
	assert.Equal(t, map[string]any{"relation": "stablerow.unnest", "param": 1.0, "element_type": "i64", "ordinality": true}, d)
	bs := join.Left().(*plan.ExtensionTableReadRel).BaseSchema()
	assert.Equal(t, []string{"rowid", "ord"}, bs.Names)
	assert.Equal(t, "i64?", bs.Struct.Types[0].String())
	assert.Equal(t, "i64", bs.Struct.Types[1].String())

	scan, ok := join.Right().(*plan.NamedTableReadRel)
	require.True(t, ok)
	assert.Equal(t, []string{"t"}, scan.Names())
	assert.Equal(t, []string{"id", "name", "score", "_rowid", "_rowaddr"}, scan.BaseSchema().Names)
	assert.Equal(t, "i64?,string?,fp64?,i64,i64", typeList(scan.BaseSchema().Struct.Types))
}

// litValue returns a literal's Go value (nil for NULL).
func litValue(t *testing.T, e expr.Expression) any {
	t.Helper()
	v, ok := literalOf(e)
	require.True(t, ok, "not a literal: %v", e)
	return v
}

func fn(t *testing.T, e expr.Expression, name string) *expr.ScalarFunction {
	t.Helper()
	f, ok := e.(*expr.ScalarFunction)
	require.True(t, ok, "not a function: %T %v", e, e)
	require.Equal(t, name, f.Name())
	return f
}

func arg(f *expr.ScalarFunction, i int) expr.Expression { return f.Arg(i).(expr.Expression) }

func TestProjectFilter(t *testing.T) {
	_, root, names := parseQuery(t, "SELECT name AS n, id + 1 FROM t WHERE id = '5' AND score >= 2")
	assert.Equal(t, []string{"n", "?column?"}, names)
	proj := root.(*plan.ProjectRel)
	assert.Equal(t, []int32{5, 6}, proj.OutputMapping())
	assert.Equal(t, int32(1), fieldIndex(t, proj.Expressions()[0]))
	add := fn(t, proj.Expressions()[1], "add")
	assert.Equal(t, int64(1), litValue(t, arg(add, 1)))

	filter := proj.Input().(*plan.FilterRel)
	and := fn(t, filter.Condition(), "and")
	eq := fn(t, arg(and, 0), "equal")
	assert.Equal(t, int32(0), fieldIndex(t, arg(eq, 0)))
	assert.Equal(t, int64(5), litValue(t, arg(eq, 1)), "'5' takes the column's type")
	gte := fn(t, arg(and, 1), "gte")
	assert.Equal(t, 2.0, litValue(t, arg(gte, 1)), "2 widens to the double column")
	_, ok := filter.Input().(*plan.NamedTableReadRel)
	assert.True(t, ok)
}

func TestStar(t *testing.T) {
	_, root, names := parseQuery(t, "SELECT * FROM t")
	assert.Equal(t, []string{"id", "name", "score"}, names, "system columns are hidden from *")
	proj := root.(*plan.ProjectRel)
	for i, e := range proj.Expressions() {
		assert.Equal(t, int32(i), fieldIndex(t, e))
	}
	_, _, names = parseQuery(t, "SELECT u.*, t._rowid FROM t JOIN u ON t.id = u.id")
	assert.Equal(t, []string{"id", "flag", "_rowid"}, names)
}

func TestInListAndNulls(t *testing.T) {
	_, root, _ := parseQuery(t, "SELECT id FROM t WHERE id NOT IN (1, 2.5) OR name IS NULL OR score IS NOT NULL")
	or := fn(t, root.(*plan.ProjectRel).Input().(*plan.FilterRel).Condition(), "or")
	require.Equal(t, 3, or.NArgs())
	not := fn(t, arg(or, 0), "not")
	in, ok := arg(not, 0).(*expr.SingularOrList)
	require.True(t, ok)
	// 2.5 is numeric, as in PostgreSQL: bigint meets it at numeric.
	assert.Equal(t, idNumeric, kindOf(in.Value.GetType()).ID, "bigint meets numeric at numeric")
	require.Len(t, in.Options, 2)
	assert.Equal(t, "1.0", decText(t, litValue(t, in.Options[0])))
	assert.Equal(t, "2.5", decText(t, litValue(t, in.Options[1])))
	fn(t, arg(or, 1), "is_null")
	fn(t, arg(or, 2), "is_not_null")
}

func TestCasts(t *testing.T) {
	_, root, names := parseQuery(t, "SELECT CAST(id AS TEXT), '12'::int, 2.5::bigint, -score, -(3) FROM t")
	assert.Equal(t, "id", names[0])
	es := root.(*plan.ProjectRel).Expressions()
	c, ok := es[0].(*expr.Cast)
	require.True(t, ok)
	assert.Equal(t, kindString, kindOf(c.Type))
	assert.Equal(t, int32(12), litValue(t, es[1]), "int is integer (int4)")
	assert.Equal(t, int64(3), litValue(t, es[2]), "2.5 is numeric, which rounds half away from zero (PostgreSQL: 3)")
	fn(t, es[3], "negate")
	assert.Equal(t, int32(-3), litValue(t, es[4]), "an integer literal is int4, as in PostgreSQL")
}

func TestOrderBy(t *testing.T) {
	// Keys that are outputs: Sort over Project.
	_, root, _ := parseQuery(t, "SELECT id AS k, name FROM t ORDER BY k DESC, 2 NULLS FIRST, name ASC NULLS LAST")
	sort := root.(*plan.SortRel)
	require.Len(t, sort.Sorts(), 3)
	assert.Equal(t, int32(0), fieldIndex(t, sort.Sorts()[0].Expr))
	assert.Equal(t, types.SortDescNullsFirst, sort.Sorts()[0].Kind)
	assert.Equal(t, int32(1), fieldIndex(t, sort.Sorts()[1].Expr))
	assert.Equal(t, types.SortAscNullsFirst, sort.Sorts()[1].Kind)
	assert.Equal(t, types.SortAscNullsLast, sort.Sorts()[2].Kind)
	_, ok := sort.Input().(*plan.ProjectRel)
	assert.True(t, ok)

	// A key that is not an output: Project over Sort over the scan record.
	_, root, _ = parseQuery(t, "SELECT id FROM t ORDER BY score DESC NULLS LAST")
	proj := root.(*plan.ProjectRel)
	sort = proj.Input().(*plan.SortRel)
	assert.Equal(t, int32(2), fieldIndex(t, sort.Sorts()[0].Expr))
	assert.Equal(t, types.SortDescNullsLast, sort.Sorts()[0].Kind)

	// An expression equal to an output counts as that output.
	_, root, _ = parseQuery(t, "SELECT id + 1 FROM t ORDER BY id + 1")
	sort = root.(*plan.SortRel)
	assert.Equal(t, int32(0), fieldIndex(t, sort.Sorts()[0].Expr))
}

func TestFetch(t *testing.T) {
	_, root, _ := parseQuery(t, "SELECT id FROM t ORDER BY id LIMIT 10 OFFSET 5")
	f := root.(*plan.FetchRel)
	assert.Equal(t, int64(5), f.Offset())
	assert.Equal(t, int64(10), f.Count())
	_, ok := f.Input().(*plan.SortRel)
	assert.True(t, ok)
	_, root, _ = parseQuery(t, "SELECT id FROM t OFFSET 3")
	f = root.(*plan.FetchRel)
	assert.Equal(t, int64(3), f.Offset())
	assert.Equal(t, int64(plan.FETCH_COUNT_ALL_RECORDS), f.Count())
}

func TestCount(t *testing.T) {
	_, root, names := parseQuery(t, "SELECT count(*) AS n, count(name) + 1 FROM t WHERE id > 0")
	assert.Equal(t, []string{"n", "?column?"}, names)
	proj := root.(*plan.ProjectRel)
	assert.Equal(t, int32(0), fieldIndex(t, proj.Expressions()[0]))
	fn(t, proj.Expressions()[1], "add")
	agg, ok := proj.Input().(*plan.AggregateRel)
	require.True(t, ok)
	assert.Empty(t, agg.GroupingExpressions())
	ms := agg.Measures()
	require.Len(t, ms, 2)
	assert.Equal(t, "count", ms[0].Measure().Name())
	assert.Equal(t, 0, ms[0].Measure().NArgs())
	assert.Equal(t, 1, ms[1].Measure().NArgs())
	_, ok = agg.Input().(*plan.FilterRel)
	assert.True(t, ok)
}

func TestInnerJoin(t *testing.T) {
	_, root, _ := parseQuery(t, "SELECT t.name FROM t JOIN u ON u.id = t.id AND u.flag")
	join := root.(*plan.ProjectRel).Input().(*plan.JoinRel)
	assert.Equal(t, plan.JoinTypeInner, join.Type())
	and := fn(t, join.Expr(), "and")
	eq := fn(t, arg(and, 0), "equal")
	// t has 5 columns, so u.id is 5; the left column comes first.
	assert.Equal(t, int32(0), fieldIndex(t, arg(eq, 0)))
	assert.Equal(t, int32(5), fieldIndex(t, arg(eq, 1)))
	assert.Equal(t, int32(6), fieldIndex(t, arg(and, 1)))
}

func TestUnnestAndSeries(t *testing.T) {
	_, root, names := parseQuery(t, "SELECT * FROM UNNEST(ARRAY[1, 2.5, NULL]) WITH ORDINALITY")
	assert.Equal(t, []string{"unnest", "ordinality"}, names)
	d := detailOf(t, root.(*plan.ProjectRel).Input())
	assert.Equal(t, map[string]any{"relation": "stablerow.unnest", "values": []any{1.0, 2.5, nil}, "element_type": "fp64", "ordinality": true}, d)

	q, root, names := parseQuery(t, "SELECT s FROM UNNEST(:names::text[]) AS v(s)")
	assert.Equal(t, []string{"names"}, q.ParamNames)
	assert.Equal(t, []string{"s"}, names)
	d = detailOf(t, root.(*plan.ProjectRel).Input())
	assert.Equal(t, map[string]any{"relation": "stablerow.unnest", "param": 1.0, "element_type": "string", "ordinality": false}, d)

	_, root, names = parseQuery(t, "SELECT g FROM generate_series(10, -4, -2) AS g")
	assert.Equal(t, []string{"g"}, names)
	rel := root.(*plan.ProjectRel).Input()
	d = detailOf(t, rel)
	assert.Equal(t, map[string]any{"relation": "stablerow.generate_series", "start": 10.0, "stop": -4.0, "step": -2.0}, d)
	bs := rel.(*plan.ExtensionTableReadRel).BaseSchema()
	assert.Equal(t, []string{"g"}, bs.Names)
	assert.Equal(t, "i32", typeList(bs.Struct.Types), "generate_series(integer, integer) is a column of integer")
	_, root, _ = parseQuery(t, "SELECT g FROM generate_series(10, CAST(-4 AS BIGINT), -2) AS g")
	bs = root.(*plan.ProjectRel).Input().(*plan.ExtensionTableReadRel).BaseSchema()
	assert.Equal(t, "i64", typeList(bs.Struct.Types), "a bigint argument makes it bigint")
}

func TestParams(t *testing.T) {
	q, root, _ := parseQuery(t, "SELECT id FROM t WHERE name = :n AND id > :lo OR name = :n -- :not_a_param\n AND ':str' <> name AND id::text = '::'")
	assert.Equal(t, []string{"n", "lo"}, q.ParamNames)
	or := fn(t, root.(*plan.ProjectRel).Input().(*plan.FilterRel).Condition(), "or")
	and := fn(t, arg(or, 0), "and")
	p1 := arg(fn(t, arg(and, 0), "equal"), 1).(*expr.DynamicParameter)
	assert.Equal(t, uint32(1), p1.ParameterReference)
	assert.Equal(t, kindString, kindOf(p1.OutputType), ":n takes the type of name")
	p2 := arg(fn(t, arg(and, 1), "gt"), 1).(*expr.DynamicParameter)
	assert.Equal(t, uint32(2), p2.ParameterReference)
	assert.Equal(t, kindI64, kindOf(p2.OutputType))

	// Each statement numbers its own names; $k stays positional.
	stmts, err := Parse("SELECT :b, :a, :b; SELECT $2, $1::text", testCatalog)
	require.NoError(t, err)
	require.Len(t, stmts, 2)
	assert.Equal(t, []string{"b", "a"}, stmts[0].(*Query).ParamNames)
	assert.Equal(t, []string{"", ""}, stmts[1].(*Query).ParamNames)
	root, _ = reread(t, stmts[1].(*Query).Plan)
	es := root.(*plan.ProjectRel).Expressions()
	assert.Equal(t, uint32(2), es[0].(*expr.DynamicParameter).ParameterReference)
	assert.Equal(t, kindString, kindOf(es[0].GetType()), "a bare parameter is text (resolveTargetListUnknowns)")
	assert.Equal(t, kindString, kindOf(es[1].GetType()), "a cast parameter takes the cast type")

	// IS NULL leaves $1's type open; the comparison after it fixes it,
	// for the IS NULL's use too (paramtype.go).
	_, root, _ = parseQuery(t, "SELECT id FROM t WHERE $1 IS NULL OR id = $1")
	or = fn(t, root.(*plan.ProjectRel).Input().(*plan.FilterRel).Condition(), "or")
	open := arg(fn(t, arg(or, 0), "is_null"), 0).(*expr.DynamicParameter)
	fixed := arg(fn(t, arg(or, 1), "equal"), 1).(*expr.DynamicParameter)
	assert.Equal(t, kindI64, kindOf(open.OutputType))
	assert.Equal(t, kindI64, kindOf(fixed.OutputType))
	_, err = Parse("SELECT id FROM t WHERE $1 IS NULL", testCatalog)
	require.ErrorIs(t, err, ErrParam)
	require.ErrorContains(t, err, "could not determine data type of parameter $1")
}

func TestNoFrom(t *testing.T) {
	_, root, names := parseQuery(t, "SELECT 1 AS one, 'x', NULL")
	assert.Equal(t, []string{"one", "?column?", "?column?"}, names)
	proj := root.(*plan.ProjectRel)
	assert.Equal(t, int32(1), litValue(t, proj.Expressions()[0]))
	assert.Equal(t, "x", litValue(t, proj.Expressions()[1]))
	assert.Nil(t, litValue(t, proj.Expressions()[2]))
	vt, ok := proj.Input().(*plan.VirtualTableReadRel)
	require.True(t, ok)
	assert.Len(t, vt.Values(), 1, "one row with no columns")
}

func TestFolding(t *testing.T) {
	_, root, _ := parseQuery(t, "SELECT 7 / 2, -7 / 2, 1.5 * 2, 2 + 0.5, -(-3)")
	es := root.(*plan.ProjectRel).Expressions()
	assert.Equal(t, int32(3), litValue(t, es[0]))
	assert.Equal(t, int32(-3), litValue(t, es[1]), "integer division truncates toward zero")
	assert.Equal(t, "3.0", decText(t, litValue(t, es[2])), "numeric constants fold exactly, to numeric")
	assert.Equal(t, "2.5", decText(t, litValue(t, es[3])))
	assert.Equal(t, int32(3), litValue(t, es[4]))
	// Division by zero and overflow raise the engine's errors, while
	// planning (constfold_test.go).
}

func TestOperatorNames(t *testing.T) {
	_, root, _ := parseQuery(t, "SELECT id = 1, id <> 1, id != 1, id < 1, id <= 1, id > 1, id >= 1, id + 1, id - 1, id * 1, id / 1, -id, NOT flag, flag AND flag, flag OR flag FROM u")
	want := []string{"equal", "not_equal", "not_equal", "lt", "lte", "gt", "gte", "add", "subtract", "multiply", "divide", "negate", "not", "and", "or"}
	es := root.(*plan.ProjectRel).Expressions()
	require.Len(t, es, len(want))
	for i, name := range want {
		f := fn(t, es[i], name)
		col := int32(0) // id
		if i >= 12 {
			col = 1 // flag
		}
		assert.Equal(t, col, fieldIndex(t, arg(f, 0)), name)
	}
}

// decText is a numeric literal's text (numeric_out).
func decText(t *testing.T, v any) string {
	t.Helper()
	d, ok := v.(decLit)
	require.True(t, ok, "not a numeric literal: %#v", v)
	return sqlvalue.FormatDecimal(d.v, d.s)
}

// TestValuesQuery: a VALUES list is a query wherever a SELECT stands (it
// was refused as "VALUES outside INSERT"): each column typed as the common
// type of its items, named column1... unless an alias names it; a list of
// another length, DEFAULT and an aggregate are refused with PostgreSQL's
// messages; a constant that raises raises while planning.
func TestValuesQuery(t *testing.T) {
	for _, q := range []string{
		"SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS v(k, s) ORDER BY k",
		"VALUES (1), (2) ORDER BY 1 DESC LIMIT 1",
		"VALUES (1) UNION ALL VALUES (2)",
		"WITH w(a) AS (VALUES (10), (20)) SELECT sum(a) FROM w",
		"SELECT id FROM t WHERE id IN (VALUES (1), (2))",
	} {
		_, err := Parse(q, testCatalog)
		require.NoError(t, err, q)
	}
	st := parseOne(t, "SELECT * FROM (VALUES (1, 'a'), (2.5, NULL)) AS v")
	q, ok := st.(*Query)
	require.True(t, ok)
	names := q.Plan.Relations[0].GetRoot().Names
	assert.Equal(t, []string{"column1", "column2"}, names)
	for _, c := range []struct {
		q    string
		want error
		msg  string
	}{
		{"SELECT * FROM (VALUES (1, 2), (3)) AS v", ErrInvalid, "VALUES lists must all be the same length"},
		{"VALUES (DEFAULT)", ErrInvalid, "DEFAULT is not allowed in this context"},
		{"SELECT * FROM (VALUES (count(*))) AS v", ErrInvalid, "aggregate functions are not allowed in VALUES"},
		{"SELECT * FROM (VALUES (1 / 0)) AS v WHERE FALSE", sqlvalue.ErrDivisionByZero, "division by zero"},
	} {
		_, err := Parse(c.q, testCatalog)
		assert.ErrorIs(t, err, c.want, c.q)
		if err != nil {
			assert.Contains(t, err.Error(), c.msg, c.q)
		}
	}
}

// TestDistinctConstantsUnderLimitOne: SELECT DISTINCT of constants under
// LIMIT 1 is a fetch of one row, as PostgreSQL's Unique emits its first row
// at once (difftest seed 20261231 case 257959); with any other LIMIT,
// OFFSET or none, or a non-constant output, it stays an aggregate.
func TestDistinctConstantsUnderLimitOne(t *testing.T) {
	hasAggregate := func(root plan.Rel) bool {
		for r := root; r != nil; {
			if _, ok := r.(*plan.AggregateRel); ok {
				return true
			}
			in := r.GetInputs()
			if len(in) == 0 {
				return false
			}
			r = in[0]
		}
		return false
	}
	for q, want := range map[string]bool{
		"SELECT DISTINCT 7, 'x' FROM t WHERE id > 1 LIMIT 1":   false,
		"SELECT DISTINCT 7 FROM t ORDER BY 1 LIMIT 1 OFFSET 0": false,
		"SELECT DISTINCT 7 FROM t":                             true,
		"SELECT DISTINCT 7 FROM t LIMIT 2":                     true,
		"SELECT DISTINCT 7 FROM t LIMIT 1 OFFSET 1":            true,
		"SELECT DISTINCT id FROM t LIMIT 1":                    true,
	} {
		_, root, _ := parseQuery(t, q)
		assert.Equal(t, want, hasAggregate(root), q)
	}
}
