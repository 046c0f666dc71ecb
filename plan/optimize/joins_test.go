package optimize

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
)

const (
	cmpURN  = extensions.SubstraitDefaultURNPrefix + "functions_comparison"
	boolURN = extensions.SubstraitDefaultURNPrefix + "functions_boolean"
)

// rows is Stats from a map.
type rows map[string]uint64

func (r rows) TableRows(name string) (uint64, bool) { n, ok := r[name]; return n, ok }

// fixture builds relations over tables of two i64 columns (k, v).
type fixture struct {
	t *testing.T
	b splan.Builder
}

func newFixture(t *testing.T) *fixture { return &fixture{t: t, b: splan.NewBuilderDefault()} }

// must is for builder calls in tests: an error there is a bug in the test.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func (f *fixture) scan(name string) splan.Rel {
	i64 := &types.Int64Type{Nullability: types.NullabilityNullable}
	return f.b.NamedScan([]string{name}, types.NamedStruct{Names: []string{"k", "v"},
		Struct: types.StructType{Nullability: types.NullabilityRequired, Types: []types.Type{i64, i64}}})
}

func (f *fixture) ref(r splan.Rel, i int32) expr.Expression {
	return must(f.b.RootFieldRef(r, i))
}

func (f *fixture) fn(urn, name string, args ...expr.Expression) expr.Expression {
	fa := make([]types.FuncArg, len(args))
	for i, a := range args {
		fa[i] = a
	}
	return must(f.b.ScalarFn(urn, name, nil, fa...))
}

func (f *fixture) eq(r splan.Rel, a, b int32) expr.Expression {
	return f.fn(cmpURN, "equal", f.ref(r, a), f.ref(r, b))
}

// crosses is Isthmus's shape: cross products of the tables in FROM order,
// left-deep, with the filter conds (over their columns, two a table) on
// top.
func (f *fixture) crosses(conds func(r splan.Rel) []expr.Expression, tables ...string) splan.Rel {
	x := f.scan(tables[0])
	for _, t := range tables[1:] {
		x = must(f.b.Cross(x, f.scan(t)))
	}
	cs := conds(x)
	cond := cs[0]
	if len(cs) > 1 {
		cond = f.fn(boolURN, "and", cs...)
	}
	return must(f.b.Filter(x, cond))
}

// acb is cross(cross(a, c), b) filtered by a.k = b.k and b.v = c.k (and
// more): a and c meet only through b, so the producer's order has a
// cross product the keys avoid. Columns: a.k a.v c.k c.v b.k b.v.
func (f *fixture) acb(more ...func(x splan.Rel) expr.Expression) splan.Rel {
	return f.crosses(func(x splan.Rel) []expr.Expression {
		cs := []expr.Expression{f.eq(x, 0, 4), f.eq(x, 5, 2)}
		for _, m := range more {
			cs = append(cs, m(x))
		}
		return cs
	}, "a", "c", "b")
}

var sizes = rows{"a": 10, "b": 1000, "c": 100, "d": 5}

func (f *fixture) joins(r splan.Rel, st Stats) splan.Rel {
	return must(Joins(context.Background(), r, st))
}

// shape is r's relations as text: table names, F(...) filters, J(...)
// inner joins, X(...) cross products, P(...) projections, L(...) others.
func shape(r splan.Rel) string {
	in := func() string {
		var s []string
		for _, x := range r.GetInputs() {
			s = append(s, shape(x))
		}
		return "(" + join(s) + ")"
	}
	switch r := r.(type) {
	case *splan.NamedTableReadRel:
		return r.Names()[0]
	case *splan.FilterRel:
		return "F" + in()
	case *splan.CrossRel:
		return "X" + in()
	case *splan.JoinRel:
		if r.Type() == splan.JoinTypeInner {
			return "J" + in()
		}
		return "L" + in()
	case *splan.ProjectRel:
		return "P" + in()
	}
	return "?" + in()
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}

// keyChain is cross(cross(a, b), c) filtered by a.k = b.k, c.v < 3 and
// b.v = c.k: every relation meets the one before it by a key.
func (f *fixture) keyChain() splan.Rel {
	return f.crosses(func(x splan.Rel) []expr.Expression {
		lt := f.fn(cmpURN, "lt", f.ref(x, 5), expr.NewPrimitiveLiteral(int64(3), true))
		return []expr.Expression{f.eq(x, 0, 2), lt, f.eq(x, 3, 4)}
	}, "a", "b", "c")
}

