package difftest

import (
	"slices"
	"strings"
)

// min/max as LIMIT 1 (seed 20261213 case 15586).
//
// PostgreSQL's preprocess_minmax_aggregates (planagg.c) offers, for a
// query without GROUP BY over one table whose aggregates are all
// min/max-like (min, max, and bool_and/bool_or, whose aggsortop is < and
// >), a plan of one (SELECT arg FROM t WHERE quals AND arg IS NOT NULL
// ORDER BY arg LIMIT 1) per aggregate, when a path already gives that
// order: an index on arg, or no order at all for a constant arg. It is
// costed against the plain aggregate and taken when cheaper, and then only
// the rows the scan meets before the first that qualifies are evaluated:
// SELECT max(1) FROM t WHERE sqrt(k) > -k is 1 over rows (5), (-1) and
// raises over (-1), (5) (PostgreSQL 15, its physical order), and
// SELECT max(k) ... with an index on k raises when the planner knows the
// table is small (the Seq Scan and Aggregate are cheaper). The harness's
// session has index paths off (backend.go), so only the constant
// argument's plan is left: a Seq Scan under LIMIT 1.
//
// stablerow does not do this: it evaluates a filter a batch at a time
// (and a table's partitions in parallel), so every row of the batch
// holding the first qualifying row is evaluated (SELECT k FROM t WHERE
// sqrt(k) > -k LIMIT 1 raises there too, where PostgreSQL returns 5), and
// its indexes answer equality and IN lookups, not an order. Which rows
// PostgreSQL skips is its physical order and its cost model's choice.
//
// Matched only where PostgreSQL answered and stablerow raised, the query
// has that shape (no GROUP BY, CTE or set operation; FROM one table;
// every select item a bare min/max/bool_and/bool_or or a constant, every
// aggregate of the HAVING one too, and at least one aggregate; each
// argument a constant), PostgreSQL's one row shows each LIMIT 1 found a
// row (a value that is not NULL, but for an argument that is or folds to
// NULL, which PostgreSQL's "arg IS NOT NULL" one-time filter answers with
// no scan), or PostgreSQL's HAVING kept no row and every argument is or
// folds to NULL (no LIMIT 1 read a row), and stablerow
// raises counting the rows the WHERE keeps: the error is in evaluating
// the rows PostgreSQL's LIMIT 1 stopped short of.

var minMaxLike = map[string]bool{"min": true, "max": true, "bool_and": true, "bool_or": true}

// minMaxAsLimit1 is the known divergence's match (see above).
func minMaxAsLimit1(d *Divergence, again func(string) *Outcome) bool {
	q := d.Case.Query
	if !d.IsQuery || d.PG.Err != nil || d.SR.Err == nil || q == nil || q.Count || q.Set != nil || q.CTE != nil ||
		len(q.GroupBy) > 0 || q.From.Kind != FromTable || len(q.Select) == 0 {
		return false
	}
	optimizable := func(e *Expr) bool {
		if (e.Op != "agg" && e.Op != "aggdistinct") || !minMaxLike[e.Text] || len(e.Args) != 1 {
			return false
		}
		return !hasColumn(e.Args[0])
	}
	// A select item without aggregates reads no column either (no GROUP
	// BY): a constant over the one row, which planagg.c allows beside
	// the min/max-like aggregates (seed 20261222 case 337062).
	constant := func(e *Expr) bool { return !hasColumn(e) && !anyNode(e, isAggregate) }
	aggs := 0
	for _, e := range q.Select {
		switch {
		case optimizable(e):
			aggs++
		case !constant(e):
			return false
		}
	}
	if q.Having != nil && (anyNode(q.Having, func(e *Expr) bool { return isAggregate(e) && !optimizable(e) }) ||
		!anyNode(q.Having, isAggregate) && hasColumn(q.Having)) {
		return false
	}
	var having []*Expr
	anyNode(q.Having, func(e *Expr) bool {
		if isAggregate(e) {
			having = append(having, e)
		}
		return false
	})
	if aggs+len(having) == 0 {
		return false // no aggregate: no such plan
	}
	// foldsToNull: the constant argument is NULL, so PostgreSQL's
	// "arg IS NOT NULL" one-time filter reads no row at all (a NULL
	// literal, or a constant expression that folds to NULL: NULL < 7).
	foldsToNull := func(arg *Expr) bool {
		if nullConstant(arg) {
			return true
		}
		o := again("SELECT " + arg.SQL())
		return o.Err == nil && len(o.Rows) == 1 && len(o.Rows[0]) == 1 && o.Rows[0][0] == nil
	}
	switch {
	case len(d.PG.Rows) == 1 && len(d.PG.Rows[0]) == len(q.Select):
		for i, e := range q.Select {
			if optimizable(e) && d.PG.Rows[0][i] == nil && !foldsToNull(e.Args[0]) {
				return false // no row qualified: PostgreSQL evaluated them all
			}
		}
	case len(d.PG.Rows) == 0 && q.Having != nil:
		// The HAVING kept no row, so which rows the LIMIT 1s read does not
		// show; only when every argument is NULL did none read a row.
		for _, e := range append(slices.Clone(q.Select), having...) {
			if isAggregate(e) && !foldsToNull(e.Args[0]) {
				return false
			}
		}
	default:
		return false
	}
	count := Query{From: q.From, Where: q.Where, Count: true, Limit: -1, Offset: -1}
	return again(count.SQL()).Err != nil
}

// nullConstant: e is a NULL literal (NULL, CAST(NULL AS ...)).
func nullConstant(e *Expr) bool {
	return e.Op == "lit" && (e.Text == "NULL" || strings.HasPrefix(e.Text, "CAST(NULL AS "))
}
