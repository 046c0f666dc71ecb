package plan

import (
	"fmt"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/stablerow/stablerow/exec"
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
)

// The take rule. The shape
//
//	[Sort(keys on D's columns)] <- [Project] <- Join(LEFT, D, T) ON D.k = T.c
//
// (Sort and Project in either order, both optional), with T a NamedTable
// read without a filter and the condition exactly that one equality, asks
// T's provider for TakeByKey(D, k, c, the T columns used above). D's key is
// converted to c's type first (an int64 key meeting a uint64 row id column
// goes through toRowID, so a negative key misses). When the provider has a
// unique index on c the join becomes its node, whose output keeps D's
// order, and the Sort is elided if D's ordering satisfies it (the unnest's
// `ord ASC`); Projects, Filters and Fetches between them keep that order
// and do not block the elision. Otherwise, or under DisableIndexes, the
// join plans as a hash join and the Sort stays, with the same rows. A Sort
// on anything but D's columns vetoes the rule for the join below it.
//
// An INNER join of the same shape becomes the take followed by a filter on
// "found" (the table's key column is not NULL), which keeps the order too.

// take tries the rule on a join; ok is false when it does not apply. The
// shape is takeJoin's (takeshape.go), the one take matcher, which the
// Flight SQL server's MatchTake shares.
func (p *planner) take(j *splan.JoinRel, jp joinParts, nl, nr int, need []bool) (*rel, bool, error) {
	s, ok, err := takeJoin(j, jp)
	if err != nil || !ok {
		return nil, false, err
	}
	read, inner := s.read, s.inner
	di, err := fieldIndex(s.dfr)
	if err != nil {
		return nil, false, err
	}
	ti := s.ti - nl
	prov, tcols, err := p.namedTable(read)
	if err != nil {
		return nil, false, err
	}
	if m := read.OutputMapping(); m != nil {
		mapped := make([]int, len(m))
		for o, f := range m {
			if f < 0 || int(f) >= len(tcols) {
				return nil, false, fmt.Errorf("%w: read emits field %d of %d", ErrInvalidPlan, f, len(tcols))
			}
			mapped[o] = tcols[f]
		}
		tcols = mapped
	}
	if len(tcols) != nr || ti < 0 || ti >= nr {
		return nil, false, fmt.Errorf("%w: join key field %d out of range", ErrInvalidPlan, ti+nl)
	}
	keyCol := tcols[ti]
	if u, ok := prov.(UniqueKeyer); ok && !u.HasUniqueIndex(keyCol) {
		return nil, false, nil // no take: compile nothing for it (UniqueKeyer)
	}
	dneed := make([]bool, nl)
	for i := range dneed {
		dneed[i] = needs(need, i) || i == di
	}
	d, err := p.compile(j.Left(), dneed, hint{})
	if err != nil {
		return nil, false, err
	}
	dk, err := d.field(di)
	if err != nil {
		return nil, false, err
	}
	from, err := typeOf(dk, d)
	if err != nil {
		return nil, false, err
	}
	sc := prov.Schema()
	key, err := keyCast(dk, from, sc.Field(keyCol).Type)
	if err != nil {
		return nil, false, nil // no conversion keeps meaning; the generic join reports it
	}
	dnode, dkeys, err := keyColumns(p.extended, d.node, []physexpr.Expr{key})
	if err != nil {
		return nil, false, err
	}
	var columns []int
	pos := map[int]int{}
	for rf, c := range tcols {
		if _, dup := pos[c]; !dup && needs(need, nl+rf) {
			pos[c] = len(columns)
			columns = append(columns, c)
		}
	}
	if _, dup := pos[keyCol]; inner && !dup {
		pos[keyCol] = len(columns)
		columns = append(columns, keyCol)
	}
	node, ok, err := prov.TakeByKey(dnode, dkeys[0], keyCol, columns)
	if err != nil {
		return nil, false, fmt.Errorf("plan: take by key on %s.%s: %w", read.Names()[0], sc.Field(keyCol).Name, err)
	}
	if !ok {
		return nil, false, nil
	}
	dw := dnode.Schema().NumFields()
	if got := node.Schema().NumFields(); got != dw+len(columns) {
		return nil, false, fmt.Errorf("%w: TakeByKey on %s returned %d columns, want %d", ErrInvalidPlan, read.Names()[0], got, dw+len(columns))
	}
	if inner {
		found := physexpr.Unary{Op: physexpr.OpIsNotNull, E: physexpr.Col{Index: dw + pos[keyCol], Name: sc.Field(keyCol).Name}}
		if node, err = exec.NewFilterExec(node, found); err != nil {
			return nil, false, fmt.Errorf("%w: %v", ErrInvalidPlan, err)
		}
	}
	p.takes[node] = true
	out := &rel{node: node}
	out.cols = append(out.cols, d.cols...)
	out.names = append(out.names, d.names...)
	for rf, c := range tcols {
		k := -1
		if needs(need, nl+rf) {
			k = dw + pos[c]
		}
		out.cols = append(out.cols, k)
		out.names = append(out.names, sc.Field(c).Name)
	}
	return out, true, nil
}

