package optimize

import (
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
)

// A filter's conjuncts are moved below the relations that do not change
// which rows they keep, towards the scans and joins where the region pass
// places them: PostgreSQL's set_subquery_pathlist pushes a qual over a
// subquery's output into the subquery (subquery_push_qual), through its
// target list, into each arm of a UNION ALL, and below its GROUP BY when
// the qual reads grouping columns only. Without it a view, a WITH query
// or a derived table is computed whole and filtered after: TPC-DS Q39
// aggregated a year of inventory (540,000 groups) to keep two months of
// it, and `SELECT * FROM (SELECT a, sum(b) FROM t GROUP BY a) s WHERE a =
// 1` every group.
//
//	Filter(c)                          Project
//	└─ Project (c's columns passed)    └─ Filter(c')          c' reads the input
//	   └─ in                              └─ in
//
//	Filter(c)                          Aggregate
//	└─ Aggregate (c reads keys)  ==▶   └─ Filter(c')          c' reads the keys' input
//	   └─ in                              └─ in
//
//	Filter(c) over UNION ALL(a, b)  ==▶  UNION ALL(Filter(c) a, Filter(c) b)
//
// A filter reached below is merged with it, its own conjuncts first: the
// executor's AND evaluates an operand only at the rows the ones before it
// left undecided, so a moved conjunct is evaluated at no row that the
// filters it passed had removed (WHERE b <> 0 in the subquery, a / b > 1
// over it, as PostgreSQL orders the cheaper qual first).
//
// What does not move, as in PostgreSQL's qual_is_pushdown_safe: a
// conjunct that reads no column, an outer query's column or a subquery;
// one over a project column that is computed (only column references and
// literals are substituted, so nothing is evaluated at other rows than
// before); anything below a project with window functions (they would
// see fewer rows), a fetch (LIMIT picks rows before the filter), grouping
// sets (a key is NULL in the sets without it), or an emit-less relation
// this pass does not know. Below a GROUP BY only keys whose equality is
// identity move: two values one group holds (0 and -0, 1.0 and 1.00,
// 'a' and 'a ' in char(n)) are told apart by some conjuncts, which would
// then keep part of the group instead of all of it or none.

// sink is the filter f with the conjuncts that can move taken below the
// relation under it; ok is false when none can.
func (o *optimizer) sink(f *splan.FilterRel) (out splan.Rel, ok bool, err error) {
	if f.GetAdvancedExtension() != nil {
		return nil, false, nil
	}
	switch in := f.Input().(type) {
	case *splan.ProjectRel:
		return o.sinkProject(f, in)
	case *splan.AggregateRel:
		return o.sinkAggregate(f, in)
	case *splan.SetRel:
		return o.sinkUnion(f, in)
	case *splan.SortRel:
		return o.sinkSort(f, in)
	}
	return nil, false, nil
}

// movable splits f's conjuncts into those through reads, mapped by
// through to conjuncts over the relation below (nil: it stays), and the
// rest.
func movable(f *splan.FilterRel, through func(expr.Expression) expr.Expression) (move, stay []expr.Expression) {
	for _, c := range conjuncts(f.Condition()) {
		n := 0
		if !columns(c, func(int) { n++ }) || n == 0 {
			stay = append(stay, c)
			continue
		}
		if m := through(c); m != nil {
			move = append(move, m)
		} else {
			stay = append(stay, c)
		}
	}
	return move, stay
}

// under is r, a relation of one input in, with the conjuncts move
// filtering in and stay filtering r; ok is false when nothing moves.
func (o *optimizer) under(r, in splan.Rel, move, stay []expr.Expression) (splan.Rel, bool, error) {
	if len(move) == 0 {
		return nil, false, nil
	}
	fin, err := o.filter(in, move)
	if err != nil {
		return nil, false, err
	}
	nr, err := r.Copy(fin)
	if err != nil {
		return nil, false, wrapInternal(err)
	}
	out, err := o.filter(nr, stay)
	return out, true, err
}

// substitute is e with each column i it reads replaced by to(i); nil
// when to gives nil for one, or e reads a nested field.
func substitute(e expr.Expression, to func(int) expr.Expression) expr.Expression {
	if fr, ok := e.(*expr.FieldReference); ok {
		s, isStruct := fr.Reference.(*expr.StructFieldRef)
		if fr.Root != expr.RootReference || !isStruct || s == nil || s.Child != nil {
			return nil
		}
		return to(int(s.Field))
	}
	failed := false
	out := e.Visit(func(c expr.Expression) expr.Expression {
		if failed {
			return c
		}
		n := substitute(c, to)
		if n == nil {
			failed = true
			return c
		}
		return n
	})
	if failed {
		return nil
	}
	return out
}

