package optimize

import (
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
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
// rest. An OR that stays may still imply a weaker one that moves
// (relaxed), which is in move too.
func (o *optimizer) movable(f *splan.FilterRel, through func(expr.Expression) expr.Expression) (move, stay []expr.Expression, err error) {
	var in []expr.Expression // the conjuncts of a filter under the relation f is over
	if below := f.Input().GetInputs(); len(below) == 1 {
		if b, ok := below[0].(*splan.FilterRel); ok && b.OutputMapping() == nil {
			in = conjuncts(b.Condition())
		}
	}
	for _, c := range conjuncts(f.Condition()) {
		n := 0
		if !columns(c, func(int) { n++ }) || n == 0 {
			stay = append(stay, c)
			continue
		}
		if m := through(c); m != nil {
			move = append(move, m)
			continue
		}
		stay = append(stay, c)
		r, ok, err := o.relaxed(c, through)
		if err != nil {
			return nil, nil, err
		}
		if ok && !containsExpr(in, r) {
			// Not when the filter below holds it already: it moved
			// there when this one was last rewritten, and the OR that
			// stays would otherwise move it again, without end.
			move = append(move, r)
		}
	}
	return move, stay, nil
}

// relaxed is an OR that c implies and that moves through: each of c's
// disjuncts keeps the conjuncts through maps (the others dropped, which
// only weakens it), and a disjunct with a conjunct that is FALSE over
// constants once mapped is dropped whole (it holds at no row). ok is
// false when c is no OR or some disjunct keeps nothing (the OR would be
// TRUE). The twins' OR (twins.go) is one such: (y = 2001 AND sum > 0) OR
// ('s' = 'c' AND y = 2002) over a UNION ALL arm's aggregate relaxes to
// y = 2001, which reaches the date dimension (TPC-DS Q4, Q11, Q74).
func (o *optimizer) relaxed(c expr.Expression, through func(expr.Expression) expr.Expression) (expr.Expression, bool, error) {
	ds := disjuncts(c)
	if len(ds) < 2 {
		return nil, false, nil
	}
	var arms []expr.Expression
	for _, d := range ds {
		var keep []expr.Expression
		never := false
		for _, x := range conjuncts(d) {
			m := through(x)
			if m == nil {
				continue
			}
			if v, ok := constComparison(m); ok {
				never = never || !v
				continue // TRUE adds nothing to the AND
			}
			keep = append(keep, m)
		}
		switch {
		case never:
			continue
		case len(keep) == 0:
			return nil, false, nil
		}
		a, err := o.and(keep)
		if err != nil {
			return nil, false, err
		}
		if !containsExpr(arms, a) {
			arms = append(arms, a)
		}
	}
	if len(arms) == 0 {
		return nil, false, nil // c holds at no row: leave it to the filter
	}
	r, err := o.or(arms)
	return r, err == nil, err
}

// constComparison is the value of e when it is = or <> between two
// literals of one integer, boolean, date or string type (a UNION ALL
// arm's constant column compared with the WHERE's: 's' = 'c'); ok is
// false otherwise, or when either is NULL.
func constComparison(e expr.Expression) (v, ok bool) {
	f, isFn := e.(*expr.ScalarFunction)
	if !isFn || f.NArgs() != 2 || name(f) != "equal" && name(f) != "not_equal" {
		return false, false
	}
	if x, ok := stringValue(f.Arg(0)); ok {
		// text and varchar(n) meet as text (texteq: by their bytes):
		// a UNION ALL arm's 'c' is varchar(1), cast to text to meet
		// the WHERE's 's'.
		y, ok := stringValue(f.Arg(1))
		return ok && (x == y) == (name(f) == "equal"), ok
	}
	a, aok := f.Arg(0).(expr.Literal)
	b, bok := f.Arg(1).(expr.Literal)
	_, an := a.(*expr.NullLiteral)
	_, bn := b.(*expr.NullLiteral)
	if !aok || !bok || an || bn || !a.GetType().Equals(b.GetType()) {
		return false, false
	}
	switch a.GetType().(type) {
	case *types.Int8Type, *types.Int16Type, *types.Int32Type, *types.Int64Type,
		*types.BooleanType, *types.DateType, *types.StringType, *types.VarCharType:
	default:
		return false, false // float -0 = 0, char(n) padding, decimal scales: not by their bytes
	}
	same := proto.Equal(a.ToProto(), b.ToProto())
	return same == (name(f) == "equal"), true
}

// foldComparisons is e, a conjunct moved below a UNION ALL arm's
// constant column, with its comparisons of constants folded
// (constComparison) and the ANDs and ORs over them reduced: in the 'c'
// arm, 'c' = 's' AND y = 2001 OR 'c' = 'c' AND y = 2002 is y = 2002, so
// that the arm's scan keeps one year, not two (TPC-DS Q4, Q11, Q74's
// twins). The reduction is PostgreSQL's three-valued one: a FALSE
// disjunct and a TRUE conjunct drop out, a TRUE disjunct or a FALSE
// conjunct decides (constComparison folds no NULL).
func (o *optimizer) foldComparisons(e expr.Expression) (expr.Expression, error) {
	if v, ok := constComparison(e); ok {
		return expr.NewPrimitiveLiteral(v, false), nil
	}
	f, ok := e.(*expr.ScalarFunction)
	if !ok || name(f) != "and" && name(f) != "or" {
		return e, nil
	}
	isAnd := name(f) == "and"
	var kept []expr.Expression
	changed := false
	for i := 0; i < f.NArgs(); i++ {
		a, ok := f.Arg(i).(expr.Expression)
		if !ok {
			return e, nil
		}
		r, err := o.foldComparisons(a)
		if err != nil {
			return nil, err
		}
		changed = changed || r != a
		if v, ok := boolValue(r); ok {
			if v == isAnd {
				continue // TRUE in an AND, FALSE in an OR
			}
			return expr.NewPrimitiveLiteral(v, false), nil
		}
		kept = append(kept, r)
	}
	switch {
	case !changed:
		return e, nil
	case len(kept) == 0:
		return expr.NewPrimitiveLiteral(isAnd, false), nil
	case isAnd:
		return o.and(kept)
	}
	return o.or(kept)
}

// boolValue is the value of a boolean literal (not NULL).
func boolValue(e expr.Expression) (v, ok bool) {
	l, isLit := e.(expr.Literal)
	if !isLit {
		return false, false
	}
	b, ok := l.ToProtoLiteral().GetLiteralType().(*substraitpb.Expression_Literal_Boolean)
	return ok && b.Boolean, ok
}

// stringValue is the value of a text or varchar(n) literal, or of one
// cast to text (the same characters).
func stringValue(a types.FuncArg) (string, bool) {
	if c, ok := a.(*expr.Cast); ok {
		if _, text := c.Type.(*types.StringType); !text {
			return "", false
		}
		a = c.Input
	}
	l, ok := a.(expr.Literal)
	if !ok {
		return "", false
	}
	switch v := l.ToProtoLiteral().GetLiteralType().(type) {
	case *substraitpb.Expression_Literal_String_:
		return v.String_, true
	case *substraitpb.Expression_Literal_VarChar_:
		return v.VarChar.GetValue(), true
	}
	return "", false
}

// under is r, a relation of one input in, with the conjuncts move
// filtering in and stay filtering r; ok is false when nothing moves.
func (o *optimizer) under(r, in splan.Rel, move, stay []expr.Expression) (splan.Rel, bool, error) {
	if len(move) == 0 {
		return nil, false, nil
	}
	var folded []expr.Expression
	for _, c := range move {
		fc, err := o.foldComparisons(c)
		if err != nil {
			return nil, false, err
		}
		if !isTrue(fc) {
			folded = append(folded, fc)
		}
	}
	fin, err := o.filter(in, folded)
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
	move, stay, err := o.movable(f, func(c expr.Expression) expr.Expression {
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
	if err != nil {
		return nil, false, err
	}
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
	move, stay, err := o.movable(f, func(c expr.Expression) expr.Expression {
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
	if err != nil {
		return nil, false, err
	}
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
	move, stay, err := o.movable(f, func(c expr.Expression) expr.Expression { return c })
	if err != nil || len(move) == 0 {
		return nil, false, err
	}
	ins := make([]splan.Rel, len(s.Inputs()))
	for i, x := range s.Inputs() {
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
	move, stay, err := o.movable(f, func(c expr.Expression) expr.Expression { return c })
	if err != nil {
		return nil, false, err
	}
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