// widenedField is the driving side's key column: a field reference, or
// one under a widening cast between signed integers (UNNEST of an
// integer[] joined to a bigint or row id column compares integer with
// bigint, as PostgreSQL does). The rule converts the column's own values
// to the table's key type (keyCast), which for a widening gives the same
// keys the cast does.
func widenedField(e expr.Expression) (*expr.FieldReference, bool) {
	c, ok := e.(*expr.Cast)
	if !ok {
		fr, ok := e.(*expr.FieldReference)
		return fr, ok
	}
	fr, ok := c.Input.(*expr.FieldReference)
	if !ok || fr.GetType() == nil || c.Type == nil {
		return nil, false
	}
	rank := func(t types.Type) int {
		switch t.(type) {
		case *types.Int8Type:
			return 1
		case *types.Int16Type:
			return 2
		case *types.Int32Type:
			return 3
		case *types.Int64Type:
			return 4
		}
		return 0
	}
	from, to := rank(fr.GetType()), rank(c.Type)
	return fr, from > 0 && to > from
}

// sortOnDriving reports whether a Sort's keys are all plain columns of the
// driving (left) side of a join directly below it (through at most one
// Project), i.e. whether the take shape still holds for that join. With no
// join there, nothing is vetoed.
func (p *planner) sortOnDriving(s *splan.SortRel) (bool, error) {
	in := s.Input()
	proj, _ := in.(*splan.ProjectRel)
	if proj != nil {
		in = proj.Input()
	}
	j, ok := in.(*splan.JoinRel)
	if !ok {
		return true, nil
	}
	nl, err := p.width(j.Left())
	if err != nil {
		return false, err
	}
	for _, sf := range s.Sorts() {
		fr, ok := sf.Expr.(*expr.FieldReference)
		if !ok {
			return false, nil
		}
		i, err := fieldIndex(fr)
		if err != nil {
			return false, nil
		}
		if proj != nil {
			if m := proj.OutputMapping(); m != nil {
				if i < 0 || i >= len(m) {
					return false, nil
				}
				i = int(m[i])
			}
			w, err := p.width(proj.Input())
			if err != nil {
				return false, err
			}
			if i >= w {
				es := proj.Expressions()
				if i-w >= len(es) {
					return false, nil
				}
				fr, ok := es[i-w].(*expr.FieldReference)
				if !ok {
					return false, nil
				}
				if i, err = fieldIndex(fr); err != nil {
					return false, nil
				}
			}
		}
		if m := j.OutputMapping(); m != nil {
			if i < 0 || i >= len(m) {
				return false, nil
			}
			i = int(m[i])
		}
		if i < 0 || i >= nl {
			return false, nil
		}
	}
	return true, nil
}
