package exec_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/internal/arrowtest"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
)

var (
	colK = physexpr.Col{Index: 0, Name: "k"}
	colS = physexpr.Col{Index: 1, Name: "s"}
)

func TestFilter(t *testing.T) {
	rows := arrowtest.RandRows(rand.New(rand.NewPCG(41, 42)), 80)
	cases := []struct {
		pred physexpr.Expr
		ref  func(k, s any) bool // true only where SQL's predicate is TRUE
	}{
		{physexpr.Binary{Op: physexpr.OpGt, L: colK, R: physexpr.Lit{Value: int64(4)}},
			func(k, s any) bool { return k != nil && k.(int64) > 4 }},
		{physexpr.Binary{Op: physexpr.OpOr,
			L: physexpr.Binary{Op: physexpr.OpAnd, L: physexpr.Binary{Op: physexpr.OpLe, L: colK, R: physexpr.Lit{Value: int64(3)}}, R: physexpr.Binary{Op: physexpr.OpNe, L: colS, R: physexpr.Lit{Value: "c"}}},
			R: physexpr.Unary{Op: physexpr.OpIsNull, E: colK}},
			func(k, s any) bool { return k == nil || (k.(int64) <= 3 && s != nil && s.(string) != "c") }},
		{physexpr.Unary{Op: physexpr.OpNot, E: physexpr.In{E: colS, List: []physexpr.Lit{{Value: "a"}, {Value: "b"}, {Value: "q"}}}},
			func(k, s any) bool { return s != nil && s != "a" && s != "b" && s != "q" }},
		{physexpr.In{E: colK, List: []physexpr.Lit{{Value: int64(1)}, {Value: nil, Type: arrow.PrimitiveTypes.Int64}}},
			func(k, s any) bool { return k == int64(1) }},
		{physexpr.Binary{Op: physexpr.OpEq, L: physexpr.Binary{Op: physexpr.OpMul, L: colK, R: physexpr.Lit{Value: int64(2)}}, R: physexpr.Binary{Op: physexpr.OpAdd, L: colK, R: physexpr.Lit{Value: int64(3)}}},
			func(k, s any) bool { return k == int64(3) }},
		{physexpr.Unary{Op: physexpr.OpIsNotNull, E: colS},
			func(k, s any) bool { return s != nil }},
		{physexpr.Binary{Op: physexpr.OpGe, L: physexpr.Cast{E: colK, To: arrow.PrimitiveTypes.Float64}, R: physexpr.Lit{Value: 7.5}},
			func(k, s any) bool { return k != nil && float64(k.(int64)) >= 7.5 }},
	}
	for _, c := range cases {
		var want [][]any
		for _, r := range rows {
			if c.ref(r[0], r[1]) {
				want = append(want, r)
			}
		}
		exectest.Run(t, exectest.Case{
			Inputs:  []exectest.Input{{Schema: arrowtest.KVSchema, Rows: rows}},
			Build:   func(in []exec.Node) (exec.Node, error) { return exec.NewFilterExec(in[0], c.pred) },
			Want:    want,
			Ordered: true,
		})
	}
	v, _ := exec.NewValuesExec(arrowtest.KVSchema, nil)
	if _, err := exec.NewFilterExec(v, colK); !errors.Is(err, physexpr.ErrSchema) {
		t.Fatal(err)
	}
	if _, err := exec.NewFilterExec(v, physexpr.Binary{Op: physexpr.OpEq, L: colK, R: colS}); !errors.Is(err, physexpr.ErrSchema) {
		t.Fatal(err)
	}
}

func TestProject(t *testing.T) {
	rows := arrowtest.RandRows(rand.New(rand.NewPCG(43, 44)), 30)
	var want [][]any
	for _, r := range rows {
		var d any
		if r[0] != nil {
			d = r[0].(int64) - 1
		}
		want = append(want, []any{r[1], d, r[0] == nil})
	}
	exectest.Run(t, exectest.Case{
		Inputs: []exectest.Input{{Schema: arrowtest.KVSchema, Rows: rows}},
		Build: func(in []exec.Node) (exec.Node, error) {
			return exec.NewProjectExec(in[0], []physexpr.Expr{colS, physexpr.Binary{Op: physexpr.OpSub, L: colK, R: physexpr.Lit{Value: int64(1)}}, physexpr.Unary{Op: physexpr.OpIsNull, E: colK}},
				[]string{"s", "d", "knull"})
		},
		Want:    want,
		Ordered: true,
	})
	// Integer division by zero is an error, not a panic or a silent value.
	mem := exectest.Mem(t)
	b, _ := exectest.Batch(mem, arrowtest.KVSchema, [][]any{{int64(1), "a"}})
	v, _ := exec.NewValuesExec(arrowtest.KVSchema, []arrow.RecordBatch{b})
	b.Release()
	defer v.Release()
	p, err := exec.NewProjectExec(v, []physexpr.Expr{physexpr.Binary{Op: physexpr.OpDiv, L: colK, R: physexpr.Lit{Value: int64(0)}}}, []string{"q"})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := p.Execute(t.Context(), &exec.TaskContext{Mem: mem})
	if _, err := exec.Collect(t.Context(), s); err == nil {
		t.Fatal("want divide-by-zero error")
	}
}
