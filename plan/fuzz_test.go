package plan_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/internal/fuzzseed"
	"github.com/stablerow/stablerow/plan"
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
)

// seedPlans are the committed corpus: the seed query both ways, and every
// relation kind the planner handles.
func seedPlans(t testing.TB, c *testCatalog) [][]byte {
	var out [][]byte
	add := func(pb *substraitpb.Plan) {
		b, err := proto.Marshal(pb)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	add(seedPlan(t, c, false))
	add(seedPlan(t, c, true))
	for _, tc := range relationCases() {
		add(tc.build(newSB(t), c))
	}
	// Several groupings (plan/ingest/groupingsets.go): duplicate sets, and
	// a set beside the empty one.
	s := newSB(t)
	tb := s.scan(c, "t")
	cstar := must(s.b.AggregateFn(aggURN, "count", nil))
	ref := must(s.b.RootFieldRef(tb, 1))
	add(s.plan(must(s.b.AggregateExprs(tb, []splan.AggRelMeasure{s.b.Measure(cstar, nil)}, []expr.Expression{ref}, []expr.Expression{ref})), "name", "n", "set"))
	s = newSB(t)
	tb = s.scan(c, "t")
	cstar = must(s.b.AggregateFn(aggURN, "count", nil))
	add(s.plan(must(s.b.AggregateExprs(tb, []splan.AggRelMeasure{s.b.Measure(cstar, s.fn(cmpURN, "gt", s.ref(tb, 0), lit(int64(11))))},
		[]expr.Expression{s.ref(tb, 1)}, []expr.Expression{})), "name", "n"))
	return out
}

// TestFuzzBuildCorpus regenerates testdata/fuzz/FuzzBuild (STABLEROW_WRITE_CORPUS=1).
func TestFuzzBuildCorpus(t *testing.T) {
	fuzzseed.Skip(t)
	mem := exectest.Mem(t)
	fuzzseed.Write(t, "FuzzBuild", seedPlans(t, stdCatalog(t, mem)))
}

// FuzzBuild: any bytes that decode as a plan either build or fail with an
// error; Build and EXPLAIN never panic. Plans are not executed (a fuzzed
// generate_series may be endless).
func FuzzBuild(f *testing.F) {
	mem := exectest.Mem(f)
	c := stdCatalog(f, mem)
	for _, b := range seedPlans(f, c) {
		f.Add(b)
	}
	c.noData = true
	f.Fuzz(func(t *testing.T, data []byte) {
		var pb substraitpb.Plan
		if err := proto.Unmarshal(data, &pb); err != nil {
			return
		}
		for _, opt := range []plan.Options{{}, {DisableIndexes: true}} {
			n, err := plan.Build(context.Background(), &pb, c, opt)
			if err != nil {
				if errors.Is(err, plan.ErrInternal) {
					t.Fatal(err) // a panic in the planner proper, not in substrait-go's decoding
				}
				continue
			}
			_ = exec.Explain(n, false)
		}
	})
}
