package difftest

import (
	"hash/fnv"
	"strconv"
	"strings"
)

// Two SELECT items of one expression that GROUP BY names both: two keys
// (PostgreSQL's ressortgroupref is per target entry), which grouping sets
// null apart: SELECT c2, c2 ... GROUPING SETS ((c2), (2), ()) has rows
// (x, NULL) and (NULL, x) (seed 20261229 case 73676, sql/groupingsets.go).

// duplicateKey sometimes repeats a drawn key as one more SELECT item,
// grouped by its position, and returns the keys with it. It chooses by a
// hash of the keys drawn, not by a draw of g's: the cases without a
// repeat draw what they drew before (the generator's coverage tests count
// draws over fixed seeds).
func (g *Gen) duplicateKey(q *Query, keys []*Expr) []*Expr {
	if len(keys) == 0 {
		return keys
	}
	h := fnv.New32a()
	for _, k := range keys {
		h.Write([]byte(k.SQL()))
	}
	if v := h.Sum32(); v%100 < 20 {
		c := *keys[int(v/100)%len(keys)]
		q.Select = append(q.Select, &c)
		q.GroupBy = append(q.GroupBy, strconv.Itoa(len(q.Select)))
		return append(keys, &c)
	}
	return keys
}

// unorderEqualKeys compares q's rows as a multiset when PostgreSQL 15
// does not define their order: it drops an ORDER BY item whose expression
// equals an earlier one's (pathkey_is_redundant: one EquivalenceClass),
// though over grouping sets the two items' values differ (EXPLAIN of the
// case above: Sort Key: a.c2 once), so rows tied on the earlier items
// come in no defined order. LIMIT and OFFSET go with the order.
func unorderEqualKeys(q *Query) {
	if !q.OrderAll || !groupsBySets(q.GroupBy) {
		return
	}
	seen := map[string]bool{}
	for _, e := range q.Select {
		s := e.SQL()
		if seen[s] {
			q.OrderAll, q.Limit, q.Offset = false, -1, -1
			return
		}
		seen[s] = true
	}
}

// groupsBySets: the GROUP BY items hold a grouping-set form.
func groupsBySets(items []string) bool {
	for _, it := range items {
		for _, f := range []string{"ROLLUP (", "CUBE (", "GROUPING SETS (", "()"} {
			if strings.Contains(it, f) {
				return true
			}
		}
	}
	return false
}
