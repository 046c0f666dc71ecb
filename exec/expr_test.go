package exec_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stretchr/testify/require"
)

var (
	colK = physexpr.Col{Index: 0, Name: "k"}
	colS = physexpr.Col{Index: 1, Name: "s"}
)

func TestFilter(t *testing.T) {
	rows := randRows(rand.New(rand.NewPCG(41, 42)), 80)
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
			Inputs:  []exectest.Input{{Schema: kvSchema, Rows: rows}},
			Build:   func(in []exec.Node) (exec.Node, error) { return exec.NewFilterExec(in[0], c.pred) },
			Want:    want,
			Ordered: true,
		})
	}
	v, _ := exec.NewValuesExec(kvSchema, nil)
	if _, err := exec.NewFilterExec(v, colK); !errors.Is(err, physexpr.ErrSchema) {
		t.Fatal(err)
	}
	if _, err := exec.NewFilterExec(v, physexpr.Binary{Op: physexpr.OpEq, L: colK, R: colS}); !errors.Is(err, physexpr.ErrSchema) {
		t.Fatal(err)
	}
}

func TestProject(t *testing.T) {
	rows := randRows(rand.New(rand.NewPCG(43, 44)), 30)
	var want [][]any
	for _, r := range rows {
		var d any
		if r[0] != nil {
			d = r[0].(int64) - 1
		}
		want = append(want, []any{r[1], d, r[0] == nil})
	}
	exectest.Run(t, exectest.Case{
		Inputs: []exectest.Input{{Schema: kvSchema, Rows: rows}},
		Build: func(in []exec.Node) (exec.Node, error) {
			return exec.NewProjectExec(in[0], []physexpr.Expr{colS, physexpr.Binary{Op: physexpr.OpSub, L: colK, R: physexpr.Lit{Value: int64(1)}}, physexpr.Unary{Op: physexpr.OpIsNull, E: colK}},
				[]string{"s", "d", "knull"})
		},
		Want:    want,
		Ordered: true,
	})
	// Integer division by zero is an error, not a panic or a silent value.
	mem := exectest.Mem(t)
	b, _ := exectest.Batch(mem, kvSchema, [][]any{{int64(1), "a"}})
	v, _ := exec.NewValuesExec(kvSchema, []arrow.RecordBatch{b})
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

// TestInSetMatchesOrChain: the hash-set IN agrees with the Kleene OR of
// equalities (SQL's definition) on random columns with NULLs, for lists with
// and without a NULL, over int64, float64 and string operands.
func TestInSetMatchesOrChain(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(8, 8))
	types := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64, arrow.BinaryTypes.String}
	for round := 0; round < 60; round++ {
		typ := types[round%len(types)]
		val := func() any {
			x := r.IntN(12)
			switch typ.ID() {
			case arrow.INT64:
				return int64(x)
			case arrow.FLOAT64:
				return float64(x) / 2
			}
			return fmt.Sprint("s", x)
		}
		schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: typ, Nullable: true}}, nil)
		var rows [][]any
		for range 200 {
			if r.IntN(6) == 0 {
				rows = append(rows, []any{nil})
			} else {
				rows = append(rows, []any{val()})
			}
		}
		b, err := exectest.Batch(mem, schema, rows)
		require.NoError(t, err)
		var list []physexpr.Lit
		for range 1 + r.IntN(5) {
			list = append(list, physexpr.Lit{Value: val()})
		}
		if round%2 == 1 {
			list = append(list, physexpr.Lit{Type: typ})
		}
		in := physexpr.In{E: physexpr.Col{Index: 0, Name: "x"}, List: list}
		got, err := in.Evaluate(ctx, mem, b)
		require.NoError(t, err)
		var want physexpr.Expr
		for _, l := range list {
			eq := physexpr.Binary{Op: physexpr.OpEq, L: physexpr.Col{Index: 0, Name: "x"}, R: l}
			if want == nil {
				want = eq
			} else {
				want = physexpr.Binary{Op: physexpr.OpOr, L: want, R: eq}
			}
		}
		ref, err := want.Evaluate(ctx, mem, b)
		require.NoError(t, err)
		require.True(t, array.Equal(ref, got), "round %d (%s, list %v):\nwant %v\ngot  %v", round, typ, list, ref, got)
		got.Release()
		ref.Release()
		b.Release()
	}
}
