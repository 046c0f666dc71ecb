package exec_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/internal/arrowtest"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
)

// FuzzJoins decodes small NULL-heavy inputs from the bytes (a byte per
// row: key 0..3 or NULL) and checks every join type, hash and nested
// loop, with and without the residual, and NOT IN's anti join, against
// the reference model, with every batch size the first byte picks.
func FuzzJoins(f *testing.F) {
	f.Add([]byte{3, 2, 0, 1, 2, 4, 0xff, 1, 2, 4})
	f.Add([]byte{1, 0, 4, 4, 4})
	f.Add([]byte{2, 5, 0, 1, 2, 3, 4, 0, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 || len(data) > 64 {
			return
		}
		batch := int(data[0]%8) + 1
		nl := int(data[1]) % (len(data) - 1)
		key := func(b byte) any {
			if b%5 == 4 {
				return nil
			}
			return int64(b % 5)
		}
		var left, right [][]any
		for i, b := range data[2:] {
			if i < nl {
				left = append(left, []any{key(b), "l"})
			} else {
				right = append(right, []any{key(b), "r", int64(b / 5 % 4)})
			}
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		run := func(typ exec.JoinType, build func(l, r exec.Node) (exec.Node, error)) [][]any {
			lb, err := exectest.Batch(mem, arrowtest.KVSchema, left)
			if err != nil {
				t.Fatal(err)
			}
			rb, err := exectest.Batch(mem, rSchema, right)
			if err != nil {
				t.Fatal(err)
			}
			l, _ := exec.NewValuesExec(arrowtest.KVSchema, []arrow.RecordBatch{lb})
			r, _ := exec.NewValuesExec(rSchema, []arrow.RecordBatch{rb})
			lb.Release()
			rb.Release()
			defer l.Release()
			defer r.Release()
			j, err := build(l, r)
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
				t.Fatalf("%s: %v", typ, err)
			}
			rows, err := exectest.Rows(out...)
			for _, b := range out {
				b.Release()
			}
			if err != nil {
				t.Fatal(err)
			}
			return rows
		}
		check := func(what string, got, want [][]any) {
			if len(got) == 0 && len(want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s\n got %v\nwant %v", what, got, want)
			}
		}
		eq := physexpr.Binary{Op: physexpr.OpEq, L: pk, R: prk}
		for _, typ := range allTypes {
			check("nested loop "+typ.String(), run(typ, func(l, r exec.Node) (exec.Node, error) {
				return exec.NewNestedLoopJoinExec(l, r, typ, physexpr.Binary{Op: physexpr.OpAnd, L: eq, R: residualGt})
			}), refJoin(left, right, 3, typ, keyEqGt))
		}
		// The hash joins twice: with the dense index the keys 0..3 take,
		// then with the hash table's.
		for _, index := range []string{"dense", "hashed"} {
			if index == "hashed" {
				exec.HashedJoinIndex(t)
			}
			for _, typ := range allTypes {
				check("hash ("+index+") "+typ.String(), run(typ, func(l, r exec.Node) (exec.Node, error) {
					return exec.NewHashJoinExec(l, r, []int{0}, []int{0}, typ)
				}), refJoin(left, right, 3, typ, keyEq))
				check("hash+residual ("+index+") "+typ.String(), run(typ, func(l, r exec.Node) (exec.Node, error) {
					return exec.NewHashJoinExecResidual(l, r, []int{0}, []int{0}, typ, residualGt)
				}), refJoin(left, right, 3, typ, keyEqGt))
			}
			check("not in ("+index+")", run(exec.JoinAntiNullAware, func(l, r exec.Node) (exec.Node, error) {
				return exec.NewHashJoinExec(l, r, []int{0}, []int{0}, exec.JoinAntiNullAware)
			}), refNotIn(left, right))
		}
	})
}
