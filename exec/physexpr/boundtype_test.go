package physexpr

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// countedLeaf is an int64 expression whose Bound counts the calls of its
// Type.
type countedLeaf struct{ n *int }

func (c countedLeaf) String() string { return "leaf" }
func (c countedLeaf) DataType(s *arrow.Schema) (arrow.DataType, error) {
	return dataType(c, s)
}
func (c countedLeaf) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	return evaluate(ctx, mem, c, b)
}
func (c countedLeaf) Bind(*arrow.Schema) (Bound, error) { return countedBound(c), nil }

type countedBound struct{ n *int }

func (c countedBound) Type() arrow.DataType { *c.n++; return arrow.PrimitiveTypes.Int64 }
func (c countedBound) String() string       { return "leaf" }
func (c countedBound) Eval(context.Context, memory.Allocator, arrow.RecordBatch) (compute.Datum, error) {
	return nil, nil
}

// TestBoundTypeIsKept: binding a nesting of arithmetic, CASE, COALESCE,
// NULLIF or GREATEST asks the innermost operand its type a few times, not
// once per level above it: each bound node keeps its type (issue 32: a
// Type that asked its first operand walked the chain below it at every
// level, quadratic in the depth, with no allocation to show it).
func TestBoundTypeIsKept(t *testing.T) {
	const depth = 200
	one := Lit{Value: int64(1)}
	wraps := map[string]func(Expr) Expr{
		"arith":    func(e Expr) Expr { return Binary{Op: OpAdd, L: e, R: one} },
		"case":     func(e Expr) Expr { return Case{Whens: []When{{Cond: Lit{Value: true}, Then: e}}, Else: one} },
		"coalesce": func(e Expr) Expr { return Coalesce{Args: []Expr{e, one}} },
		"nullif":   func(e Expr) Expr { return NullIf{A: e, B: one} },
		"greatest": func(e Expr) Expr { return MinMax{Greatest: true, Args: []Expr{e, one}} },
	}
	s := arrow.NewSchema(nil, nil)
	for name, wrap := range wraps {
		n := 0
		var e Expr = countedLeaf{&n}
		for range depth {
			e = wrap(e)
		}
		b, err := Bind(e, s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b.Type()
		if n > 10 {
			t.Errorf("%s nested %d deep: the innermost operand's type asked %d times, want a few", name, depth, n)
		}
	}
}
