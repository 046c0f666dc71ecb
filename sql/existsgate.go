package sql

import (
	"fmt"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// An uncorrelated EXISTS conjunct of the WHERE is, in PostgreSQL, an
// InitPlan whose result is one of the pseudoconstant conjuncts of the
// One-Time Filter (create_gating_plan), and that filter's conjuncts run
// in the order written: in WHERE EXISTS (S) AND NULL NOT IN (CAST(CAST(ts
// AS TEXT) AS DOUBLE PRECISION), NULL) the stable cast, which
// eval_const_expressions leaves alone, is evaluated only when S has a
// row, so over an empty S nothing raises; written the other way round, it
// raises (difftest seed 20261231 case 297213, checked on PostgreSQL 15).
//
// Here the top query's pseudoconstant conjuncts are evaluated while
// planning (gatingqual.go), and the set conjuncts are joins lowered after
// the plain ones, so the order is lost. existsGate keeps it: the
// pseudoconstant plain conjuncts written after the first uncorrelated
// EXISTS go into that EXISTS, as a filter over the first row of its
// subquery:
//
//	EXISTS (S) AND p   ==>   EXISTS (SELECT FROM (S LIMIT 1) WHERE p)
//
// which is the same condition for a constant p, evaluates p only when S
// has a row, and reads at most S's first row, as the InitPlan does.
//
// An uncorrelated NOT EXISTS is an InitPlan too (PostgreSQL pulls up
// only a correlated one as an anti join), and its negation is the
// One-Time Filter's conjunct: p is evaluated only when S is empty
// (difftest seed 20261237 case 159327). Its gate is an EXISTS over the
// one row that S's emptiness lets through:
//
//	NOT EXISTS (S) AND p   ==>   EXISTS (SELECT FROM ((SELECT WHERE NOT EXISTS (S)) LIMIT 1) WHERE p)
//
// The LIMIT keeps the optimizer from pushing p under the anti join that
// NOT EXISTS (S) becomes, where it would be evaluated over S's rows.

// whereGate is an uncorrelated EXISTS conjunct and the pseudoconstant
// conjuncts written after it, which it gates.
type whereGate struct {
	exists *pg_query.Node
	quals  []*pg_query.Node
}

// existsGate finds the gate of the WHERE's conjuncts cs (in written
// order; sets and plain are their set and plain conjuncts): the first
// set conjunct that is an EXISTS PostgreSQL does not pull up (it names
// nothing of the enclosing query) and the plain conjuncts after it that
// read no column. It returns plain without them.
func (l *lowerer) existsGate(cs, sets, plain []*pg_query.Node, sc *scope) (whereGate, []*pg_query.Node, error) {
	var g whereGate
	for _, c := range cs {
		switch {
		case g.exists == nil:
			if _, k := setSubLink(c); (k == setExists || k == setNotExists) && slices.Contains(sets, c) && !l.pulledUp(c, sc) {
				g.exists = c
			}
		case slices.Contains(plain, c):
			pc, err := l.pseudoconstant(c, sc)
			if err != nil {
				return whereGate{}, nil, err
			}
			if pc {
				g.quals = append(g.quals, c)
			}
		}
	}
	if len(g.quals) == 0 {
		return whereGate{}, plain, nil
	}
	return g, slices.DeleteFunc(slices.Clone(plain), func(c *pg_query.Node) bool { return slices.Contains(g.quals, c) }), nil
}

// pseudoconstant: the plain conjunct c reads no column.
func (l *lowerer) pseudoconstant(c *pg_query.Node, sc *scope) (bool, error) {
	ws := *sc
	ws.noAggs = "in WHERE"
	v, err := l.expr(c, &ws)
	if err != nil {
		return false, err
	}
	return !readsColumn(v.e), nil
}

// gated is the lowered gate e (an EXISTS or a NOT EXISTS) with the
// conjuncts qs under it.
func (l *lowerer) gated(e expr.Expression, qs []*pg_query.Node, sc *scope) (expr.Expression, error) {
	sp, ok := e.(*plan.SetPredicateSubquery)
	if ok && sp.Operation != plan.SetPredicateOpExists {
		ok = false
	}
	var passes plan.Rel // the rows p is evaluated over: S's first, or one when S is empty
	switch {
	case ok:
		first, err := l.b.Fetch(sp.Tuples, 0, 1)
		if err != nil {
			return nil, fmt.Errorf("%w: fetch: %w", ErrInvalid, err)
		}
		passes = first
	case isNotExists(e):
		one, err := l.b.VirtualTableFromExpr([]string{}, expr.VirtualTableExpressionValue{})
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		empty, err := l.b.Filter(one, e)
		if err != nil {
			return nil, fmt.Errorf("%w: filter: %w", ErrInvalid, err)
		}
		if passes, err = l.b.Fetch(empty, 0, 1); err != nil {
			return nil, fmt.Errorf("%w: fetch: %w", ErrInvalid, err)
		}
	default:
		return nil, fmt.Errorf("%w: the gate of a WHERE is not an EXISTS", ErrInvalid)
	}
	ws := *sc
	ws.noAggs = "in WHERE"
	v, err := l.expr(andNode(qs), &ws)
	if err != nil {
		return nil, err
	}
	cond, err := l.coerce(v, kindBool)
	if err != nil {
		return nil, err
	}
	f, err := l.b.Filter(passes, cond)
	if err != nil {
		return nil, fmt.Errorf("%w: filter: %w", ErrInvalid, err)
	}
	out, err := l.b.SetPredicateSubquery(f, plan.SetPredicateOpExists)
	if err != nil {
		return nil, fmt.Errorf("%w: EXISTS subquery: %w", ErrInvalid, err)
	}
	return out, nil
}

// isNotExists: e is not(EXISTS (...)), the lowering of NOT EXISTS.
func isNotExists(e expr.Expression) bool {
	f, ok := e.(*expr.ScalarFunction)
	if !ok || baseName(f.Name()) != "not" || f.NArgs() != 1 {
		return false
	}
	a, _ := f.Arg(0).(expr.Expression)
	sp, ok := a.(*plan.SetPredicateSubquery)
	return ok && sp.Operation == plan.SetPredicateOpExists
}
