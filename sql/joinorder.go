package sql

import (
	"fmt"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// FROM a, b, c WHERE ... is an inner join of the items: fromWhere lowers
// it as the cross products of the items in FROM order under a filter of
// the WHERE's conjuncts over several items, as Isthmus and DuckDB write
// it; the logical optimizer (plan/optimize) places each conjunct and
// orders the joins, for this plan as for theirs (OR factoring, implied
// filters, the greedy order with its build-side arms, by one row
// estimator):
//
//	conjuncts of WHERE
//	   |-- one item:        a filter on that item
//	   |-- several items:   the filter over the cross products
//	   |-- [NOT] EXISTS / [NOT] IN: subquery expressions in that filter,
//	   |                    which the optimizer's Decorrelate turns into
//	   |                    semi and anti joins, of one item when it
//	   |                    reads one that is not the probe item
//	   |                    (optimize/semipush.go)
//	   `-- none, a scalar subquery, an outer reference: the WHERE left
//	                        on top
//
// The rows are the cross product's filtered by the WHERE: the conjuncts
// are the same, each evaluated over the items it names.
func (l *lowerer) fromWhere(items []*pg_query.Node, where *pg_query.Node, having func(*scope) []*pg_query.Node) (plan.Rel, *scope, *pg_query.Node, error) {
	// A LATERAL item is joined to the items before it (lateral.go): the
	// FROM list as written, the WHERE over it; the optimizer places the
	// conjuncts once it has unnested the lateral joins.
	if len(items) < 2 || where == nil || anyLateral(items) {
		rel, sc, err := l.from(items)
		if err != nil {
			return nil, nil, nil, err
		}
		return rel, sc, andNode(append(andArgs(where), having(sc)...)), nil
	}
	type item struct {
		rel     plan.Rel
		sc      *scope
		off     int               // first column in the FROM-order scope
		filters []expr.Expression // its WHERE conjuncts, pushed onto it
	}
	its := make([]*item, len(items))
	full := &scope{}
	for i, n := range items {
		rel, sc, err := l.fromItem(n)
		if err != nil {
			return nil, nil, nil, err
		}
		if i > 0 {
			if err := l.distinctQuals(full, sc); err != nil {
				return nil, nil, nil, err
			}
		}
		its[i] = &item{rel: rel, sc: sc, off: len(full.cols)}
		full = &scope{cols: append(append([]column{}, full.cols...), sc.cols...)}
	}
	full.outer = l.outer
	where = andNode(append(andArgs(where), having(full)...))
	// The WHERE's NULL arms are FALSE before it is split (quals.go).
	where, err := l.canonicalQual(where, full, "in WHERE")
	if err != nil {
		return nil, nil, nil, err
	}
	owner := func(col int) int {
		for i := len(its) - 1; i >= 0; i-- {
			if col >= its[i].off {
				return i
			}
		}
		return 0
	}
	// Sort the conjuncts by the items they name.
	var rest []*pg_query.Node
	var conds []*pg_query.Node // over several items
	itemsOf := func(c *pg_query.Node) ([]int, bool) {
		refs, ok := l.itemRefs(c, full)
		if !ok || len(refs) == 0 {
			return nil, false
		}
		var set []int
		for _, col := range refs {
			if o := owner(col); !slices.Contains(set, o) {
				set = append(set, o)
			}
		}
		return set, true
	}
	// An item's conjuncts become one filter, their AND in WHERE order:
	// the AND evaluates each conjunct only on the rows the ones before it
	// left undecided (exec's short-circuit AND), so the next conjunct
	// reads only the rows the previous kept, as a filter per conjunct
	// did, without copying the kept rows between filters (a date range's
	// first half keeps most rows: TPC-H Q5's, Q10's, Q12's).
	push := func(i int, c *pg_query.Node) error {
		it := its[i]
		fs := *it.sc
		fs.noAggs = "in WHERE"
		v, err := l.expr(c, &fs)
		if err != nil {
			return err
		}
		e, err := l.coerce(v, kindBool)
		if err != nil {
			return err
		}
		it.filters = append(it.filters, e)
		return nil
	}
	var sets []*pg_query.Node // [NOT] EXISTS / IN conjuncts: subquery expressions in the filter
	for _, c := range andArgs(where) {
		if _, k := setSubLink(c); k != setNone {
			sets = append(sets, c)
			continue
		}
		set, ok := itemsOf(c)
		if !ok {
			rest = append(rest, c)
			continue
		}
		if len(set) == 1 {
			if err := push(set[0], c); err != nil {
				return nil, nil, nil, err
			}
			continue
		}
		conds = append(conds, c)
	}
	for _, it := range its {
		if len(it.filters) == 0 {
			continue
		}
		cond := it.filters[0]
		var err error
		if len(it.filters) > 1 {
			if cond, err = l.call(urnBoolean, "and", -1, it.filters...); err != nil {
				return nil, nil, nil, err
			}
		}
		if it.rel, err = l.b.Filter(it.rel, cond); err != nil {
			return nil, nil, nil, fmt.Errorf("%w: filter: %w", ErrInvalid, err)
		}
	}
	// A WHERE with a constant FALSE conjunct is FALSE before PostgreSQL
	// plans the subqueries left in it (eval_const_expressions, then
	// SS_process_sublinks): whereSubqueries, which the set conjuncts are
	// then left to with the FALSE one, plans only those pulled up into
	// joins before the folding (difftest seed 20261227 case 18681: an
	// uncorrelated EXISTS over two FROM items raised in its own WHERE).
	// Only the WHERE's own conjuncts decide it (falsewhere.go).
	if len(sets) > 0 && l.whereFalse(andArgs(where), full) {
		rest = slices.DeleteFunc(andArgs(where), func(c *pg_query.Node) bool {
			return !slices.Contains(rest, c) && !slices.Contains(sets, c)
		})
		sets = nil
	}
	// FROM order, cross products: the optimizer orders them and places
	// the conditions over several items (plan/optimize).
	rel := its[0].rel
	for _, it := range its[1:] {
		var err error
		if rel, err = l.b.Cross(rel, it.rel); err != nil {
			return nil, nil, nil, fmt.Errorf("%w: cross join: %w", ErrInvalid, err)
		}
	}
	// The set conjuncts join the conditions over several items, in the
	// filter right over the cross products: Decorrelate applies one that
	// reads one item to that item (optimize/semipush.go), the others over
	// the joined items.
	l.markSets(sets)
	conds = append(conds, sets...)
	if len(conds) > 0 {
		js := &scope{cols: full.cols, outer: l.outer, noAggs: "in WHERE"}
		on := make([]expr.Expression, len(conds))
		for k, cd := range conds {
			v, err := l.expr(cd, js)
			if err != nil {
				return nil, nil, nil, err
			}
			if on[k], err = l.coerce(v, kindBool); err != nil {
				return nil, nil, nil, err
			}
		}
		cond := on[0]
		var err error
		if len(on) > 1 {
			if cond, err = l.call(urnBoolean, "and", -1, on...); err != nil {
				return nil, nil, nil, err
			}
		}
		if rel, err = l.b.Filter(rel, cond); err != nil {
			return nil, nil, nil, fmt.Errorf("%w: filter: %w", ErrInvalid, err)
		}
	}
	offs := make([]int, len(its))
	for i, it := range its {
		offs[i] = it.off
	}
	sc := &scope{cols: full.cols, outer: l.outer}
	switch len(rest) {
	case 0:
		return rel, sc, nil, nil
	case 1:
		return rel, sc, rest[0], nil
	}
	and := &pg_query.BoolExpr{Boolop: pg_query.BoolExprType_AND_EXPR, Args: rest, Location: -1}
	return rel, sc, &pg_query.Node{Node: &pg_query.Node_BoolExpr{BoolExpr: and}}, nil
}

// itemRefs resolves the column references of a conjunct in the FROM
// scope. ok is false when the conjunct holds a subquery or names
// something outside the FROM (an enclosing query's column), or a name
// does not resolve (the WHERE's own lowering reports it).
func (l *lowerer) itemRefs(n *pg_query.Node, full *scope) (cols []int, ok bool) {
	if containsSubLink(n) {
		return nil, false
	}
	ok = true
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if !ok {
			return
		}
		if cr, is := m.Interface().(*pg_query.ColumnRef); is {
			var i int
			if i, ok = l.refIndex(cr, full); ok {
				cols = append(cols, i)
			}
			return
		}
		eachChild(m, func(c protoreflect.Message) bool { walk(c); return ok })
	}
	walk(n.ProtoReflect())
	return cols, ok
}

// refIndex is the column of full a column reference names, here (not an
// outer query's); ok is false for a star or a name full does not hold.
func (l *lowerer) refIndex(cr *pg_query.ColumnRef, full *scope) (int, bool) {
	qual, name, star, err := l.refName(cr)
	if err != nil || star {
		return 0, false
	}
	i, err := l.lookupHere(full, qual, name, cr.Location)
	return i, err == nil
}
