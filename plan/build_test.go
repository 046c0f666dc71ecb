package plan_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// ref filters and maps tRows in plain Go: the independent expectation.
func ref(keep func(r []any) bool, out func(r []any) []any) [][]any {
	var rows [][]any
	for _, r := range tRows {
		if keep(r) {
			rows = append(rows, out(r))
		}
	}
	return rows
}

type buildCase struct {
	name    string
	build   func(s *sb, c *testCatalog) *substraitpb.Plan
	params  map[int]any
	want    [][]any
	ordered bool
	explain []string // substrings EXPLAIN must contain
}

func runCases(t *testing.T, cases []buildCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, batch := range []int{1, 3, 1024} {
				for _, opt := range []plan.Options{{}, {DisableIndexes: true}} {
					mem := exectest.Mem(t)
					c := stdCatalog(t, mem)
					rows, explain, err := run(t, mem, c, tc.build(newSB(t), c), opt, tc.params, batch)
					if err != nil {
						t.Fatalf("%v\n%s", err, explain)
					}
					want := tc.want
					if !tc.ordered {
						rows, want = sortedRows(rows), sortedRows(want)
					}
					equalRows(t, rows, want)
					for _, e := range tc.explain {
						if !strings.Contains(explain, e) {
							t.Fatalf("explain lacks %q:\n%s", e, explain)
						}
					}
				}
			}
		})
	}
}

