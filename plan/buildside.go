package plan

import (
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/plan/optimize"
	splan "github.com/substrait-io/substrait-go/v8/plan"
)

// RowCounter is what a Catalog may also offer: a table's live row count.
// The planner uses it to choose which input of a join to build (the
// engine's catalog has it; without it every join builds its right input).
type RowCounter interface {
	TableRows(name string) (rows uint64, ok bool)
}

// A hash join builds (materializes and indexes) its right input and
// streams its left one, and building a row costs several times probing
// one. SQL puts the side to build where the query text puts it: an EXISTS
// or IN subquery, a LEFT JOIN's nullable side. When that side is the big
// one (TPC-H Q4 builds 3.8M late lineitems to probe 57K orders), the
// planner swaps the inputs and uses the RIGHT form of the join type,
// which emits the same rows:
//
//	a SEMI b    (b estimated > 2 × a)  →  b RIGHT SEMI a
//	a ANTI b    (b estimated > 2 × a)  →  b RIGHT ANTI a
//	a LEFT b    (b estimated > 2 × a)  →  b RIGHT a, columns mapped back
//
// The factor 2 is a margin for the estimate's crudeness and for what the
// swap costs: the RIGHT forms run serial (exec/join_right.go), where the
// left-build join probes its partitions in parallel. NOT IN's NULL-aware
// anti join, the scalar subquery's single join, and joins of other types
// keep their build side. The swapped join loses the left input's order
// (its rows come out after the probe); the join's Properties say so, so
// nothing above relies on it (a streaming aggregate or a sort elision
// reads Properties, and a TakeByKey is planned before this choice).

// swapFactor: the built side must be estimated this many times the other
// for the inputs to be swapped.
const swapFactor = 2

// buildLeft reports whether a join of type typ of l and r should build
// its left input instead of its right one, and the exec join type that
// does (the RIGHT form of typ).
func (p *planner) buildLeft(l, r splan.Rel, typ exec.JoinType) (exec.JoinType, bool) {
	var swapped exec.JoinType
	switch typ {
	case exec.JoinSemi:
		swapped = exec.JoinRightSemi
	case exec.JoinAnti:
		swapped = exec.JoinRightAnti
	case exec.JoinLeft:
		swapped = exec.JoinRight
	default:
		return typ, false
	}
	// The estimates are the logical optimizer's (optimize.Estimated: one
	// row estimator for join order and build side); a guess on either
	// side keeps the producer's.
	rc, ok := p.cat.(RowCounter)
	if !ok || p.ctx.Err() != nil {
		return typ, false
	}
	le, ok := optimize.Estimated(l, rc)
	if !ok {
		return typ, false
	}
	re, ok := optimize.Estimated(r, rc)
	if !ok || re.Rows <= swapFactor*le.Rows {
		return typ, false
	}
	return swapped, true
}

// swappedPair is the scope of a swapped join's residual predicate: the
// join's fields (left ++ right, as the plan numbers them) resolved to the
// pair of the exec join, whose left input is the plan's right.
func swappedPair(left, right *rel, lnode, rnode exec.Node) pairScope {
	return pairScope{cols: swappedCols(left, right, rnode.Schema().NumFields()), sc: pairSchema(rnode, lnode)}
}

// swappedCols maps the join fields (left ++ right) onto a node whose
// columns are the right node's (width rw) followed by the left node's.
func swappedCols(left, right *rel, rw int) []int {
	cols := make([]int, 0, len(left.cols)+len(right.cols))
	for _, c := range left.cols {
		if c >= 0 {
			c += rw
		}
		cols = append(cols, c)
	}
	return append(cols, right.cols...)
}
