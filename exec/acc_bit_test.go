package exec_test

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/exec/physexpr"
)

// TestBitAndOr: bit_and and bit_or per group (PostgreSQL's int4and,
// int8or, ... as a strict aggregate's transition): NULLs skipped, NULL
// for a group without a value, negative values' sign bits kept, the
// argument's type. Before, neither was an aggregate.
func TestBitAndOr(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "g", Type: arrow.PrimitiveTypes.Int64},
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	exectest.Run(t, exectest.Case{
		Inputs: []exectest.Input{{Schema: sc, Rows: [][]any{
			{int64(1), int32(12), int64(-8)},
			{int64(1), nil, int64(5)},
			{int64(1), int32(10), nil},
			{int64(2), nil, nil},
			{int64(3), int32(-1), int64(-2)},
			{int64(3), int32(-3), int64(1)},
		}}},
		Build: func(in []exec.Node) (exec.Node, error) {
			return exec.NewHashAggregateExec(in[0], []int{0}, []exec.Aggregate{
				{Func: exec.AggBitAnd, Args: []int{1}, Name: "ai"},
				{Func: exec.AggBitOr, Args: []int{1}, Name: "oi"},
				{Func: exec.AggBitAnd, Args: []int{2}, Name: "ax"},
				{Func: exec.AggBitOr, Args: []int{2}, Name: "ox"},
			})
		},
		Want: [][]any{
			{int64(1), int32(8), int32(14), int64(0), int64(-3)},
			{int64(2), nil, nil, nil, nil},
			{int64(3), int32(-3), int32(-1), int64(0), int64(-1)},
		},
	})
	for _, typ := range []arrow.DataType{arrow.PrimitiveTypes.Float64, arrow.BinaryTypes.String, arrow.FixedWidthTypes.Boolean} {
		if _, err := exec.AggregateType(exec.AggBitAnd, []arrow.DataType{typ}); !errors.Is(err, physexpr.ErrInvalidArgument) {
			t.Errorf("bit_and(%s): %v, want ErrInvalidArgument", typ, err)
		}
	}
}