func sortedRows(rows [][]any) [][]any {
	out := slices.Clone(rows)
	slices.SortFunc(out, func(a, b []any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	return out
}

func TestBuildRelations(t *testing.T) { runCases(t, relationCases()) }

func relationCases() []buildCase {
	return []buildCase{
		{
			name: "filter-project-pushdown",
			build: func(s *sb, c *testCatalog) *substraitpb.Plan {
				tb := s.scan(c, "t")
				f := must(s.b.Filter(tb, s.fn(boolURN, "and",
					s.fn(cmpURN, "gt", s.ref(tb, 2), lit(2.0)),
					s.fn(cmpURN, "is_not_null", s.ref(tb, 1)))))
				pr := must(s.b.ProjectRemap(f, []int32{5, 6}, s.ref(f, 0), s.ref(f, 1)))
				return s.plan(pr, "id", "name")
			},
			want: ref(func(r []any) bool { return r[2] != nil && r[2].(float64) > 2 && r[1] != nil },
				func(r []any) []any { return []any{r[0], r[1]} }),
			explain: []string{"columns=[0 1 2]", "FilterExec"},
		},
		{
			name: "rowid-compared-with-negative",
			build: func(s *sb, c *testCatalog) *substraitpb.Plan {
				tb := s.scan(c, "t")
				f := must(s.b.Filter(tb, s.fn(boolURN, "and",
					s.fn(cmpURN, "gt", s.ref(tb, 3), lit(int64(-1))),
					s.fn(cmpURN, "not_equal", s.ref(tb, 3), lit(int64(5))))))
				pr := must(s.b.ProjectRemap(f, []int32{5, 6}, s.ref(f, 3), s.ref(f, 4)))
				return s.plan(pr, "_rowid", "_rowaddr")
			},
			want: ref(func(r []any) bool { return r[3].(uint64) != 5 },
				func(r []any) []any { return []any{r[3], r[4]} }),
		},
		{
			name: "rowid-equal-negative-misses",
			build: func(s *sb, c *testCatalog) *substraitpb.Plan {
				tb := s.scan(c, "t")
				f := must(s.b.Filter(tb, s.fn(cmpURN, "equal", s.ref(tb, 3), lit(int64(-1)))))
				pr := must(s.b.ProjectRemap(f, []int32{5}, s.ref(f, 3)))
				return s.plan(pr, "_rowid")
			},
			want: nil,
		},
		{
			name: "in-list",
			build: func(s *sb, c *testCatalog) *substraitpb.Plan {
				tb := s.scan(c, "t")
				in := &expr.SingularOrList{Value: s.ref(tb, 3), Options: []expr.Expression{lit(int64(0)), lit(int64(7)), lit(int64(-3))}}
				f := must(s.b.Filter(tb, in))
				pr := must(s.b.ProjectRemap(f, []int32{5}, s.ref(f, 0)))
				return s.plan(pr, "id")
			},
			want:    [][]any{{int64(10)}, {int64(14)}},
			explain: []string{"IN (0, 7, -3)"},
		},
		{
			name: "arithmetic-sort-fetch",
			build: func(s *sb, c *testCatalog) *substraitpb.Plan {
				tb := s.scan(c, "t")
				e1 := s.fn(arithURN, "add", s.fn(arithURN, "multiply", s.ref(tb, 0), lit(int64(2))), lit(int64(1)))
				e2 := s.fn(arithURN, "negate", s.ref(tb, 2))
				e3 := s.fn(arithURN, "divide", must(s.b.GetExprBuilder().Cast(s.b.GetExprBuilder().Expression(s.ref(tb, 0)), &types.Float64Type{Nullability: types.NullabilityNullable}).Build()), lit(2.0))
				pr := must(s.b.ProjectRemap(tb, []int32{0, 5, 6, 7}, e1, e2, e3))
				srt := must(s.b.Sort(pr, expr.SortField{Expr: s.ref(pr, 0), Kind: types.SortDescNullsFirst}))
				fe := must(s.b.Fetch(srt, 1, 3))
				return s.plan(fe, "id", "a", "b", "c")
			},
			// ORDER BY id DESC NULLS FIRST: nil, 16, 15, 14, ... ; OFFSET 1 LIMIT 3
			want:    [][]any{{int64(16), int64(33), -0.0, 8.0}, {int64(15), int64(31), -2.5, 7.5}, {int64(14), int64(29), 1.0, 7.0}},
			ordered: true,
			explain: []string{"LimitExec: offset=1 limit=3", "SortExec: keys=[id DESC NULLS FIRST]"},
		},
		{
			name: "casts",
			build: func(s *sb, c *testCatalog) *substraitpb.Plan {
				tb := s.scan(c, "t")
				eb := s.b.GetExprBuilder()
				cast := func(i int32, to types.Type) expr.Expression {
					return must(eb.Cast(eb.Expression(s.ref(tb, i)), to).Build())
				}
				str := &types.StringType{Nullability: types.NullabilityNullable}
				pr := must(s.b.ProjectRemap(tb, []int32{5, 6, 7, 8}, cast(0, str), cast(2, str), cast(2, i64(true)), cast(3, str)))
				return s.plan(pr, "id", "score", "rounded", "rowid")
			},
			// Postgres: float8 -> int8 rounds half to even; floats print shortest.
			want: [][]any{
				{"10", "1.5", int64(2), "0"}, {"11", nil, nil, "1"}, {"12", "3.5", int64(4), "2"}, {nil, "4", int64(4), "5"},
				{"14", "-1", int64(-1), "7"}, {"15", "2.5", int64(2), "8"}, {"16", "0", int64(0), "9"},
			},
			ordered: true,
		},
		{
			name: "count-with-param",
			build: func(s *sb, c *testCatalog) *substraitpb.Plan {
				tb := s.scan(c, "t")
				p := must(s.b.GetExprBuilder().DynamicParam(i64(true), 1).Build())
				f := must(s.b.Filter(tb, s.fn(cmpURN, "gt", s.ref(tb, 0), p)))
				cstar := must(s.b.AggregateFn(aggURN, "count", nil))
				cname := must(s.b.AggregateFn(aggURN, "count:any", nil, s.ref(f, 1)))
				ag := must(s.b.AggregateColumns(f, []splan.AggRelMeasure{s.b.Measure(cstar, nil), s.b.Measure(cname, nil)}))
				return s.plan(ag, "n", "names")
			},
			params:  map[int]any{1: int64(11)},
			want:    [][]any{{int64(4), int64(3)}}, // ids 12, 14, 15, 16; names e, b, g
			explain: []string{"AggregateExec: aggr=[count(*) as count0, count(name@1) as count1]", "id@0 > $1"},
		},
		{
			name: "count-empty-input",
			build: func(s *sb, c *testCatalog) *substraitpb.Plan {
				tb := s.scan(c, "t")
				f := must(s.b.Filter(tb, lit(false)))
				cstar := must(s.b.AggregateFn(aggURN, "count", nil))
				ag := must(s.b.AggregateColumns(f, []splan.AggRelMeasure{s.b.Measure(cstar, nil)}))
				return s.plan(ag, "n")
			},
			want:    [][]any{{int64(0)}},
			explain: []string{"columns=[0]"},
		},
		{
			name: "virtual-table",
			build: func(s *sb, c *testCatalog) *substraitpb.Plan {
				vt := must(s.b.VirtualTable([]string{"k", "s"},
					expr.StructLiteralValue{expr.NewPrimitiveLiteral(int64(1), true), expr.NewPrimitiveLiteral("x", true)},
					expr.StructLiteralValue{expr.NewPrimitiveLiteral(int64(2), true), expr.NewNullLiteral(&types.StringType{Nullability: types.NullabilityNullable})}))
				return s.plan(vt, "k", "s")
			},
			want:    [][]any{{int64(1), "x"}, {int64(2), nil}},
			ordered: true,
			explain: []string{"VirtualTableExec: rows=2 cols=2"},
		},
		{
			name: "generate-series",
			build: func(s *sb, c *testCatalog) *substraitpb.Plan {
				g := s.extTable(map[string]any{"relation": "stablerow.generate_series", "start": 1, "stop": 10, "step": 3},
					[]string{"generate_series"}, []types.Type{i64(false)})
				return s.plan(g, "x")
			},
			want:    [][]any{{int64(1)}, {int64(4)}, {int64(7)}, {int64(10)}},
			ordered: true,
		},
		{
			name: "inner-join-values",
			build: func(s *sb, c *testCatalog) *substraitpb.Plan {
				vt := must(s.b.VirtualTable([]string{"k"},
					expr.StructLiteralValue{lit(int64(12))}, expr.StructLiteralValue{lit(int64(99))}, expr.StructLiteralValue{lit(int64(10))}))
				tb := s.scan(c, "t")
				j := must(s.b.Join(vt, tb, s.fn(cmpURN, "equal", s.jref(vt, tb, 1), s.jref(vt, tb, 0)), splan.JoinTypeInner))
				pr := must(s.b.ProjectRemap(j, []int32{6, 7}, s.ref(j, 0), s.ref(j, 5)))
				return s.plan(pr, "k", "rowaddr")
			},
			// (a take plus a found filter; under DisableIndexes a hash join)
			want: [][]any{{int64(12), uint64(4294967296)}, {int64(10), uint64(100)}},
		},
		{
			name: "unnest-strings-no-ordinality",
			build: func(s *sb, c *testCatalog) *substraitpb.Plan {
				u := s.extTable(map[string]any{"relation": "stablerow.unnest", "values": []any{"b", nil, "zz"}, "element_type": "string", "ordinality": false},
					[]string{"n"}, []types.Type{&types.StringType{Nullability: types.NullabilityNullable}})
				tb := s.scan(c, "t")
				j := must(s.b.Join(u, tb, s.fn(cmpURN, "equal", s.jref(u, tb, 0), s.jref(u, tb, 2)), splan.JoinTypeLeft))
				pr := must(s.b.ProjectRemap(j, []int32{6, 7}, s.ref(j, 0), s.ref(j, 1)))
				return s.plan(pr, "n", "id")
			},
			want: [][]any{{"b", int64(11)}, {"b", int64(15)}, {nil, nil}, {"zz", nil}},
		},
		{
			name: "read-filter",
			build: func(s *sb, c *testCatalog) *substraitpb.Plan {
				tb := s.scan(c, "t")
				cond := s.fn(cmpURN, "gt", s.ref(tb, 2), lit(2.0)) // registers the function with the builder
				pr := must(s.b.ProjectRemap(tb, []int32{5}, s.ref(tb, 1)))
				pb := s.plan(pr, "name")
				pb.Relations[0].GetRoot().Input.GetProject().Input.GetRead().Filter = cond.ToProto()
				return pb
			},
			want:    ref(func(r []any) bool { return r[2] != nil && r[2].(float64) > 2 }, func(r []any) []any { return []any{r[1]} }),
			explain: []string{"columns=[1 2]", "FilterExec: score@1 > 2"},
		},
		{
			name: "projection-mask",
			build: func(s *sb, c *testCatalog) *substraitpb.Plan {
				tb := s.scan(c, "t")
				tb.SetProjection(expr.MaskExpressionFromProto(&substraitpb.Expression_MaskExpression{
					Select: &substraitpb.Expression_MaskExpression_StructSelect{StructItems: []*substraitpb.Expression_MaskExpression_StructItem{{Field: 4}, {Field: 1}}},
				}))
				// substrait-go types the read by its full base schema (it
				// ignores masks), so the masked read sits under a Project
				// for FromProto's root name check. On load the mask becomes
				// the equivalent emit (plan/ingest/normalize.go): only the two masked
				// columns are scanned.
				pr := must(s.b.ProjectRemap(tb, []int32{2, 3}, s.ref(tb, 0), s.ref(tb, 1)))
				return s.plan(pr, "_rowaddr", "name")
			},
			want:    ref(func([]any) bool { return true }, func(r []any) []any { return []any{r[4], r[1]} }),
			explain: []string{"columns=[1 4]"},
		},
	}
}