// keyJoins is keyChain as explicit joins, a JOIN b ON a.k = b.k JOIN c
// ON b.v = c.k, with c.v < 3 in a filter above: the producer ordered the
// joins itself. Columns: a.k a.v b.k b.v c.k c.v.
func (f *fixture) keyJoins() splan.Rel {
	a, b, c := f.scan("a"), f.scan("b"), f.scan("c")
	ab := must(f.b.Join(a, b, f.fn(cmpURN, "equal", must(f.b.JoinedRecordFieldRef(a, b, 0)), must(f.b.JoinedRecordFieldRef(a, b, 2))), splan.JoinTypeInner))
	abc := must(f.b.Join(ab, c, f.fn(cmpURN, "equal", must(f.b.JoinedRecordFieldRef(ab, c, 3)), must(f.b.JoinedRecordFieldRef(ab, c, 4))), splan.JoinTypeInner))
	return must(f.b.Filter(abc, f.fn(cmpURN, "lt", f.ref(abc, 5), expr.NewPrimitiveLiteral(int64(3), true))))
}

// TestPushdown: in the producer's order, a conjunct over one relation
// filters it and one over two becomes the condition of the lowest join
// that has both. The producer's explicit joins build b and the filtered
// c, no more than the rebuilt tree would: they are kept.
func TestPushdown(t *testing.T) {
	f := newFixture(t)
	if s := shape(f.joins(f.keyJoins(), rows{"a": 1000, "b": 100, "c": 10})); s != "J(J(a,b),F(c))" {
		t.Fatalf("shape %s, want the producer's order of key joins, c filtered", s)
	}
}

// TestCrossProductsRebuilt: the same joins written as a FROM list
// (cross products under the filter) have no order of the producer's to
// keep: they are rebuilt, a probing the arm b ⋈ filtered c (arm.go),
// though the FROM order with its conjuncts pushed down would build no
// more by the estimates.
func TestCrossProductsRebuilt(t *testing.T) {
	f := newFixture(t)
	if s := shape(f.joins(f.keyChain(), rows{"a": 1000, "b": 100, "c": 10})); s != "J(a,J(b,F(c)))" {
		t.Fatalf("shape %s, want a probing b joined with the filtered c", s)
	}
}

// TestRebuildsLargeBuild: the same key joins when the producer's order
// builds the largest table (b: 1000 rows, where the rebuilt tree builds
// 25 filtered c rows and 10 of a) are rebuilt, b the probe side.
func TestRebuildsLargeBuild(t *testing.T) {
	f := newFixture(t)
	if s := shape(f.joins(f.keyChain(), sizes)); s != "P(J(J(b,F(c)),a))" {
		t.Fatalf("shape %s, want b probed by the filtered c, then a", s)
	}
}

// TestFlattenAndOrder: where the producer's order keeps a cross product
// the keys avoid, the region is rebuilt: the largest table (b) probes,
// key joins of a and c (both unfiltered: the smaller, a, first), under
// the projection that restores the column order.
func TestFlattenAndOrder(t *testing.T) {
	f := newFixture(t)
	if s := shape(f.joins(f.acb(), sizes)); s != "P(J(J(b,a),c))" {
		t.Fatalf("shape %s, want b probed by a, then c", s)
	}
}

// TestMostSelectiveFirst: a relation with a filter keeps a quarter of its
// rows, so its key join keeps a quarter of the probe rows: it joins
// before an unfiltered smaller one.
func TestMostSelectiveFirst(t *testing.T) {
	f := newFixture(t)
	r := f.acb(func(x splan.Rel) expr.Expression {
		return f.fn(cmpURN, "lt", f.ref(x, 3), expr.NewPrimitiveLiteral(int64(3), true)) // c.v < 3
	})
	if s := shape(f.joins(r, sizes)); s != "P(J(J(b,F(c)),a))" {
		t.Fatalf("shape %s, want the filtered c joined first", s)
	}
}

