package exec_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/internal/arrowtest"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
)

// BenchmarkJoinTypes runs each join type over 100K x 100K rows of random
// keys (BenchmarkHashJoin's inputs), and a nested loop join of 1K x 1K
// rows on an inequality (1M predicate evaluations).
func BenchmarkJoinTypes(b *testing.B) {
	mem := exectest.Mem(b)
	r := rand.New(rand.NewPCG(1, 1))
	values := func(n int) *exec.ValuesExec {
		bt, _ := exectest.Batch(mem, arrowtest.KVSchema, benchRows(n, r))
		v, _ := exec.NewValuesExec(arrowtest.KVSchema, []arrow.RecordBatch{bt})
		bt.Release()
		return v
	}
	l, rr := values(100_000), values(100_000)
	sl, sr := values(1000), values(1000)
	defer func() {
		for _, v := range []*exec.ValuesExec{l, rr, sl, sr} {
			v.Release()
		}
	}()
	run := func(b *testing.B, j exec.Node) {
		for b.Loop() {
			s, _ := j.Execute(b.Context(), &exec.TaskContext{Mem: mem, BatchSize: 8192})
			out, err := exec.Collect(b.Context(), s)
			if err != nil {
				b.Fatal(err)
			}
			for _, o := range out {
				o.Release()
			}
		}
	}
	for _, typ := range []exec.JoinType{exec.JoinInner, exec.JoinFull, exec.JoinSemi, exec.JoinAnti, exec.JoinAntiNullAware} {
		b.Run("hash/"+typ.String(), func(b *testing.B) {
			j, err := exec.NewHashJoinExec(l, rr, []int{0}, []int{0}, typ)
			if err != nil {
				b.Fatal(err)
			}
			run(b, j)
		})
	}
	b.Run("nestedloop/lt-1Kx1K", func(b *testing.B) {
		lt := physexpr.Binary{Op: physexpr.OpLt, L: physexpr.Col{Index: 0, Name: "k"}, R: physexpr.Col{Index: 2, Name: "k"}}
		j, err := exec.NewNestedLoopJoinExec(sl, sr, exec.JoinSemi, lt)
		if err != nil {
			b.Fatal(err)
		}
		run(b, j)
	})
}
