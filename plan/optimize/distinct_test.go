package optimize

import (
	"math"
	"testing"

	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
)

// ndvStats is Stats with distinct counts: rows per table, and per
// "table.column" its distinct values.
type ndvStats struct {
	rows
	ndv map[string]float64
}

func (s ndvStats) ColumnDistinct(table, column string) (float64, bool) {
	n, ok := s.ndv[table+"."+column]
	return n, ok
}

// TestEqualityFilterDistinct: an equality of a column with a constant
// keeps 1/ndistinct of the rows where the column's distinct count is
// known (PostgreSQL's var_eq_const without MCVs), in a filter over a
// read, through a sort, a fetch, a read's emit and a projection's column
// reference; a quarter where it is not known, and for an
// equality of two columns or a comparison that is not one.
func TestEqualityFilterDistinct(t *testing.T) {
	f := newFixture(t)
	b := f.scan("b")
	st := ndvStats{rows: rows{"b": 1000}, ndv: map[string]float64{"b.v": 50}}
	three := expr.NewPrimitiveLiteral(int64(3), true)
	eq := func(r splan.Rel, c int32) expr.Expression { return f.fn(cmpURN, "equal", f.ref(r, c), three) }
	sorted := must(f.b.Sort(b, must(f.b.SortFields(b, 0))...))
	fetched := must(f.b.Fetch(b, 0, 1000))
	// An emit that keeps v alone: column 0 is v.
	remapped := must(f.b.NamedScanRemap([]string{"b"}, b.(*splan.NamedTableReadRel).BaseSchema(), []int32{1}))
	proj := must(f.b.Project(b, f.ref(b, 1)))
	for _, c := range []struct {
		name string
		r    splan.Rel
		st   Stats
		want float64
	}{
		{"v = 3", must(f.b.Filter(b, eq(b, 1))), st, 20},
		{"3 = v", must(f.b.Filter(b, f.fn(cmpURN, "equal", three, f.ref(b, 1)))), st, 20},
		{"v = 3 over a sort", must(f.b.Filter(sorted, eq(sorted, 1))), st, 20},
		{"v = 3 over a fetch", must(f.b.Filter(fetched, eq(fetched, 1))), st, 20},
		{"v = 3 through the read's emit", must(f.b.Filter(remapped, eq(remapped, 0))), st, 20},
		{"the projection's copy of v = 3", must(f.b.Filter(proj, eq(proj, 2))), st, 20},
		{"v = 3 AND v < 5", must(f.b.Filter(b, f.fn(boolURN, "and", eq(b, 1), f.fn(cmpURN, "lt", f.ref(b, 1), three)))), st, 5},
		{"k = 3: k's count unknown", must(f.b.Filter(b, eq(b, 0))), st, 250},
		{"v = 3 without counts", must(f.b.Filter(b, eq(b, 1))), rows{"b": 1000}, 250},
		{"v = k", must(f.b.Filter(b, f.eq(b, 0, 1))), st, 250},
		// CHAR(n) = 'x' as the SQL front end writes it: the column read
		// through a cast to text keeps its count.
		{"cast(v AS string) = 'F'", must(f.b.Filter(b, f.fn(cmpURN, "equal", asText(f.ref(b, 1)), letterF))), st, 20},
		{"cast(v AS boolean) = true", must(f.b.Filter(b, f.fn(cmpURN, "equal", &expr.Cast{Type: &types.BooleanType{}, Input: f.ref(b, 1)}, expr.NewPrimitiveLiteral(true, true)))), st, 250},
	} {
		got, _ := Estimated(c.r, c.st)
		if got.Rows != c.want {
			t.Errorf("%s: %v rows, want %v", c.name, got.Rows, c.want)
		}
	}
}

var letterF = expr.NewPrimitiveLiteral("F", true)

// asText is cast(e AS string), the SQL front end's form of a CHAR(n)
// column under a comparison.
func asText(e expr.Expression) expr.Expression {
	return &expr.Cast{Type: &types.StringType{Nullability: types.NullabilityNullable}, Input: e, FailureBehavior: types.BehaviorThrowException}
}

// TestJoinDistinctOrder: a (1,000 rows) refers by key to b and to c
// (100 rows each), b filtered by b.v = 3 and c by c.v = 3. Without
// distinct counts each filter keeps a quarter, a tie that the original
// order breaks: b first. With them c.v = 3 keeps 1/100 of c (100
// distinct values) and b.v = 3 half of b (2 values): the more selective
// c is joined first (eqsel's 1/ndistinct), and a's 1,000 rows shrink to
// 10 before they meet b, which then probes them (largerProbes: b's 50
// estimated rows are over twice the 10 of a ⋈ c, so b is not built).
// Columns: a.k a.v b.k b.v c.k c.v.
func TestJoinDistinctOrder(t *testing.T) {
	f := newFixture(t)
	three := expr.NewPrimitiveLiteral(int64(3), true)
	r := f.crosses(func(x splan.Rel) []expr.Expression {
		return []expr.Expression{f.eq(x, 0, 2), f.eq(x, 1, 4),
			f.fn(cmpURN, "equal", f.ref(x, 3), three), f.fn(cmpURN, "equal", f.ref(x, 5), three)}
	}, "a", "b", "c")
	sz := rows{"a": 1000, "b": 100, "c": 100}
	st := ndvStats{rows: sz, ndv: map[string]float64{"a.k": 100, "a.v": 100, "b.k": 100, "b.v": 2, "c.k": 100, "c.v": 100}}
	without, with := shape(f.joins(r, sz)), shape(f.joins(r, st))
	if without != "J(J(a,F(b)),F(c))" {
		t.Fatalf("without distinct counts: shape %s, want b joined first (the tie's original order)", without)
	}
	if with != "P(J(F(b),J(a,F(c))))" {
		t.Fatalf("with distinct counts: shape %s, want the 1/100 filtered c joined first", with)
	}
}