// TestCrossLast: a relation no condition connects is joined last, by a
// cross product, after the key joins; the producer's second cross
// product (c met a before b) is gone. Columns: a d c b.
func TestCrossLast(t *testing.T) {
	f := newFixture(t)
	r := f.crosses(func(x splan.Rel) []expr.Expression {
		return []expr.Expression{f.eq(x, 4, 6), f.eq(x, 0, 6)} // c.k = b.k, a.k = b.k
	}, "a", "d", "c", "b")
	if s := shape(f.joins(r, sizes)); s != "P(X(J(J(b,a),c),d))" {
		t.Fatalf("shape %s, want b, a, c by keys, d crossed last", s)
	}
}

// TestColumnOrderRestored: the rebuilt tree outputs the original columns
// in the original order (a.k a.v c.k c.v b.k b.v), through the emit of
// its projection, and the keys moved with their columns.
func TestColumnOrderRestored(t *testing.T) {
	f := newFixture(t)
	r := f.acb()
	got := f.joins(r, sizes)
	p, ok := got.(*splan.ProjectRel)
	if !ok {
		t.Fatalf("root %T, want the order projection", got)
	}
	// Join order b, a, c: b at 0-1, a at 2-3, c at 4-5.
	if m := p.OutputMapping(); !slices.Equal(m, []int32{2, 3, 4, 5, 0, 1}) {
		t.Fatalf("emit %v, want [2 3 4 5 0 1]", m)
	}
	if want := r.RecordType(); !got.RecordType().Equals(&want) {
		t.Fatalf("types %v, want %v", got.RecordType(), want)
	}
	// a.k = b.k (columns 0 and 4) is columns 2 and 0 of the join (b, a).
	j := p.Input().(*splan.JoinRel).Left().(*splan.JoinRel)
	var cols []int
	columns(j.Expr(), func(c int) { cols = append(cols, c) })
	if !slices.Equal(cols, []int{2, 0}) {
		t.Fatalf("first join reads columns %v, want [2 0] (a.k, b.k)", cols)
	}
}

// TestBarrier: a LEFT join is not reordered across; its inputs are
// optimized on their own.
func TestBarrier(t *testing.T) {
	f := newFixture(t)
	inner := f.acb()
	d := f.scan("d")
	left := must(f.b.Join(inner, d, f.fn(cmpURN, "equal",
		must(f.b.JoinedRecordFieldRef(inner, d, 0)), must(f.b.JoinedRecordFieldRef(inner, d, 6))), splan.JoinTypeLeft))
	if s := shape(f.joins(left, sizes)); s != "L(P(J(J(b,a),c)),d)" {
		t.Fatalf("shape %s, want the LEFT join kept over its reordered left input", s)
	}
}

// TestAbove: a conjunct naming an outer query's column stays in a filter
// above the rebuilt tree, over the original columns.
func TestAbove(t *testing.T) {
	f := newFixture(t)
	outer := &expr.FieldReference{Root: expr.OuterReference(1), Reference: expr.NewStructFieldRef(0)}
	r := f.acb(func(x splan.Rel) expr.Expression {
		// a.v = outer.k: the decoder's form (an outer reference carries no
		// type, so the call is built over a.v = a.v and its second
		// argument replaced).
		n := 0
		return f.eq(x, 1, 1).Visit(func(e expr.Expression) expr.Expression {
			if n++; n == 2 {
				return outer
			}
			return e
		})
	})
	if s := shape(f.joins(r, sizes)); s != "F(P(J(J(b,a),c)))" {
		t.Fatalf("shape %s, want the correlated conjunct above the projection", s)
	}
}

// TestKeepsKeyOrder: a producer's order of key joins, with nothing to
// push down, is returned as it is (the same relation).
func TestKeepsKeyOrder(t *testing.T) {
	f := newFixture(t)
	a, b := f.scan("a"), f.scan("b")
	j := must(f.b.Join(b, a, f.fn(cmpURN, "equal",
		must(f.b.JoinedRecordFieldRef(b, a, 0)), must(f.b.JoinedRecordFieldRef(b, a, 2))), splan.JoinTypeInner))
	if got := f.joins(j, sizes); got != splan.Rel(j) {
		t.Fatalf("shape %s, want the producer's join unchanged", shape(got))
	}
}

// TestCancelled: a cancelled context stops the pass with its error.
func TestCancelled(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Joins(ctx, f.scan("a"), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}
