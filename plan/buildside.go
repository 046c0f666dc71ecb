package plan

import (
	"strings"

	"github.com/stablerow/stablerow/exec"
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

// filterKeeps is the fraction of rows an estimate assumes each conjunct
// of a filter keeps (the SQL front end's join-order heuristic, sql's
// fromWhere, uses the same quarter).
const filterKeeps = 0.25

// estimate is a relation's estimated rows, and the fraction of its
// largest base table's rows they are (how selective the relation is as a
// build side: a key join keeps that fraction of the probe rows).
type estimate struct {
	rows, frac float64
}

// estimateRows estimates r's output rows from the live row counts of the
// tables it reads, ok false when any input is unknown (no row counter, a
// file or extension read). The estimate: a table read is its live rows; a
// filter (or a read's filter) keeps a quarter per conjunct; a projection
// or sort keeps its input; a fetch at most its count; an aggregate without
// grouping is one row, with grouping at most its input; an inner join of a
// larger and a smaller input keeps the smaller's fraction of the larger
// (a key join), a cross join is the product; semi, anti, LEFT and single
// joins keep their left input, RIGHT its right one, FULL the larger; a
// union is the sum and the other set operations their first input.
func (p *planner) estimateRows(r splan.Rel) (estimate, bool) {
	if p.ctx.Err() != nil {
		return estimate{}, false
	}
	switch r := r.(type) {
	case *splan.NamedTableReadRel:
		rc, ok := p.cat.(RowCounter)
		names := r.Names()
		if !ok || len(names) != 1 {
			return estimate{}, false
		}
		n, ok := rc.TableRows(names[0])
		if !ok {
			if n, ok = rc.TableRows(strings.ToLower(names[0])); !ok {
				return estimate{}, false
			}
		}
		e := estimate{rows: float64(n), frac: 1}
		return e.filtered(len(conjuncts(r.Filter())) + len(conjuncts(r.BestEffortFilter()))), true
	case *splan.VirtualTableReadRel:
		return estimate{rows: float64(len(r.Values())), frac: 1}, true
	case *splan.FilterRel:
		e, ok := p.estimateRows(r.Input())
		return e.filtered(len(conjuncts(r.Condition()))), ok
	case *splan.ProjectRel:
		return p.estimateRows(r.Input())
	case *splan.SortRel:
		return p.estimateRows(r.Input())
	case *splan.FetchRel:
		e, ok := p.estimateRows(r.Input())
		if c := float64(r.Count()); c >= 0 && c < e.rows {
			e.frac *= c / max(e.rows, 1)
			e.rows = c
		}
		return e, ok
	case *splan.AggregateRel:
		e, ok := p.estimateRows(r.Input())
		if len(r.GroupingExpressions()) == 0 {
			return estimate{rows: 1, frac: 1 / max(e.rows, 1)}, ok
		}
		return e, ok
	case *splan.CrossRel:
		l, ok1 := p.estimateRows(r.Left())
		rr, ok2 := p.estimateRows(r.Right())
		return estimate{rows: l.rows * rr.rows, frac: 1}, ok1 && ok2
	case *splan.JoinRel:
		l, ok1 := p.estimateRows(r.Left())
		rr, ok2 := p.estimateRows(r.Right())
		if !ok1 || !ok2 {
			return estimate{}, false
		}
		switch r.Type() {
		case splan.JoinTypeInner:
			big, small := l, rr
			if small.rows > big.rows {
				big, small = small, big
			}
			return estimate{rows: big.rows * small.frac, frac: big.frac * small.frac}, true
		case splan.JoinTypeRight:
			return rr, true
		case splan.JoinTypeOuter:
			if rr.rows > l.rows {
				return rr, true
			}
			return l, true
		}
		return l, true
	case *splan.SetRel:
		in := r.Inputs()
		if len(in) == 0 {
			return estimate{}, false
		}
		e, ok := p.estimateRows(in[0])
		if r.Op() == splan.SetOpUnionAll || r.Op() == splan.SetOpUnionDistinct {
			for _, x := range in[1:] {
				ex, okx := p.estimateRows(x)
				e.rows, ok = e.rows+ex.rows, ok && okx
			}
		}
		return e, ok
	}
	return estimate{}, false
}

// filtered is e after n filter conjuncts.
func (e estimate) filtered(n int) estimate {
	for range n {
		e.rows *= filterKeeps
		e.frac *= filterKeeps
	}
	return e
}

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
	le, ok := p.estimateRows(l)
	if !ok {
		return typ, false
	}
	re, ok := p.estimateRows(r)
	if !ok || re.rows <= swapFactor*le.rows {
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
