package exec_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/exec/physexpr"
)

// TestFilterRowBudget: under a LIMIT that reads n rows, a filter whose
// condition raises on a row after the n-th kept one does not raise, as
// PostgreSQL's qual is evaluated row by row as the Limit pulls; one that
// raises before it does. 10 / (k - 3) > 0 over k = 5, 4, 3, ... raises
// at the third row: a budget of 1 or 2 keeps 5, 4; of 3 it raises. Every
// input chunking gives the same answer.
func TestFilterRowBudget(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	k := physexpr.Col{Index: 0, Name: "k"}
	pred := physexpr.Binary{Op: physexpr.OpGt,
		L: physexpr.Binary{Op: physexpr.OpDiv, L: physexpr.Lit{Value: int64(10)}, R: physexpr.Binary{Op: physexpr.OpSub, L: k, R: physexpr.Lit{Value: int64(3)}}},
		R: physexpr.Lit{Value: int64(0)}}
	rows := [][]any{{int64(2)}, {int64(5)}, {int64(4)}, {int64(3)}, {int64(6)}}
	for _, c := range []struct {
		budget int64
		want   [][]any
	}{
		{1, [][]any{{int64(5)}}},
		{2, [][]any{{int64(5)}, {int64(4)}}},
	} {
		exectest.Run(t, exectest.Case{
			Inputs: []exectest.Input{{Schema: schema, Rows: rows}},
			Build: func(in []exec.Node) (exec.Node, error) {
				f, err := exec.NewFilterExec(in[0], pred)
				if err != nil {
					return nil, err
				}
				return exec.NewLimitExec(f.WithRowBudget(c.budget), 0, c.budget), nil
			},
			Want:    c.want,
			Ordered: true,
		})
	}
	for _, chunk := range []int{1, 2, 5} {
		t.Run(fmt.Sprintf("raises/chunk=%d", chunk), func(t *testing.T) {
			mem := exectest.Mem(t)
			bs, err := exectest.Chunk(mem, schema, rows, chunk, false)
			if err != nil {
				t.Fatal(err)
			}
			v, err := exec.NewValuesExec(schema, bs)
			for _, b := range bs {
				b.Release()
			}
			if err != nil {
				t.Fatal(err)
			}
			defer v.Release()
			f, err := exec.NewFilterExec(v, pred)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range []exec.Node{f, f.WithRowBudget(3)} {
				s, err := n.Execute(context.Background(), &exec.TaskContext{Mem: mem})
				if err != nil {
					t.Fatal(err)
				}
				out, err := exec.Collect(context.Background(), s)
				for _, b := range out {
					b.Release()
				}
				if !errors.Is(err, physexpr.ErrDivisionByZero) {
					t.Fatalf("%s: %v, want division by zero", n, err)
				}
			}
		})
	}
}
