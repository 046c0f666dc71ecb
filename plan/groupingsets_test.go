package plan_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
)

// TestAggregateSeveralGroupings runs an AggregateRel with several
// groupings (plan/ingest/groupingsets.go): duplicate sets give each group
// once per set, with the set's index as the last column when the root
// names count it (the spec's output).
func TestAggregateSeveralGroupings(t *testing.T) {
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	s := newSB(t)
	tb := s.scan(c, "t")
	cstar := must(s.b.AggregateFn(aggURN, "count", nil))
	ref := must(s.b.RootFieldRef(tb, 1))
	ag := must(s.b.AggregateExprs(tb, []splan.AggRelMeasure{s.b.Measure(cstar, nil)}, []expr.Expression{ref}, []expr.Expression{ref}))
	rows, _, err := run(t, mem, c, s.plan(ag, "name", "n", "set"), plan.Options{}, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	var want [][]any
	for _, set := range []int32{0, 1} {
		for _, g := range []struct {
			name any
			n    int64
		}{{"a", 1}, {"b", 2}, {nil, 1}, {"d", 1}, {"e", 1}, {"g", 1}} {
			want = append(want, []any{g.name, g.n, set})
		}
	}
	equalRows(t, byText(rows), byText(want))
}

// TestAggregateEmptyGroupingSet: the () set's group exists over no rows
// (count 0, sum NULL) while the other sets have none; over rows it is the
// total. Root names without the set index: the older output DataFusion
// writes.
func TestAggregateEmptyGroupingSet(t *testing.T) {
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	for _, empty := range []bool{false, true} {
		s := newSB(t)
		var in splan.Rel = s.scan(c, "t")
		if empty {
			in = must(s.b.Filter(in, lit(false)))
		}
		cstar := must(s.b.AggregateFn(aggURN, "count", nil))
		sum := must(s.b.AggregateFn(arithURN, "sum", nil, s.ref(in, 0)))
		ag := must(s.b.AggregateExprs(in, []splan.AggRelMeasure{s.b.Measure(cstar, nil), s.b.Measure(sum, nil)},
			[]expr.Expression{s.ref(in, 1)}, []expr.Expression{}))
		rows, _, err := run(t, mem, c, s.plan(ag, "name", "n", "total"), plan.Options{}, nil, 3)
		if err != nil {
			t.Fatal(err)
		}
		want := [][]any{{nil, int64(0), nil}}
		if !empty {
			want = [][]any{{"a", int64(1), int64(10)}, {"b", int64(2), int64(26)}, {nil, int64(1), int64(12)},
				{"d", int64(1), nil}, {"e", int64(1), int64(14)}, {"g", int64(1), int64(16)}, {nil, int64(7), int64(78)}}
		}
		equalRows(t, byText(rows), byText(want))
	}
}

// byText orders rows by their printed form (the groups come in no
// defined order).
func byText(rows [][]any) [][]any {
	out := slices.Clone(rows)
	slices.SortFunc(out, func(a, b []any) int {
		x, y := fmt.Sprint(a), fmt.Sprint(b)
		if x < y {
			return -1
		}
		if x > y {
			return 1
		}
		return 0
	})
	return out
}
