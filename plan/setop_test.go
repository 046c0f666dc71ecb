package plan_test

import (
	"testing"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// Names of t (tRows): a, b, NULL, d, e, b, g; ids 10, 11, 12, NULL, 14,
// 15, 16. Each expectation below is worked out from those by hand.

// names is t's name column, of the rows keep (a filter, or nil) lets by.
func (s *sb) names(c *testCatalog, keep func(splan.Rel) expr.Expression) splan.Rel {
	var r splan.Rel = s.scan(c, "t")
	if keep != nil {
		r = must(s.b.Filter(r, keep(r)))
	}
	return must(s.b.ProjectRemap(r, []int32{5}, s.ref(r, 1)))
}

func (s *sb) idBelow(n int64) func(splan.Rel) expr.Expression {
	return func(r splan.Rel) expr.Expression { return s.fn(cmpURN, "lt", s.ref(r, 0), lit(n)) }
}

func (s *sb) idAbove(n int64) func(splan.Rel) expr.Expression {
	return func(r splan.Rel) expr.Expression { return s.fn(cmpURN, "gt", s.ref(r, 0), lit(n)) }
}

func rowsOf(vs ...any) [][]any {
	out := make([][]any, len(vs))
	for i, v := range vs {
		out[i] = []any{v}
	}
	return out
}

func TestBuildSetRel(t *testing.T) {
	set := func(op splan.SetOp, ins func(s *sb, c *testCatalog) []splan.Rel) func(s *sb, c *testCatalog) *substraitpb.Plan {
		return func(s *sb, c *testCatalog) *substraitpb.Plan {
			return s.plan(must(s.b.Set(op, ins(s, c)...)), "name")
		}
	}
	runCases(t, []buildCase{
		{
			name: "union-distinct",
			build: set(splan.SetOpUnionDistinct, func(s *sb, c *testCatalog) []splan.Rel {
				return []splan.Rel{s.names(c, nil), s.names(c, nil)}
			}),
			want:    rowsOf("a", "b", nil, "d", "e", "g"),
			explain: []string{"HashAggregateExec: gby=[name@0], aggr=[]", "UnionExec: inputs=2"},
		},
		{
			// Three inputs: a row of the first in neither other, once.
			name: "minus-primary-3",
			build: set(splan.SetOpMinusPrimary, func(s *sb, c *testCatalog) []splan.Rel {
				return []splan.Rel{s.names(c, nil), s.names(c, s.idBelow(12)), s.names(c, s.idAbove(15))}
			}),
			want: rowsOf(nil, "d", "e"),
		},
		{
			// b twice minus once; a once minus once.
			name: "minus-primary-all",
			build: set(substraitpb.SetRel_SET_OP_MINUS_PRIMARY_ALL, func(s *sb, c *testCatalog) []splan.Rel {
				return []splan.Rel{s.names(c, nil), s.names(c, s.idBelow(12))}
			}),
			want:    rowsOf("b", nil, "d", "e", "g"),
			explain: []string{"SetOpExec: op=EXCEPT ALL"},
		},
		{
			// min count over three inputs: a min(1,1,1), b min(2,2,1).
			name: "intersection-multiset-all-3",
			build: set(substraitpb.SetRel_SET_OP_INTERSECTION_MULTISET_ALL, func(s *sb, c *testCatalog) []splan.Rel {
				return []splan.Rel{s.names(c, nil), s.names(c, nil), s.names(c, s.idBelow(12))}
			}),
			want: rowsOf("a", "b"),
		},
		{
			// Primary rows in any secondary: {a, b} ∪ {b, g}.
			name: "intersection-primary",
			build: set(splan.SetOpIntersectionPrimary, func(s *sb, c *testCatalog) []splan.Rel {
				return []splan.Rel{s.names(c, nil), s.names(c, s.idBelow(12)), s.names(c, s.idAbove(14))}
			}),
			want: rowsOf("a", "b", "g"),
		},
		{
			// Primary rows not in every secondary: minus {a, b} ∩ {b, g}.
			name: "minus-multiset",
			build: set(splan.SetOpMinusMultiset, func(s *sb, c *testCatalog) []splan.Rel {
				return []splan.Rel{s.names(c, nil), s.names(c, s.idBelow(12)), s.names(c, s.idAbove(14))}
			}),
			want: rowsOf("a", nil, "d", "e", "g"),
		},
	})
}

// TestBuildAggregateRel: GROUP BY name with sum, avg, min, max and a
// DISTINCT count from an outside producer's AggregateRel.
func TestBuildAggregateRel(t *testing.T) {
	runCases(t, []buildCase{{
		name: "group-by-name",
		build: func(s *sb, c *testCatalog) *substraitpb.Plan {
			tb := s.scan(c, "t")
			sum := must(s.b.AggregateFn(arithURN, "sum", nil, s.ref(tb, 0)))
			avg := must(s.b.AggregateFn(arithURN, "avg", nil, s.ref(tb, 2)))
			mx := must(s.b.AggregateFn(arithURN, "max", nil, s.ref(tb, 2)))
			cd := must(expr.NewAggregateFunc(s.b.GetExprBuilder().Reg, extensions.ID{URN: aggURN, Name: "count:any"}, nil,
				types.AggInvocationDistinct, types.AggPhaseInitialToResult, nil, s.ref(tb, 0)))
			ms := []splan.AggRelMeasure{s.b.Measure(sum, nil), s.b.Measure(avg, nil), s.b.Measure(mx, nil), s.b.Measure(cd, nil)}
			return s.plan(must(s.b.AggregateColumns(tb, ms, 1)), "name", "sum", "avg", "max", "ids")
		},
		// a: 10 | 1.5; b: 11, 15 | NULL, 2.5; NULL: 12 | 3.5; d: NULL | 4;
		// e: 14 | -1; g: 16 | 0.
		want: [][]any{
			{"a", int64(10), 1.5, 1.5, int64(1)},
			{"b", int64(26), 2.5, 2.5, int64(2)},
			{nil, int64(12), 3.5, 3.5, int64(1)},
			{"d", nil, 4.0, 4.0, int64(0)},
			{"e", int64(14), -1.0, -1.0, int64(1)},
			{"g", int64(16), 0.0, 0.0, int64(1)},
		},
		explain: []string{"HashAggregateExec: gby=[name@1], aggr=[sum(id@0) as sum0, avg(score@2) as avg1, max(score@2) as max2, count(DISTINCT id@0) as count3]"},
	}, {
		// any_value of one row's name (id 14: e), and of none.
		name: "any-value",
		build: func(s *sb, c *testCatalog) *substraitpb.Plan {
			var tb splan.Rel = s.scan(c, "t")
			tb = must(s.b.Filter(tb, s.fn(cmpURN, "gt", s.ref(tb, 0), lit(int64(13)))))
			tb = must(s.b.Filter(tb, s.fn(cmpURN, "lt", s.ref(tb, 0), lit(int64(15)))))
			av := must(s.b.AggregateFn(aggURN, "any_value:any", nil, s.ref(tb, 1)))
			return s.plan(must(s.b.AggregateColumns(tb, []splan.AggRelMeasure{s.b.Measure(av, nil)})), "v")
		},
		want: [][]any{{"e"}},
	}})
}
