package exec_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/internal/arrowtest"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
)

// collectJoin runs build over the two inputs at batch size batch and returns
// its rows in order.
func collectJoin(t testing.TB, mem memory.Allocator, a, b [][]any, aSchema, bSchema *arrow.Schema, batch int, build func(a, b exec.Node) (exec.Node, error)) [][]any {
	t.Helper()
	ab, err := exectest.Chunk(mem, aSchema, a, 3, false)
	if err != nil {
		t.Fatal(err)
	}
	bb, err := exectest.Chunk(mem, bSchema, b, 5, false)
	if err != nil {
		t.Fatal(err)
	}
	an, _ := exec.NewValuesExec(aSchema, ab)
	bn, _ := exec.NewValuesExec(bSchema, bb)
	for _, x := range append(ab, bb...) {
		x.Release()
	}
	defer an.Release()
	defer bn.Release()
	j, err := build(an, bn)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := j.Execute(ctx, &exec.TaskContext{Mem: mem, BatchSize: batch})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Collect(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := exectest.Rows(out...)
	for _, o := range out {
		o.Release()
	}
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// RIGHT SEMI and RIGHT ANTI with the inputs swapped are the existing
// left-build SEMI and ANTI: the same rows in the same order (the build
// side's order is the swapped join's left order), on random inputs with
// duplicate and NULL keys, with and without a residual, hash and nested
// loop, at several batch sizes.
func TestRightSemiAntiEqualSwappedLeftBuild(t *testing.T) {
	mem := exectest.Mem(t)
	defer mem.AssertSize(t, 0)
	// Pair of RIGHT x (probe kv ++ build r): k=0, rk=2, rv=4. Pair of the
	// swapped left-build join (r ++ kv): rk=0, rv=2, k=3.
	rightRes := residualGt // rv > k
	swapEq := physexpr.Binary{Op: physexpr.OpEq, L: physexpr.Col{Index: 0, Name: "rk"}, R: physexpr.Col{Index: 3, Name: "k"}}
	swapRes := physexpr.Binary{Op: physexpr.OpGt, L: physexpr.Col{Index: 2, Name: "rv"}, R: physexpr.Col{Index: 3, Name: "k"}}
	rightEq := physexpr.Binary{Op: physexpr.OpEq, L: pk, R: prk}
	for seed := uint64(0); seed < 30; seed++ {
		probe, build := joinInputs(seed, int(seed%7)*9, int(seed%5)*11)
		for _, c := range []struct {
			right, left exec.JoinType
		}{{exec.JoinRightSemi, exec.JoinSemi}, {exec.JoinRightAnti, exec.JoinAnti}} {
			for _, batch := range []int{1, 4, 1024} {
				name := fmt.Sprintf("seed=%d/%s/batch=%d", seed, c.right, batch)
				cases := []struct {
					what        string
					right, left func(a, b exec.Node) (exec.Node, error)
				}{
					{"hash", func(p, b exec.Node) (exec.Node, error) {
						return exec.NewHashJoinExec(p, b, []int{0}, []int{0}, c.right)
					}, func(b, p exec.Node) (exec.Node, error) {
						return exec.NewHashJoinExec(b, p, []int{0}, []int{0}, c.left)
					}},
					{"hash+residual", func(p, b exec.Node) (exec.Node, error) {
						return exec.NewHashJoinExecResidual(p, b, []int{0}, []int{0}, c.right, rightRes)
					}, func(b, p exec.Node) (exec.Node, error) {
						return exec.NewHashJoinExecResidual(b, p, []int{0}, []int{0}, c.left, swapRes)
					}},
					{"nested loop", func(p, b exec.Node) (exec.Node, error) {
						return exec.NewNestedLoopJoinExec(p, b, c.right, physexpr.Binary{Op: physexpr.OpAnd, L: rightEq, R: rightRes})
					}, func(b, p exec.Node) (exec.Node, error) {
						return exec.NewNestedLoopJoinExec(b, p, c.left, physexpr.Binary{Op: physexpr.OpAnd, L: swapEq, R: swapRes})
					}},
				}
				for _, k := range cases {
					got := collectJoin(t, mem, probe, build, arrowtest.KVSchema, rSchema, batch, k.right)
					want := collectJoin(t, mem, build, probe, rSchema, arrowtest.KVSchema, batch, k.left)
					if len(got)+len(want) > 0 && !reflect.DeepEqual(got, want) {
						t.Fatalf("%s %s\n got %v\nwant %v", name, k.what, got, want)
					}
				}
			}
		}
	}
}

// The build stays lazy where the answer needs no build row: RIGHT SEMI of
// an empty probe side never runs its build input; RIGHT ANTI must (every
// build row is the answer).
func TestRightSemiAntiShape(t *testing.T) {
	mem := exectest.Mem(t)
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	empty, _ := exec.NewValuesExec(arrowtest.KVSchema, nil)
	fail := failNode{exec.Node(empty)}
	semi, err := exec.NewHashJoinExec(empty, fail, []int{0}, []int{0}, exec.JoinRightSemi)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := semi.Execute(ctx, &exec.TaskContext{Mem: mem})
	if out, err := exec.Collect(ctx, s); err != nil || len(out) != 0 {
		t.Fatalf("right semi of an empty probe: %v %v", out, err)
	}
	s.Close()
	anti, _ := exec.NewHashJoinExec(empty, fail, []int{0}, []int{0}, exec.JoinRightAnti)
	s, _ = anti.Execute(ctx, &exec.TaskContext{Mem: mem})
	if _, err := exec.Collect(ctx, s); !errors.Is(err, errBoom) {
		t.Fatalf("right anti of an empty probe must run its build: %v", err)
	}
	s.Close()
	r, _ := exec.NewValuesExec(rSchema, nil)
	for _, typ := range []exec.JoinType{exec.JoinRightSemi, exec.JoinRightAnti} {
		j, _ := exec.NewHashJoinExec(empty, r, []int{0}, []int{0}, typ)
		if !j.Schema().Equal(rSchema) || j.Properties().Ordering != nil {
			t.Fatalf("%s: schema %s, ordering %v: want the build schema, no ordering", typ, j.Schema(), j.Properties().Ordering)
		}
	}
	if _, err := exec.NewHashJoinExec(empty, r, []int{0}, []int{0}, exec.JoinMark+1); !errors.Is(err, physexpr.ErrInvalidArgument) {
		t.Fatal(err)
	}
}

// BenchmarkSemiBuildSide is TPC-H Q4's shape: 20K outer rows, each EXISTS
// in 400K subquery rows (20 per key). Semi builds the 400K subquery rows;
// RightSemi (inputs swapped) builds the 20K outer rows.
func BenchmarkSemiBuildSide(b *testing.B) {
	mem := exectest.Mem(b)
	r := rand.New(rand.NewPCG(1, 1))
	outer := make([][]any, 20_000)
	for i := range outer {
		outer[i] = []any{int64(i * 3), "o"}
	}
	sub := make([][]any, 400_000)
	for i := range sub {
		sub[i] = []any{int64(r.IntN(60_000)), "l"}
	}
	ob, _ := exectest.Batch(mem, arrowtest.KVSchema, outer)
	sb, _ := exectest.Batch(mem, arrowtest.KVSchema, sub)
	on, _ := exec.NewValuesExec(arrowtest.KVSchema, []arrow.RecordBatch{ob})
	sn, _ := exec.NewValuesExec(arrowtest.KVSchema, []arrow.RecordBatch{sb})
	ob.Release()
	sb.Release()
	defer on.Release()
	defer sn.Release()
	semi, _ := exec.NewHashJoinExec(on, sn, []int{0}, []int{0}, exec.JoinSemi)
	rsemi, _ := exec.NewHashJoinExec(sn, on, []int{0}, []int{0}, exec.JoinRightSemi)
	for _, j := range []exec.Node{semi, rsemi} {
		b.Run(j.(*exec.HashJoinExec).String(), func(b *testing.B) {
			n := 0
			for b.Loop() {
				s, _ := j.Execute(b.Context(), &exec.TaskContext{Mem: mem, BatchSize: 8192})
				out, err := exec.Collect(b.Context(), s)
				if err != nil {
					b.Fatal(err)
				}
				n = 0
				for _, o := range out {
					n += int(o.NumRows())
					o.Release()
				}
			}
			if n == 0 {
				b.Fatal("no rows")
			}
		})
	}
}
