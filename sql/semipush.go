package sql

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/substrait-io/substrait-go/v8/plan"
)

// A WHERE conjunct x IN (q), EXISTS (q) or NOT EXISTS (q) whose outer
// references all name ONE item of FROM a, b, c is a filter on that item:
// whether a row of the item passes depends on that row and q alone. An
// inner join of the items with the filter on top keeps the same rows as
// the join of the filtered item with the others (each joined row passes
// exactly when its row of the item does), so fromWhere may apply the
// semi or anti join to the item before the items are joined:
//
//	WHERE conjunct
//	   |-- [NOT] EXISTS / IN over one item, not the probe item:
//	   |      item := item SEMI (ANTI) JOIN q, before the join order
//	   `-- anything else: left on top (whereSubqueries)
//
// TPC-H Q18 keeps 57 of 1.5M orders by o_orderkey IN (a grouped lineitem
// with HAVING): applied on top, the joins first pair all 6M lineitems
// with orders and customer; applied to orders, the hash table lineitem
// probes holds 57 rows.
//
// Left where it is:
//   - NOT IN: its NULL-aware anti join filters the item just as well, but
//     is kept out of this reordering until it is proven so.
//   - A conjunct on the probe item (the largest, fromWhere's first): the
//     joins with the build sides only shrink the probe rows the semi join
//     then sees (TPC-H Q21's EXISTS on lineitem l1 meets 1/50 of l1's rows
//     after the nation and orders joins, and would meet all 3.8M before).
//   - A subquery naming an enclosing query, or several items, or none
//     (an uncorrelated EXISTS), or whose names are ambiguous over FROM.
//
// Outer joins inside one FROM item are untouched: the conjunct filters
// the item's output, as the WHERE did.

// setPush is a set conjunct applied to one FROM item.
type setPush struct {
	item int
	sl   *pg_query.SubLink
	k    setKind
}

// setItem returns the FROM item the conjunct c may be applied to (see
// above), or -1. rels and scs are the items' relations and scopes, full
// their columns in FROM order, itemsOf the items an expression names;
// restrict marks the items that are restrictions (never a target). The
// subquery is lowered here on trial, over the whole FROM and over the
// item; both must succeed, so every name binds to the item's column it
// binds to over the whole FROM (a name found in the item and also in
// another item is ambiguous over the FROM, and refused there).
func (l *lowerer) setItem(c *pg_query.Node, rels []plan.Rel, scs []*scope, full *scope, restrict []bool, itemsOf func(*pg_query.Node) ([]int, bool)) int {
	sl, k := setSubLink(c)
	if k != setIn && k != setExists && k != setNotExists {
		return -1
	}
	var cands []int
	if k == setIn {
		set, ok := itemsOf(sl.Testexpr)
		if !ok || len(set) != 1 {
			return -1
		}
		cands = set
	} else {
		for i := range rels {
			cands = append(cands, i)
		}
	}
	var fits []int
	for _, i := range cands {
		if !restrict[i] && l.setTrial(rels[i], scs[i].cols, sl, k) {
			fits = append(fits, i)
		}
	}
	// An EXISTS every item can take names none of them: it is not
	// correlated with FROM and has nothing to gain here.
	if len(fits) != 1 || (k != setIn && len(fits) == len(rels)) {
		return -1
	}
	all := rels[0]
	for _, r := range rels[1:] {
		var err error
		if all, err = l.b.Cross(all, r); err != nil {
			return -1
		}
	}
	if !l.setTrial(all, full.cols, sl, k) {
		return -1
	}
	return fits[0]
}

// setTrial reports whether the set conjunct lowers over rel, whose
// columns are cols, with no enclosing query; it leaves the lowerer's
// parameter uses as they were.
func (l *lowerer) setTrial(rel plan.Rel, cols []column, sl *pg_query.SubLink, k setKind) bool {
	saved, params := l.outer, slices.Clone(l.params)
	l.outer = nil
	_, err := l.setJoin(rel, &scope{cols: cols}, sl, k)
	l.outer, l.params = saved, params
	return err == nil
}
