package difftest

import "slices"

// The sign of zero in a group key (seed 20261213 case 13222).
//
// -0 and 0 are equal doubles (float8eq), so GROUP BY, DISTINCT and the
// set operations that compare rows (all but UNION ALL) put them in one
// group, and a group holding both prints the value of the row the
// grouping met first: PostgreSQL's HashAggregate and its sorted Group and
// SetOp keep the group's first row, and so does stablerow's hash table.
// Which row comes first is the input's order, which neither side defines
// (PostgreSQL's own order changes with its plan: WITH c AS (SELECT
// DISTINCT * FROM t) SELECT a.d * b.k FROM c AS a JOIN c AS b ON a.k =
// b.k GROUP BY 1 prints -0 over rows (0, 1e300), (7, -0) because the
// CTE's HashAggregate hands them on in hash order; without the CTE the
// same rows print 0, the first row scanned). So in a column whose value
// is the group's (a key, or an expression of keys only), -0 and 0 are
// the same answer.
//
// The match stays narrow: the two answers must be equal once -0 reads as
// 0 in those float columns only (every other column, and every aggregate,
// exactly equal), and each side's printed key must be one stablerow's
// ungrouped rows hold (the same FROM and WHERE, the key columns only, no
// grouping): the group really had a -0 and a 0 in it. A wrong sign of
// zero computed on the rows themselves (negation as 0 - x once gave 0
// for -(0)) is not matched: the ungrouped rows then lack PostgreSQL's
// value.

// groupKeyColumns are the output columns of q whose value is its group's
// (every column of a DISTINCT or of a set operation but UNION ALL, the
// items without an aggregate of a GROUP BY), and the query that lists
// those columns' values row by row without grouping. ok is false when q
// groups nothing.
func groupKeyColumns(q *Query) (cols []int, ungrouped *Query, ok bool) {
	if q == nil || q.Count {
		return nil, nil, false
	}
	base := &Query{CTE: q.CTE, From: q.From, Where: q.Where, Limit: -1, Offset: -1}
	switch {
	case q.Set != nil:
		if q.Set.Op == "UNION" && q.Set.All {
			return nil, nil, false
		}
		base.Select = q.Select
		base.Set = &SetQuery{Op: "UNION", All: true, Right: q.Set.Right}
		for i := range q.Select {
			cols = append(cols, i)
		}
	case q.Distinct && len(q.GroupBy) == 0 && q.Having == nil:
		base.Select = q.Select
		for i := range q.Select {
			cols = append(cols, i)
		}
	case len(q.GroupBy) > 0 && !q.Distinct:
		for i, e := range q.Select {
			if !anyNode(e, isAggregate) {
				cols = append(cols, i)
				base.Select = append(base.Select, e)
			}
		}
	}
	if len(cols) == 0 {
		return nil, nil, false
	}
	return cols, base, true
}

func isAggregate(e *Expr) bool {
	return e.Op == "agg" || e.Op == "aggdistinct" || e.Op == "aggfilter" || e.Op == "grouping" || e.Op == "orderedset"
}

// anyNode: f holds for e or a node under it.
func anyNode(e *Expr, f func(*Expr) bool) bool {
	if e == nil {
		return false
	}
	if f(e) {
		return true
	}
	return slices.ContainsFunc(e.Args, func(a *Expr) bool { return anyNode(a, f) })
}

// zeroSignInGroupKey is the known divergence's match (see above).
func zeroSignInGroupKey(d *Divergence, again func(string) *Outcome) bool {
	if !d.IsQuery || d.PG.Err != nil || d.SR.Err != nil || !slices.Equal(d.PG.Cols, d.SR.Cols) {
		return false
	}
	q := d.Case.Query
	cols, ungrouped, ok := groupKeyColumns(q)
	if !ok {
		return false
	}
	var zeroCols []int // the float key columns
	for _, c := range cols {
		if c < len(d.PG.Cols) && d.PG.Cols[c] == ClassFloat {
			zeroCols = append(zeroCols, c)
		}
	}
	if len(zeroCols) == 0 {
		return false
	}
	unsigned := func(rows [][]*string) [][]*string {
		out := make([][]*string, len(rows))
		for i, r := range rows {
			out[i] = slices.Clone(r)
			for _, c := range zeroCols {
				if c < len(r) && r[c] != nil && *r[c] == "-0" {
					zero := "0"
					out[i][c] = &zero
				}
			}
		}
		return out
	}
	a, b := unsigned(d.PG.Rows), unsigned(d.SR.Rows)
	if !q.Ordered() {
		a, b = sortedRows(a), sortedRows(b)
	}
	if !rowsEqual(a, b) {
		return false
	}
	// Each printed key with a zero in a float key column must be a key
	// of stablerow's ungrouped rows, sign and all.
	u := again(ungrouped.SQL())
	if u.Err != nil || len(u.Cols) != len(cols) {
		return false
	}
	held := map[string]bool{}
	for _, r := range u.Rows {
		held[rowKey(r)] = true
	}
	for _, rows := range [][][]*string{d.PG.Rows, d.SR.Rows} {
		for _, r := range rows {
			key := make([]*string, len(cols))
			zero := false
			for i, c := range cols {
				if c >= len(r) {
					return false
				}
				key[i] = r[c]
				zero = zero || r[c] != nil && (*r[c] == "0" || *r[c] == "-0") && d.PG.Cols[c] == ClassFloat
			}
			if zero && !held[rowKey(key)] {
				return false
			}
		}
	}
	return true
}
