package plan

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stablerow/stablerow/exec"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// setOp plans a SetRel over two or more inputs of one record type:
//
//	UNION_ALL                    UnionExec
//	UNION_DISTINCT               HashAggregateExec grouping by every column over UnionExec
//	INTERSECTION_MULTISET [_ALL] SetOpExec INTERSECT [ALL], folded over the inputs
//	MINUS_PRIMARY [_ALL]         SetOpExec EXCEPT [ALL], folded over the secondaries
//	INTERSECTION_PRIMARY         primary INTERSECT (UNION ALL of the secondaries)
//	MINUS_MULTISET               primary EXCEPT (INTERSECT ALL of the secondaries)
//
// Rows compare with NULLs equal. Folding is exact: EXCEPT ALL subtracts
// each secondary's count in turn (max(m - n1 - n2, 0)), INTERSECT ALL takes
// the minimum count over all inputs.
func (p *planner) setOp(r *splan.SetRel) (*rel, error) {
	ins := r.Inputs()
	if len(ins) < 2 {
		return nil, fmt.Errorf("%w: SetRel with %d inputs", ErrInvalidPlan, len(ins))
	}
	nodes := make([]exec.Node, len(ins))
	var names []string
	for i, in := range ins {
		c, err := p.compile(in, nil, hint{noTake: true})
		if err != nil {
			return nil, err
		}
		if i == 0 {
			names = c.names
		}
		if len(c.cols) != len(names) {
			return nil, fmt.Errorf("%w: SetRel input %d has %d fields, input 0 has %d", ErrInvalidPlan, i, len(c.cols), len(names))
		}
		// Each input as a node of exactly its fields, under input 0's names.
		if nodes[i], err = p.finish(c, names, nil); err != nil {
			return nil, err
		}
		if err := sameColumnTypes(nodes[0].Schema(), nodes[i].Schema()); err != nil {
			return nil, fmt.Errorf("%w: SetRel input %d: %w", ErrInvalidPlan, i, err)
		}
	}
	fold := func(op exec.SetOp, inputs []exec.Node) (exec.Node, error) {
		acc := inputs[0]
		for _, in := range inputs[1:] {
			n, err := exec.NewSetOpExec(acc, in, op)
			if err != nil {
				return nil, err
			}
			acc = n
		}
		return acc, nil
	}
	union := func(inputs []exec.Node) (exec.Node, error) { return exec.NewUnionExec(inputs...) }
	var node exec.Node
	var err error
	switch r.Op() {
	case splan.SetOpUnionAll:
		node, err = union(nodes)
	case splan.SetOpUnionDistinct:
		if node, err = union(nodes); err == nil {
			node, err = distinctRows(node)
		}
	case splan.SetOpIntersectionMultiset:
		node, err = fold(exec.SetIntersect, nodes)
	case substraitpb.SetRel_SET_OP_INTERSECTION_MULTISET_ALL:
		node, err = fold(exec.SetIntersectAll, nodes)
	case splan.SetOpMinusPrimary:
		node, err = fold(exec.SetExcept, nodes)
	case substraitpb.SetRel_SET_OP_MINUS_PRIMARY_ALL:
		node, err = fold(exec.SetExceptAll, nodes)
	case splan.SetOpIntersectionPrimary:
		var any exec.Node
		if any, err = union(nodes[1:]); err == nil {
			node, err = exec.NewSetOpExec(nodes[0], any, exec.SetIntersect)
		}
	case splan.SetOpMinusMultiset:
		var all exec.Node
		if all, err = fold(exec.SetIntersectAll, nodes[1:]); err == nil {
			node, err = exec.NewSetOpExec(nodes[0], all, exec.SetExcept)
		}
	default:
		return nil, fmt.Errorf("%w: set operation %s", ErrUnsupported, r.Op())
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidPlan, err)
	}
	out := &rel{node: node, names: names}
	for i := range names {
		out.cols = append(out.cols, i)
	}
	return out, nil
}

// distinctRows is DISTINCT over every column of node: an aggregation with
// every column a group key and no measure.
func distinctRows(node exec.Node) (exec.Node, error) {
	cols := make([]int, node.Schema().NumFields())
	for i := range cols {
		cols[i] = i
	}
	return exec.NewHashAggregateExec(node, cols, nil)
}

// sameColumnTypes checks that b's columns have a's types (names and
// nullability may differ).
func sameColumnTypes(a, b *arrow.Schema) error {
	for i, f := range a.Fields() {
		if t := b.Field(i).Type; !arrow.TypeEqual(f.Type, t) {
			return fmt.Errorf("column %d types %s and %s differ", i, f.Type, t)
		}
	}
	return nil
}