// emitted is the column of r's direct output (before its emit) that its
// output column i is.
func emitted(mapping []int32, i int) int {
	if mapping == nil {
		return i
	}
	return int(mapping[i])
}

// sinkProject moves the conjuncts reading only passed-through columns
// and literals of the project p below it.
func (o *optimizer) sinkProject(f *splan.FilterRel, p *splan.ProjectRel) (splan.Rel, bool, error) {
	if p.GetAdvancedExtension() != nil {
		return nil, false, nil
	}
	for _, e := range p.Expressions() {
		if _, ok := e.(*expr.WindowFunction); ok {
			return nil, false, nil
		}
	}
	nin := width(p.Input())
	mapping := p.OutputMapping()
	move, stay := movable(f, func(c expr.Expression) expr.Expression {
		return substitute(c, func(i int) expr.Expression {
			d := emitted(mapping, i)
			if d < nin {
				return fieldRef(p.Input(), d)
			}
			x := p.Expressions()[d-nin]
			if _, ok := fieldColumn(x); ok {
				return x
			}
			if _, ok := x.(expr.Literal); ok {
				return x
			}
			return nil
		})
	})
	return o.under(p, p.Input(), move, stay)
}

// sinkAggregate moves the conjuncts reading only grouping keys of an
// aggregate with one grouping below it, over the keys' expressions.
func (o *optimizer) sinkAggregate(f *splan.FilterRel, a *splan.AggregateRel) (splan.Rel, bool, error) {
	refs := a.GroupingReferences()
	if a.GetAdvancedExtension() != nil || len(refs) != 1 || len(refs[0]) == 0 {
		return nil, false, nil
	}
	keys := refs[0]
	mapping := a.OutputMapping()
	move, stay := movable(f, func(c expr.Expression) expr.Expression {
		return substitute(c, func(i int) expr.Expression {
			d := emitted(mapping, i)
			if d >= len(keys) {
				return nil // a measure
			}
			k := a.GroupingExpressions()[keys[d]]
			if !identityEquality(k.GetType()) {
				return nil
			}
			return k
		})
	})
	return o.under(a, a.Input(), move, stay)
}

// identityEquality: two values of t that are equal are the same value,
// so every expression gives them the same result.
func identityEquality(t types.Type) bool {
	switch t.(type) {
	case *types.Int8Type, *types.Int16Type, *types.Int32Type, *types.Int64Type,
		*types.BooleanType, *types.DateType, *types.TimestampType,
		*types.StringType, *types.VarCharType:
		return true
	}
	return false
}

// sinkUnion moves every movable conjunct into each input of a UNION ALL
// (its inputs' columns are its own, by position).
func (o *optimizer) sinkUnion(f *splan.FilterRel, s *splan.SetRel) (splan.Rel, bool, error) {
	if s.Op() != splan.SetOpUnionAll || s.OutputMapping() != nil || s.GetAdvancedExtension() != nil {
		return nil, false, nil
	}
	move, stay := movable(f, func(c expr.Expression) expr.Expression { return c })
	if len(move) == 0 {
		return nil, false, nil
	}
	ins := make([]splan.Rel, len(s.Inputs()))
	for i, x := range s.Inputs() {
		var err error
		if ins[i], err = o.filter(x, move); err != nil {
			return nil, false, err
		}
	}
	ns, err := s.Copy(ins...)
	if err != nil {
		return nil, false, wrapInternal(err)
	}
	out, err := o.filter(ns, stay)
	return out, true, err
}

// sinkSort moves every movable conjunct below a sort (which keeps every
// row it is given).
func (o *optimizer) sinkSort(f *splan.FilterRel, s *splan.SortRel) (splan.Rel, bool, error) {
	if s.OutputMapping() != nil || s.GetAdvancedExtension() != nil {
		return nil, false, nil
	}
	move, stay := movable(f, func(c expr.Expression) expr.Expression { return c })
	return o.under(s, s.Input(), move, stay)
}

// fieldRef is a reference to column i of r.
func fieldRef(r splan.Rel, i int) expr.Expression {
	ref, err := expr.NewRootFieldRefFromType(&expr.StructFieldRef{Field: int32(i)}, r.RecordType().Types()[i])
	if err != nil {
		return nil
	}
	return ref
}
