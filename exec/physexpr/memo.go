package physexpr

import (
	"context"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Memo is E with its Bind result kept: binding it again against the same
// schema (the same *arrow.Schema) returns the Bound of the first time
// instead of walking E's tree again.
//
// Why: Bind, and so DataType, walks the whole tree below a node. A
// planner that builds a tree bottom-up and asks each new node its type
// (to convert operands, to check the node) would walk the subtree at
// every level, quadratic in the depth: 1000 nested calls bound 500,000
// nodes (issue 32). Built over operands that are Memos, a node binds in
// time proportional to its own operands.
//
// A Memo is transparent: String is E's, the Bound is E's own (not a
// wrapper), and AND/OR chains flatten through it as through E. Nodes are
// immutable, so the kept Bound stays right; Bound values are safe for
// concurrent use, so one Bound may serve every operator that binds the
// Memo. Use NewMemo, which leaves leaves as they are.
type Memo struct {
	E     Expr
	bound atomic.Pointer[memoBound]
}

type memoBound struct {
	schema *arrow.Schema
	b      Bound
}

// NewMemo returns e as a *Memo, or e itself when memoizing gains nothing:
// a column or a literal (bound in constant time, and matched by type
// elsewhere: a projection passes a Col through), or a Memo already.
func NewMemo(e Expr) Expr {
	switch e.(type) {
	case nil, Col, Lit, *Memo:
		return e
	}
	return &Memo{E: e}
}

// Unwrap returns the memoized expression.
func (m *Memo) Unwrap() Expr { return m.E }

func (m *Memo) String() string { return m.E.String() }

// Bind returns the Bound of E against s, kept from the first time for s.
func (m *Memo) Bind(s *arrow.Schema) (Bound, error) {
	if c := m.bound.Load(); c != nil && c.schema == s {
		return c.b, nil
	}
	b, err := Bind(m.E, s)
	if err != nil {
		return nil, err
	}
	m.bound.CompareAndSwap(nil, &memoBound{schema: s, b: b})
	return b, nil
}

func (m *Memo) DataType(s *arrow.Schema) (arrow.DataType, error) { return dataType(m, s) }
func (m *Memo) Evaluate(ctx context.Context, mem memory.Allocator, b arrow.RecordBatch) (arrow.Array, error) {
	return evaluate(ctx, mem, m, b)
}

// unmemo returns the expression under any Memos.
func unmemo(e Expr) Expr {
	for {
		m, ok := e.(*Memo)
		if !ok {
			return e
		}
		e = m.E
	}
}
