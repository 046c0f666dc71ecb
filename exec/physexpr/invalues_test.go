package physexpr_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stretchr/testify/require"
)

// TestInValuesMatchesIn: IN over a typed slice (a long list of
// constants) agrees with In over the same values as literals, on random
// columns with NULLs, with and without a NULL in the list, for int32,
// int64, float64 and string operands, lists short and long; a list of
// another type than the operand is an error, not a wrong answer.
func TestInValuesMatchesIn(t *testing.T) {
	mem := exectest.Mem(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(26, 6))
	types := []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64, arrow.BinaryTypes.String}
	for round := 0; round < 48; round++ {
		typ := types[round%len(types)]
		val := func() any { return randOperand(r, typ, 40) }
		b := randOperandBatch(t, mem, r, typ, 300, val)
		n := 1 + r.IntN(5)
		if round%3 == 0 {
			n = 100
		}
		var lits []physexpr.Lit
		var i32 []int32
		var i64 []int64
		var f64 []float64
		var strs []string
		for range n {
			v := val()
			lits = append(lits, physexpr.Lit{Value: v})
			switch x := v.(type) {
			case int32:
				i32 = append(i32, x)
			case int64:
				i64 = append(i64, x)
			case float64:
				f64 = append(f64, x)
			case string:
				strs = append(strs, x)
			}
		}
		null := round%2 == 1
		if null {
			lits = append(lits, physexpr.Lit{Type: typ})
		}
		values := map[arrow.Type]any{arrow.INT32: i32, arrow.INT64: i64, arrow.FLOAT64: f64, arrow.STRING: strs}[typ.ID()]
		x := physexpr.Col{Index: 0, Name: "x"}
		in := physexpr.InValues{E: x, Values: values, Null: null}
		require.True(t, strings.HasSuffix(in.String(), fmt.Sprintf("IN (%d values%s)", n, map[bool]string{true: " and NULL"}[null])), in.String())
		got, err := in.Evaluate(ctx, mem, b)
		require.NoError(t, err)
		ref, err := physexpr.In{E: x, List: lits}.Evaluate(ctx, mem, b)
		require.NoError(t, err)
		require.True(t, array.Equal(ref, got), "round %d (%s, %d values, null %v):\nwant %v\ngot  %v", round, typ, n, null, ref, got)
		got.Release()
		ref.Release()
		wrong := []int64{1}
		if typ.ID() == arrow.INT64 {
			wrong = nil
		}
		if wrong != nil {
			_, err := physexpr.InValues{E: x, Values: wrong}.Evaluate(ctx, mem, b)
			require.ErrorIs(t, err, physexpr.ErrSchema)
		}
		b.Release()
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
		val := func() any { return randOperand(r, typ, 12) }
		b := randOperandBatch(t, mem, r, typ, 200, val)
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

// randOperand is one of n values of typ (int32, int64, float64 halves, or
// text "s0".."s<n-1>"): the operand and list domain of the IN tests, small
// enough that lists and rows meet.
func randOperand(r *rand.Rand, typ arrow.DataType, n int) any {
	x := r.IntN(n)
	switch typ.ID() {
	case arrow.INT32:
		return int32(x)
	case arrow.INT64:
		return int64(x)
	case arrow.FLOAT64:
		return float64(x) / 2
	}
	return fmt.Sprint("s", x)
}

// randOperandBatch is a batch of one nullable column x of typ, n rows of
// val() or NULL (1 in 6); the caller releases it.
func randOperandBatch(t *testing.T, mem memory.Allocator, r *rand.Rand, typ arrow.DataType, n int, val func() any) arrow.RecordBatch {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: typ, Nullable: true}}, nil)
	rows := make([][]any, n)
	for i := range rows {
		if r.IntN(6) == 0 {
			rows[i] = []any{nil}
		} else {
			rows[i] = []any{val()}
		}
	}
	b, err := exectest.Batch(mem, schema, rows)
	require.NoError(t, err)
	return b
}

// TestValuesLen: the length of each of InValues' value kinds, and 0 for a
// slice of another kind (which InValues' Bind refuses) rather than a panic.
func TestValuesLen(t *testing.T) {
	for _, c := range []struct {
		values any
		want   int
	}{
		{[]int32{1, 2}, 2}, {[]int64{1, 2, 3}, 3}, {[]float64{0.5}, 1}, {[]string{"a", "b", "c", "d"}, 4},
		{[]string{}, 0}, {[]int8{1, 2}, 0}, {nil, 0},
	} {
		require.Equal(t, c.want, physexpr.ValuesLen(c.values), "%T", c.values)
	}
}