// TestCosterDistinct: two 1,000-row nodes joined on a.v = b.v: with the
// columns' distinct counts known (2 and 5) the join keeps 1/max(2, 5) of
// the product (PostgreSQL's eqjoinsel without MCVs): 200,000 rows, a
// many-to-many join; with none known, the smaller table's rows are the
// domain (a key join): 1,000 rows; a count above the smaller table's
// rows (a sketch's few per cent over a key) is bounded by them: 1,000.
func TestCosterDistinct(t *testing.T) {
	f := newFixture(t)
	x := must(f.b.Cross(f.scan("a"), f.scan("b")))
	g := &graph{nodes: []*node{{off: 0, width: 2}, {off: 2, width: 2}}, width: 4,
		conds: []*conjunct{{e: f.eq(x, 1, 3), nodes: []int{0, 1}, equi: true}}}
	ests := []estimate{{rows: 1000, frac: 1}, {rows: 1000, frac: 1}}
	for _, c := range []struct {
		name string
		ndv  map[int]float64
		want float64
	}{
		{"counts 2 and 5", map[int]float64{1: 2, 3: 5}, 200_000},
		{"one count, 4", map[int]float64{3: 4}, 250_000},
		{"no counts", nil, 1000},
		{"a count over the table", map[int]float64{1: 1030, 3: 1000}, 1000},
	} {
		g.distinct = func(col int) (float64, bool) { n, ok := c.ndv[col]; return n, ok }
		if got := newCoster(g, ests, []int{0, 1}).card(3).rows; got != c.want {
			t.Errorf("%s: %v rows, want %v", c.name, got, c.want)
		}
	}
}

// TestCosterCompositeKey: TPC-H Q9's lineitem (l), part (p), supplier
// (s) and partsupp (ps), joined l.partkey = p.partkey, l.suppkey =
// s.suppkey, l.partkey = ps.partkey, l.suppkey = ps.suppkey. partsupp's
// two key columns identify its rows, so each lineitem row meets one:
// the four joined keep l's 6M rows. Dividing by each class's domain per
// further node (200K twice, 10K twice) took the composite key as
// independent columns, 200K × 10K pairs for 800K rows: 2,400 rows, and
// the 1.5M orders were made to probe the 322K that came (issue 27).
// Columns: l.k l.v p.k p.v s.k s.v ps.k ps.v.
func TestCosterCompositeKey(t *testing.T) {
	f := newFixture(t)
	x := must(f.b.Cross(must(f.b.Cross(must(f.b.Cross(f.scan("l"), f.scan("p"))), f.scan("s"))), f.scan("ps")))
	g := &graph{nodes: []*node{{off: 0, width: 2}, {off: 2, width: 2}, {off: 4, width: 2}, {off: 6, width: 2}}, width: 8,
		conds: []*conjunct{
			{e: f.eq(x, 0, 2), nodes: []int{0, 1}, equi: true},
			{e: f.eq(x, 1, 4), nodes: []int{0, 2}, equi: true},
			{e: f.eq(x, 0, 6), nodes: []int{0, 3}, equi: true},
			{e: f.eq(x, 1, 7), nodes: []int{0, 3}, equi: true},
		}}
	ndv := map[int]float64{0: 200_000, 1: 10_000, 2: 200_000, 4: 10_000, 6: 200_000, 7: 10_000}
	g.distinct = func(col int) (float64, bool) { n, ok := ndv[col]; return n, ok }
	ests := []estimate{{rows: 6e6, frac: 1}, {rows: 2e5, frac: 1}, {rows: 1e4, frac: 1}, {rows: 8e5, frac: 1}}
	c := newCoster(g, ests, []int{0, 1, 2, 3})
	for _, tc := range []struct {
		set  uint64
		want float64
	}{
		{0b1111, 6e6}, // all four
		{0b1001, 6e6}, // l ⋈ ps on both keys
		{0b0111, 6e6}, // l ⋈ p ⋈ s
		{0b1011, 6e6}, // l ⋈ p ⋈ ps: ps on both keys through l
		{0b0110, 2e9}, // p × s: no condition
	} {
		if got := c.card(tc.set).rows; math.Abs(got-tc.want) > 1e-6*tc.want {
			t.Errorf("set %04b: %v rows, want %v", tc.set, got, tc.want)
		}
	}
}
