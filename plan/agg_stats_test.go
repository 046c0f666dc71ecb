package plan_test

import (
	"errors"
	"math"
	"testing"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
)

// TestStatsAggregateDistribution runs Substrait's std_dev and variance as
// an outside producer writes them, with the YAML's own declarations: the
// distribution option picks the sample (also without the option) or the
// population form; a value stablerow does not know is an invalid plan.
// Over t's score: 1.5 NULL 3.5 4 -1 2.5 0 (six values, mean 1.75, sum of
// squared deviations 19.375).
func TestStatsAggregateDistribution(t *testing.T) {
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	s := newSB(t)
	tb := s.scan(c, "t")
	dist := func(v string) []*types.FunctionOption {
		return []*types.FunctionOption{{Name: "distribution", Preference: []string{v}}}
	}
	sdPop := must(s.b.AggregateFn(arithURN, "std_dev", dist("POPULATION"), s.ref(tb, 2)))
	sdDefault := must(s.b.AggregateFn(arithURN, "std_dev", nil, s.ref(tb, 2)))
	varSamp := must(s.b.AggregateFn(arithURN, "variance", dist("SAMPLE"), s.ref(tb, 2)))
	varPop := must(s.b.AggregateFn(arithURN, "variance", dist("POPULATION"), s.ref(tb, 2)))
	ag := must(s.b.AggregateExprs(tb, []splan.AggRelMeasure{
		s.b.Measure(sdPop, nil), s.b.Measure(sdDefault, nil), s.b.Measure(varSamp, nil), s.b.Measure(varPop, nil),
	}))
	rows, _, err := run(t, mem, c, s.plan(ag, "sd_pop", "sd", "var_samp", "var_pop"), plan.Options{}, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{math.Sqrt(19.375 / 6), math.Sqrt(19.375 / 5), 19.375 / 5, 19.375 / 6}
	if len(rows) != 1 || len(rows[0]) != len(want) {
		t.Fatalf("rows %v", rows)
	}
	for i, w := range want {
		if got, ok := rows[0][i].(float64); !ok || math.Abs(got-w) > 1e-12*w {
			t.Errorf("column %d: %v, want %v", i, rows[0][i], w)
		}
	}

	bad := must(s.b.AggregateFn(arithURN, "variance", dist("BOTH"), s.ref(tb, 2)))
	ag = must(s.b.AggregateExprs(tb, []splan.AggRelMeasure{s.b.Measure(bad, nil)}))
	if _, _, err := run(t, mem, c, s.plan(ag, "v"), plan.Options{}, nil, 2); !errors.Is(err, plan.ErrInvalidPlan) {
		t.Fatalf("distribution BOTH: %v, want ErrInvalidPlan", err)
	}
}
