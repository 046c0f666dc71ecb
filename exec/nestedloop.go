package exec

import (
	"context"
	"fmt"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/apache/arrow-go/v18/arrow"
)

// NestedLoopJoinExec joins on an arbitrary predicate (or none: a cross
// join): every right row is a candidate for every left row, and the
// predicate, evaluated over left ++ right, decides. It is the join for
// CROSS JOIN, conditions with no equality between the inputs and scalar
// subqueries (JoinSingle). Every join type is supported but the NULL-aware
// anti join, whose condition is an equality (a hash join).
//
// Limits: the right input is materialized whole (put the smaller input on
// the right); the left is streamed. Candidate pairs are tested batchSize
// at a time, so memory is the right input plus one left batch plus one
// batch of pairs, but time is |left| x |right| predicate evaluations.
// The state machine is joinStream's (joinstream.go).
type NestedLoopJoinExec struct{ joinCore }

// NewNestedLoopJoinExec joins left and right on cond (nil: every pair).
func NewNestedLoopJoinExec(left, right Node, typ JoinType, cond physexpr.Expr) (*NestedLoopJoinExec, error) {
	if !typ.valid() || typ == JoinAntiNullAware {
		return nil, fmt.Errorf("%w: nested loop join type %s", physexpr.ErrInvalidArgument, typ)
	}
	out, pair := joinSchemas(left.Schema(), right.Schema(), typ)
	bound, err := bindResidual(cond, pair)
	if err != nil {
		return nil, err
	}
	return &NestedLoopJoinExec{joinCore{left: left, right: right, typ: typ, residual: cond, bound: bound, schema: out, pair: pair}}, nil
}

func (n *NestedLoopJoinExec) Name() string           { return "NestedLoopJoinExec" }
func (n *NestedLoopJoinExec) Schema() *arrow.Schema  { return n.schema }
func (n *NestedLoopJoinExec) Children() []Node       { return []Node{n.left, n.right} }
func (n *NestedLoopJoinExec) Metrics() *Metrics      { return &n.metrics }
func (n *NestedLoopJoinExec) Properties() Properties { return joinOrdering(n.left, n.typ) }
func (n *NestedLoopJoinExec) String() string {
	s := fmt.Sprintf("NestedLoopJoinExec: type=%s", n.typ)
	if n.residual != nil {
		s += " on=" + n.residual.String()
	}
	return s
}

func (n *NestedLoopJoinExec) Execute(ctx context.Context, tc *TaskContext) (Stream, error) {
	return n.execute(tc), nil
}

// WithNewChildren is n over new inputs (the planner's row budget puts a
// LIMIT under a join's outer side).
func (n *NestedLoopJoinExec) WithNewChildren(children []Node) (Node, error) {
	if err := WantChildren(n, children, 2); err != nil {
		return nil, err
	}
	return NewNestedLoopJoinExec(children[0], children[1], n.typ, n.residual)
}
