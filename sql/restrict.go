package sql

import (
	"slices"
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A correlated scalar subquery decorrelates into a grouped LEFT join
// (correlated.go), which groups the whole inner input although only the
// groups of the outer rows' keys are ever looked up: TPC-H Q17 groups all
// of lineitem by part for the ~0.1% of parts its outer query keeps. The
// grouped input is restricted first to the keys the outer rows can have,
// as DuckDB's delim join does:
//
//	SELECT l_partkey AS k1, 0.2 * avg(l_quantity) AS v
//	FROM lineitem, (SELECT DISTINCT p_partkey FROM part
//	                WHERE p_brand = 'Brand#23' AND p_container = 'MED BOX') AS r
//	WHERE l_partkey = r.p_partkey
//	GROUP BY l_partkey
//
// The restriction is built from one FROM item of the outer query, the
// base table every outer key's columns belong to, and the outer WHERE's
// conjuncts over that table alone (an uncorrelated subquery in one
// included, as Q20's ps_partkey IN (...)). Every group an outer row can
// look up is kept: an outer row that satisfies the WHERE satisfies those
// conjuncts, so its key is among the restriction's; an outer row that
// does not is removed by the WHERE whatever value it is joined with. The
// DISTINCT makes the join a semi join (no group's rows are repeated), and
// a NULL key, which no '=' matches, had no group to look up before
// either. So each group that can be looked up has the same rows, and the
// same value, as before.

// fromInfo is a SELECT's FROM list and WHERE, kept on its scope for the
// restriction.
type fromInfo struct {
	items []*pg_query.Node
	offs  []int  // each item's first column in full
	full  *scope // the FROM items' columns, in FROM order
	where []*pg_query.Node
}

// restrictAlias names the restriction's derived table and prefixes its
// columns: no SQL identifier the user writes unquoted looks like it.
const restrictAlias = "?restrict"

// restriction returns the FROM item restricting a correlated subquery's
// grouped input to outerKeys' values (the subquery being sl, whose own
// conjunct is left out), and its column names; nil when the outer keys do
// not all come from one base table or no conjunct restricts it.
func (l *lowerer) restriction(sc *scope, outerKeys []*pg_query.Node, sl *pg_query.SubLink) (*pg_query.Node, []string) {
	fi := sc.from
	if fi == nil || len(outerKeys) == 0 {
		return nil, nil
	}
	owner := func(col int) int {
		for i := len(fi.offs) - 1; i >= 0; i-- {
			if col >= fi.offs[i] {
				return i
			}
		}
		return 0
	}
	// The one item all the outer keys' columns are in.
	item := -1
	for _, k := range outerKeys {
		cols, ok := l.plainRefs(k, fi.full)
		if !ok || len(cols) == 0 {
			return nil, nil
		}
		for _, c := range cols {
			if o := owner(c); item < 0 {
				item = o
			} else if o != item {
				return nil, nil
			}
		}
	}
	n := fi.items[item]
	rv := n.GetRangeVar()
	if rv == nil {
		return nil, nil
	}
	if _, isCTE := l.cte(rv.Relname); isCTE && rv.Schemaname == "" {
		return nil, nil // planned again at each reference: no saving
	}
	// The WHERE's conjuncts over that item alone.
	var plain, withSub []*pg_query.Node
	for _, c := range fi.where {
		if holds(c, sl) {
			continue
		}
		cols, ok := l.plainRefs(c, fi.full)
		if !ok || len(cols) == 0 {
			continue
		}
		mine := true
		for _, col := range cols {
			mine = mine && owner(col) == item
		}
		switch {
		case !mine:
		case containsSubLink(c):
			// Only [NOT] IN / EXISTS, whose subqueries are lowered as
			// joins of their own; a scalar subquery might be a sibling
			// correlated one, whose restriction would hold this one's.
			if x, k := setSubLink(c); k != setNone && !containsSubLink(x.Testexpr) {
				withSub = append(withSub, c)
			}
		default:
			plain = append(plain, c)
		}
	}
	names := make([]string, len(outerKeys))
	for i := range names {
		names[i] = restrictAlias + strconv.Itoa(i+1)
	}
	build := func(conds []*pg_query.Node) *pg_query.Node {
		if len(conds) == 0 {
			return nil
		}
		q := &pg_query.SelectStmt{
			Op:             pg_query.SetOperation_SETOP_NONE,
			DistinctClause: []*pg_query.Node{{}},
			FromClause:     []*pg_query.Node{cloneNode(n)},
			WhereClause:    andNode(cloneAll(conds)),
		}
		for i, k := range outerKeys {
			q.TargetList = append(q.TargetList, resTarget(names[i], k))
		}
		// The subqueries in a conjunct may refer to other FROM items,
		// which the restriction does not have: lowered on its own (no
		// outer scope), such a conjunct fails and is left out.
		saved, params := l.outer, slices.Clone(l.params)
		l.outer = nil
		_, _, err := l.selectStmt(q, nil)
		l.outer, l.params = saved, params // lowered again where it is used
		if err != nil {
			return nil
		}
		rs := &pg_query.RangeSubselect{
			Subquery: &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: q}},
			Alias:    &pg_query.Alias{Aliasname: restrictAlias},
		}
		return &pg_query.Node{Node: &pg_query.Node_RangeSubselect{RangeSubselect: rs}}
	}
	if r := build(append(append([]*pg_query.Node{}, plain...), withSub...)); r != nil {
		return r, names
	}
	if len(withSub) > 0 {
		if r := build(plain); r != nil {
			return r, names
		}
	}
	return nil, nil
}

// plainRefs resolves the column references of n outside its subqueries
// in full; ok is false when one does not resolve there.
func (l *lowerer) plainRefs(n *pg_query.Node, full *scope) (cols []int, ok bool) {
	ok = true
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		switch x := m.Interface().(type) {
		case *pg_query.SubLink:
			// Only the left operand of IN / = ANY is this query's.
			if x.Testexpr != nil {
				walk(x.Testexpr.ProtoReflect())
			}
			return
		case *pg_query.ColumnRef:
			var i int
			if i, ok = l.refIndex(x, full); ok {
				cols = append(cols, i)
			}
			return
		}
		eachChild(m, func(c protoreflect.Message) bool { walk(c); return ok })
	}
	walk(n.ProtoReflect())
	return cols, ok
}

// holds reports whether n contains the subquery sl.
func holds(n *pg_query.Node, sl *pg_query.SubLink) bool {
	found := false
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if x, is := m.Interface().(*pg_query.SubLink); is && x == sl {
			found = true
			return
		}
		eachChild(m, func(c protoreflect.Message) bool { walk(c); return !found })
	}
	walk(n.ProtoReflect())
	return found
}

func cloneNode(n *pg_query.Node) *pg_query.Node { return proto.Clone(n).(*pg_query.Node) }

func cloneAll(ns []*pg_query.Node) []*pg_query.Node {
	out := make([]*pg_query.Node, len(ns))
	for i, n := range ns {
		out[i] = cloneNode(n)
	}
	return out
}
