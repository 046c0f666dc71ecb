package exec_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
)

// TestMergeOverCoarserGroups: MergeOver merges the partial states of the
// groups by (s, b) into the groups by s alone, and into the one group of
// no keys, as a grouping set rolled up from the finest one
// (plan/rollup.go); the oracle is the serial aggregate over the rows by
// the coarser keys. Over no rows the keyless merge is one row: count 0,
// every other measure NULL.
func TestMergeOverCoarserGroups(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 5))
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	}, nil)
	aggs := []exec.Aggregate{
		{Func: exec.AggCountStar, Name: "n"}, {Func: exec.AggCount, Args: []int{0}, Name: "nk"},
		{Func: exec.AggSum, Args: []int{0}, Name: "sum"}, {Func: exec.AggAvg, Args: []int{0}, Name: "avg"},
		{Func: exec.AggMin, Args: []int{1}, Name: "min"}, {Func: exec.AggMax, Args: []int{0}, Name: "max"},
		{Func: exec.AggBoolOr, Args: []int{2}, Name: "or"},
	}
	for _, n := range []int{0, 1, 200} {
		rows := make([][]any, n)
		for i := range rows {
			var k, s, b any = int64(r.IntN(2000) - 1000), string(rune('a' + r.IntN(5))), r.IntN(3) == 0
			if r.IntN(7) == 0 {
				k = nil
			}
			if r.IntN(9) == 0 {
				s = nil
			}
			if r.IntN(8) == 0 {
				b = nil
			}
			rows[i] = []any{k, s, b}
		}
		for _, coarse := range [][]int{{0}, nil} { // by s (column 0 of the partial output), by nothing
			mem := exectest.Mem(t)
			tc := &exec.TaskContext{Mem: mem, BatchSize: 16}
			src := newParts(append(splitRows(r, rows, 3), nil), 7)
			src.schema = schema
			single, err := exec.NewHashAggregateExec(src, []int{1, 2}, aggs)
			if err != nil {
				t.Fatal(err)
			}
			partial, err := single.PartialOver(src)
			if err != nil {
				t.Fatal(err)
			}
			merge, err := single.MergeOver(partial, exec.NewCoalescePartitionsExec(partial), coarse, 2)
			if err != nil {
				t.Fatal(err)
			}
			got := collectRows(t, merge, tc)
			one := newParts([][][]any{rows}, 7)
			one.schema = schema
			var serialGroups []int
			if coarse != nil {
				serialGroups = []int{1}
			}
			serial, err := exec.NewHashAggregateExec(one, serialGroups, aggs)
			if err != nil {
				t.Fatal(err)
			}
			want := collectRows(t, serial, tc)
			if g, w := sortedRows(got), sortedRows(want); !slices.Equal(g, w) {
				t.Fatalf("%d rows, groups %v:\n got %v\nwant %v", n, coarse, g, w)
			}
			if n == 0 && coarse == nil && (len(got) != 1 || got[0][0] != int64(0) || got[0][2] != nil) {
				t.Fatalf("no rows, no keys: %v, want one row of count 0, sum NULL", got)
			}
		}
	}
	// The states must be where the partial aggregate put them.
	src := newParts([][][]any{nil}, 1)
	src.schema = schema
	single, _ := exec.NewHashAggregateExec(src, []int{1, 2}, aggs)
	partial, _ := single.PartialOver(src)
	if _, err := single.MergeOver(partial, partial, []int{0}, 1); err == nil {
		t.Fatal("MergeOver accepted states one column off")
	}
}

func collectRows(t *testing.T, n exec.Node, tc *exec.TaskContext) [][]any {
	t.Helper()
	s, err := n.Execute(context.Background(), tc)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	bs, err := exec.Collect(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, b := range bs {
			b.Release()
		}
	}()
	rows, err := exectest.Rows(bs...)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
