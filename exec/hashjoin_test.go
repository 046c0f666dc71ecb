package exec_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/internal/arrowtest"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
)

var rSchema = arrow.NewSchema([]arrow.Field{
	{Name: "rk", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "rs", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "rv", Type: arrow.PrimitiveTypes.Int64},
}, nil)

// nestedLoop is the reference join: for each left row in order, every right
// row with equal non-NULL keys, in right order; unmatched left rows get NULLs for LEFT.
func nestedLoop(left, right [][]any, lk, rk []int, left_ bool) [][]any {
	var out [][]any
	for _, l := range left {
		matched := false
		for _, r := range right {
			eq := true
			for i := range lk {
				if l[lk[i]] == nil || r[rk[i]] == nil || l[lk[i]] != r[rk[i]] {
					eq = false
					break
				}
			}
			if eq {
				matched = true
				out = append(out, append(append([]any{}, l...), r...))
			}
		}
		if !matched && left_ {
			row := append([]any{}, l...)
			out = append(out, append(row, make([]any, len(right[0]))...))
		}
	}
	return out
}

func TestHashJoin(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	left := arrowtest.RandRows(r, 40)
	right := make([][]any, 25)
	for i := range right {
		rr := arrowtest.RandRows(r, 1)[0]
		right[i] = []any{rr[0], rr[1], int64(i)}
	}
	for _, keys := range [][2][]int{{{0}, {0}}, {{1}, {1}}, {{0, 1}, {0, 1}}} {
		for _, typ := range []exec.JoinType{exec.JoinInner, exec.JoinLeft} {
			want := nestedLoop(left, right, keys[0], keys[1], typ == exec.JoinLeft)
			exectest.Run(t, exectest.Case{
				Inputs: []exectest.Input{{Schema: arrowtest.KVSchema, Rows: left}, {Schema: rSchema, Rows: right}},
				Build: func(in []exec.Node) (exec.Node, error) {
					return exec.NewHashJoinExec(in[0], in[1], keys[0], keys[1], typ)
				},
				Want:    want,
				Ordered: true, // probe preserves left order, chains keep right order
			})
		}
	}
	// Empty build side.
	exectest.Run(t, exectest.Case{
		Inputs: []exectest.Input{{Schema: arrowtest.KVSchema, Rows: left[:3]}, {Schema: rSchema, Rows: nil}},
		Build: func(in []exec.Node) (exec.Node, error) {
			return exec.NewHashJoinExec(in[0], in[1], []int{0}, []int{0}, exec.JoinLeft)
		},
		Want: [][]any{
			{left[0][0], left[0][1], nil, nil, nil},
			{left[1][0], left[1][1], nil, nil, nil},
			{left[2][0], left[2][1], nil, nil, nil},
		},
		Ordered: true,
	})
}

func TestHashJoinErrors(t *testing.T) {
	l, _ := exec.NewValuesExec(arrowtest.KVSchema, nil)
	rn, _ := exec.NewValuesExec(rSchema, nil)
	if _, err := exec.NewHashJoinExec(l, rn, []int{0}, []int{1}, exec.JoinInner); !errors.Is(err, physexpr.ErrSchema) {
		t.Fatal(err)
	}
	if _, err := exec.NewHashJoinExec(l, rn, nil, nil, exec.JoinInner); !errors.Is(err, physexpr.ErrInvalidArgument) {
		t.Fatal(err)
	}
	j, err := exec.NewHashJoinExec(l, rn, []int{0}, []int{0}, exec.JoinLeft)
	if err != nil {
		t.Fatal(err)
	}
	if j.String() != "HashJoinExec: type=Left on=[(k, rk)]" {
		t.Fatal(j.String())
	}
	// Left ordering is preserved.
	u, _ := exec.NewUnnestExec([]int64{1, 2})
	uu, _ := exec.NewUnnestExec([]int64{2})
	ju, _ := exec.NewHashJoinExec(u, uu, []int{0}, []int{0}, exec.JoinInner)
	if !exec.OrderingSatisfies(ju.Properties().Ordering, u.Properties().Ordering) {
		t.Fatal("join must keep left ordering")
	}
	// Cancellation before build, and Close releases everything.
	mem := exectest.Mem(t)
	ctx, cancel := context.WithCancel(context.Background())
	s, _ := ju.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: 1})
	cancel()
	if _, err := s.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	s.Close()
	s2, _ := ju.Execute(context.Background(), &exec.TaskContext{Mem: mem, BatchSize: 1})
	b, err := s2.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b.Release()
	s2.Close()
}

// TestEmptyBuildStopsProbe: an inner or semi join whose build side is
// empty reads one left batch and no more (nothing can match, and these
// types emit matched left rows only), with the hash and the nested-loop
// join alike; a LEFT or ANTI join still reads and emits every left row.
func TestEmptyBuildStopsProbe(t *testing.T) {
	ids := make([]int64, 1000)
	for i := range ids {
		ids[i] = int64(i)
	}
	for _, c := range []struct {
		typ     exec.JoinType
		rows    int64 // output rows
		batches int64 // left batches read (at most, when no row is out)
	}{
		{exec.JoinInner, 0, 1}, {exec.JoinSemi, 0, 1},
		{exec.JoinLeft, 1000, 10}, {exec.JoinAnti, 1000, 10},
	} {
		for _, hash := range []bool{true, false} {
			mem := exectest.Mem(t)
			left, err := exec.NewUnnestExec(ids)
			if err != nil {
				t.Fatal(err)
			}
			empty, err := exec.NewUnnestExec([]int64{})
			if err != nil {
				t.Fatal(err)
			}
			var j exec.Node
			if hash {
				j, err = exec.NewHashJoinExec(left, empty, []int{0}, []int{0}, c.typ)
			} else {
				j, err = exec.NewNestedLoopJoinExec(left, empty, c.typ, nil)
			}
			if err != nil {
				t.Fatal(err)
			}
			st, err := j.Execute(t.Context(), &exec.TaskContext{Mem: mem, BatchSize: 100})
			if err != nil {
				t.Fatal(err)
			}
			bs, err := exec.Collect(t.Context(), st)
			if err != nil {
				t.Fatal(err)
			}
			var rows int64
			for _, b := range bs {
				rows += b.NumRows()
				b.Release()
			}
			st.Close()
			read := left.Metrics().OutputBatches.Load()
			// At most: a gated join (joingate.go) builds before it
			// pulls the first left batch.
			if rows != c.rows || read > c.batches || c.rows > 0 && read != c.batches {
				t.Fatalf("%s hash=%v: %d rows from %d left batches, want %d from %d", c.typ, hash, rows, read, c.rows, c.batches)
			}
		}
	}
}
