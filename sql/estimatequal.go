package sql

import (
	"slices"
	"strings"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// PostgreSQL estimates the selectivity of every restriction clause while
// planning (set_baserel_size_estimates -> clauselist_selectivity), also
// over an empty table, and the estimators of the comparison and pattern
// operators (eqsel, neqsel, scalarltsel, patternsel, ... through
// get_restriction_variable; scalararraysel for x IN (a, b, ...)) fold the
// side of `column-expression op other` that reads no column with
// estimate_expression_value: eval_const_expressions in its estimate mode,
// which evaluates stable functions too. So a stable cast there that raises
// (k = CAST(CAST(DATE '1999-12-31' AS TEXT) AS BIGINT), whose date-to-text
// cast eval_const_expressions leaves alone when it plans the qual) raises
// while planning, though no row is ever read (difftest seed 20261223
// case 10858). clause_selectivity recurses through AND, OR and NOT, and
// treats an operator whose column side names one FROM item as a
// restriction (treat_as_join_clause is false for one relation), so every
// such comparison in a WHERE is estimated; one under CASE or in a
// function's argument is not, nor one whose other side names an outer
// query's column (a PARAM_EXEC, which estimation leaves alone).
//
// estimatedQuals raises that error for the plan rooted at root: the
// error of the first column-free, non-literal side of such a comparison,
// in any filter or join condition, that the executor raises on. Which
// FROM item a column comes from is traced through the plan (origins):
// each read, aggregate or set operation is an item of its own (a
// subquery in FROM that PostgreSQL cannot pull up is a relation too),
// projections and joins pass their inputs' items through. A condition
// that folded to a literal plans no scan (the relation is dummy,
// relation_excluded_by_constraints) and is not estimated. extra are
// conditions estimated over a relation beyond its plan's own: a WHERE
// the lowering folded with a moved HAVING conjunct (havingestimate.go).
func estimatedQuals(root plan.Rel, extra map[plan.Rel][]expr.Expression) error {
	t := &tracer{seen: map[plan.Rel][]origin{}, extra: extra}
	_, err := t.rel(root)
	return err
}

// origin is the set of FROM items (ids) a column's value is made from;
// empty for a constant.
type origin []int

// tracer walks a plan once, recording each relation's column origins.
type tracer struct {
	seen  map[plan.Rel][]origin
	extra map[plan.Rel][]expr.Expression
	next  int
}

// fresh is n columns of a new item.
func (t *tracer) fresh(n int) []origin {
	t.next++
	out := make([]origin, n)
	for i := range out {
		out[i] = origin{t.next}
	}
	return out
}

func (t *tracer) rel(r plan.Rel) ([]origin, error) {
	if o, ok := t.seen[r]; ok {
		return o, nil
	}
	var direct []origin
	var err error
	switch x := r.(type) {
	case plan.ReadRel:
		direct = t.fresh(len(x.BaseSchema().Struct.Types))
		if f := x.Filter(); f != nil {
			err = estimateCond(f, direct)
		}
	case *plan.FilterRel:
		if direct, err = t.rel(x.Input()); err == nil {
			// The EXISTS and IN subqueries of the condition: their
			// relations are planned, and estimated, with the query, as
			// the joins they become (the outer query's first, as a
			// join's left side).
			for _, s := range relSubqueries(r) {
				if _, err = t.rel(s); err != nil {
					return nil, err
				}
			}
			err = estimateCond(x.Condition(), direct)
		}
	case *plan.ProjectRel:
		if direct, err = t.rel(x.Input()); err == nil {
			// Its scalar subqueries are planned (and estimated) as
			// subplans of the statement.
			for _, s := range relSubqueries(r) {
				if _, err = t.rel(s); err != nil {
					return nil, err
				}
			}
			direct = slices.Clone(direct)
			for _, e := range x.Expressions() {
				direct = append(direct, exprOrigin(e, direct[:len(direct):len(direct)]))
			}
		}
	case *plan.JoinRel:
		direct, err = t.pair(x.Left(), x.Right())
		if err == nil && x.Expr() != nil {
			err = estimateCond(x.Expr(), direct)
		}
		if err == nil && x.PostJoinFilter() != nil {
			err = estimateCond(x.PostJoinFilter(), direct)
		}
		if k := x.Type(); k == plan.JoinTypeLeftSemi || k == plan.JoinTypeLeftAnti {
			if l, ok := t.seen[x.Left()]; ok {
				direct = l
			}
		}
	case *plan.CrossRel:
		direct, err = t.pair(x.Left(), x.Right())
	case *plan.FetchRel:
		direct, err = t.rel(x.Input())
	case *plan.SortRel:
		direct, err = t.rel(x.Input())
	default:
		for _, in := range r.GetInputs() {
			if _, err = t.rel(in); err != nil {
				return nil, err
			}
		}
		direct = t.fresh(len(r.RecordType().Types()))
	}
	if err != nil {
		return nil, err
	}
	if m := r.OutputMapping(); m != nil {
		out := make([]origin, len(m))
		for i, f := range m {
			if int(f) < len(direct) {
				out[i] = direct[f]
			}
		}
		direct = out
	}
	for _, c := range t.extra[r] {
		if err := estimateCond(c, direct); err != nil {
			return nil, err
		}
	}
	t.seen[r] = direct
	return direct, nil
}

// pair is the joined origins of a join's or cross product's inputs.
func (t *tracer) pair(l, r plan.Rel) ([]origin, error) {
	lo, err := t.rel(l)
	if err != nil {
		return nil, err
	}
	ro, err := t.rel(r)
	if err != nil {
		return nil, err
	}
	return append(slices.Clone(lo), ro...), nil
}

// exprOrigin is the union of the origins of the columns e reads over
// input cols; nil (unknown, never estimated) when it reads a column
// outside them (an outer query's).
func exprOrigin(e expr.Expression, cols []origin) origin {
	var out origin
	known := true
	var visit func(e expr.Expression)
	visit = func(e expr.Expression) {
		if f, ok := e.(*expr.FieldReference); ok {
			i, direct := directField(f)
			if !direct || i >= len(cols) || cols[i] == nil {
				known = false
				return
			}
			for _, id := range cols[i] {
				if !slices.Contains(out, id) {
					out = append(out, id)
				}
			}
			return
		}
		e.Visit(func(c expr.Expression) expr.Expression {
			visit(c)
			return c
		})
	}
	visit(e)
	if !known {
		return nil
	}
	if out == nil {
		out = origin{}
	}
	return out
}

// estimateCond estimates the comparisons of cond, a condition over
// columns cols.
func estimateCond(cond expr.Expression, cols []origin) error {
	if _, ok := literalOf(cond); ok {
		return nil
	}
	var walk func(e expr.Expression) error
	walk = func(e expr.Expression) error {
		switch x := e.(type) {
		case *expr.ScalarFunction:
			var args []expr.Expression
			for i := 0; i < x.NArgs(); i++ {
				a, ok := x.Arg(i).(expr.Expression)
				if !ok {
					return nil
				}
				args = append(args, a)
			}
			switch baseName(x.Name()) {
			case "and", "or", "not":
				for _, a := range args {
					if err := walk(a); err != nil {
						return err
					}
				}
			case "equal", "not_equal", "lt", "lte", "gt", "gte", "like", "ilike",
				// A DistinctExpr is estimated as its = operator
				// (clause_selectivity: 1 - eqsel; seed 20261231 case
				// 33922).
				"is_distinct_from", "is_not_distinct_from":
				if len(args) == 2 {
					return estimateSides(args[0], args[1:], cols)
				}
			}
		case *expr.SingularOrList:
			// Two or more options are one array (transformAExprIn), which
			// scalararraysel folds as a whole.
			return estimateSides(x.Value, x.Options, cols)
		}
		return nil
	}
	return walk(cond)
}

// estimateSides evaluates others when v reads columns of one FROM item
// and none of others reads a column: the first error is the one the
// estimate raises. Either order of operands is estimated
// (get_restriction_variable tries both), so with one other operand the
// roles may swap.
func estimateSides(v expr.Expression, others []expr.Expression, cols []origin) error {
	oneItem := func(e expr.Expression) bool { return len(exprOrigin(e, cols)) == 1 }
	if len(others) == 1 && !oneItem(v) && oneItem(others[0]) {
		v, others = others[0], []expr.Expression{v}
	}
	if !oneItem(v) {
		return nil
	}
	for _, o := range others {
		if readsColumn(o) || hasParameter(o) {
			return nil
		}
	}
	for _, o := range others {
		if _, ok := literalOf(o); ok {
			continue
		}
		if _, ok, err := evalConst(o); ok && err != nil {
			return err
		}
	}
	return nil
}

// directField is the field index a root reference to one field reads.
func directField(f *expr.FieldReference) (int, bool) {
	if f.Root != expr.RootReference {
		return 0, false
	}
	s, ok := f.Reference.(*expr.StructFieldRef)
	if !ok || s.Child != nil {
		return 0, false
	}
	return int(s.Field), true
}

// hasParameter: e reads a statement parameter, which estimation folds
// only with its value known (a custom plan); the generic case is left.
func hasParameter(e expr.Expression) bool {
	if _, ok := e.(*expr.DynamicParameter); ok {
		return true
	}
	found := false
	e.Visit(func(c expr.Expression) expr.Expression {
		if !found && hasParameter(c) {
			found = true
		}
		return c
	})
	return found
}

// baseName is a function name without its signature (and:bool, and@bool).
func baseName(n string) string {
	name, _, _ := strings.Cut(n, ":")
	return strings.Split(name, "@")[0]
}
