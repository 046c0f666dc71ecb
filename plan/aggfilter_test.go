package plan_test

import (
	"testing"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
	splan "github.com/substrait-io/substrait-go/v8/plan"
)

// TestAggregateMeasureFilter runs Substrait Measure.filter (SQL's
// FILTER (WHERE ...)): each measure skips the rows its filter does not
// keep (FALSE and NULL alike), the others and the groups still see them.
// Over t: id 10..16 with a NULL id, score 1.5 NULL 3.5 4 -1 2.5 0.
func TestAggregateMeasureFilter(t *testing.T) {
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	s := newSB(t)
	tb := s.scan(c, "t")
	cstar := must(s.b.AggregateFn(aggURN, "count", nil))
	sum := must(s.b.AggregateFn(arithURN, "sum", nil, s.ref(tb, 0)))
	maxScore := must(s.b.AggregateFn(arithURN, "max", nil, s.ref(tb, 2)))
	positive := s.fn(cmpURN, "gt", s.ref(tb, 2), lit(float64(1))) // NULL for id 11
	ag := must(s.b.AggregateExprs(tb, []splan.AggRelMeasure{
		s.b.Measure(cstar, nil),
		s.b.Measure(cstar, positive),
		s.b.Measure(sum, positive),
		s.b.Measure(maxScore, s.fn(cmpURN, "lt", s.ref(tb, 0), lit(int64(12)))),
	}))
	rows, _, err := run(t, mem, c, s.plan(ag, "n", "n_pos", "sum_pos", "max_small"), plan.Options{}, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	equalRows(t, rows, [][]any{{int64(7), int64(4), int64(10 + 12 + 15), 1.5}})
}

// TestAggregateFilterGuardsArgument: the argument is evaluated only over
// the rows the filter keeps, as PostgreSQL does: a division by a zero
// id never happens when the filter drops that row.
func TestAggregateFilterGuardsArgument(t *testing.T) {
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	s := newSB(t)
	tb := s.scan(c, "t")
	quot := s.fn(arithURN, "divide", lit(int64(100)), s.fn(arithURN, "subtract", s.ref(tb, 0), lit(int64(16))))
	sum := must(s.b.AggregateFn(arithURN, "sum", nil, quot))
	nonzero := s.fn(cmpURN, "lt", s.ref(tb, 0), lit(int64(16)))
	ag := must(s.b.AggregateExprs(tb, []splan.AggRelMeasure{s.b.Measure(sum, nonzero)}))
	rows, _, err := run(t, mem, c, s.plan(ag, "s"), plan.Options{}, nil, 8192)
	if err != nil {
		t.Fatal(err)
	}
	// 100/(10-16) + 100/(11-16) + ... + 100/(15-16): -16 -20 -25 -50 -100.
	equalRows(t, rows, [][]any{{int64(-16 - 20 - 25 - 50 - 100)}})
}
