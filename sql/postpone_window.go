package sql

import (
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
)

// Where the select list of a SELECT with window functions, ORDER BY and
// LIMIT is evaluated. PostgreSQL's WindowAgg computes the select list
// (its target list) one row at a time as its parent pulls, after it has
// buffered the partition, and emits rows in the order of its own sort:
// the window's PARTITION BY keys (ascending NULLS LAST, or as the
// window's ORDER BY sorts the same expression: windowSortOrder) then its
// ORDER BY keys. When the query's ORDER BY, constants dropped, is a prefix of
// that order (create_ordered_paths: pathkeys_contained_in), the plan has
// no sort above the window, and the Limit pulls offset + count rows from
// the WindowAgg: every item is evaluated on those rows only. Otherwise a
// Sort above the window needs every row, and make_sort_input_target's
// rule applies as without windows (postpone.go). A window with neither
// PARTITION BY nor ORDER BY sorts nothing and keeps its input's order.
//
// Found by difftest seed 20261226: case 9829 (ORDER BY the window's own
// keys: PostgreSQL evaluated a raising item on the three rows pulled
// only) and case 14605 (a window that re-sorts an UNNEST ... WITH
// ORDINALITY: its order no longer elides the final sort, so a cheap item
// is evaluated on every row and raises).

// windowOrder reports whether rel is a projection of window functions
// (windowed) and, if so, whether their one shared order makes a sort
// above them unnecessary for keys (ordered), and whether they keep their
// input's order (passThrough: no window sorts). Windows of different
// orders leave ordered false: PostgreSQL's choice of the last window to
// evaluate decides the output order then.
func windowOrder(rel plan.Rel, keys []sortKey) (windowed, ordered, passThrough bool) {
	p, ok := rel.(*plan.ProjectRel)
	if !ok {
		return false, false, false
	}
	var order []expr.SortField
	first := true
	for _, e := range p.Expressions() {
		wf, ok := e.(*expr.WindowFunction)
		if !ok {
			continue
		}
		o := windowSortOrder(wf)
		switch {
		case first:
			order, first = o, false
		case !sameSortOrder(order, o):
			return true, false, false
		}
	}
	if first {
		return false, false, false
	}
	if len(order) == 0 {
		return true, false, true
	}
	want := canonicalSortOrder(sortFieldsOf(keys))
	if len(want) > len(order) {
		return true, false, false
	}
	return true, sameSortOrder(want, order[:len(want)]), false
}

// windowSortOrder is the order a window sorts its input in, as
// PostgreSQL's pathkeys: PARTITION BY keys, each in the direction of the
// first of the window's ORDER BY keys on the same expression (its sort
// operator, transformGroupClause) else ascending NULLS LAST, then the
// ORDER BY keys, constants and repeated expressions dropped. The planner
// sorts the same way (exec/window.Ordering).
func windowSortOrder(wf *expr.WindowFunction) []expr.SortField {
	var o []expr.SortField
	for _, p := range wf.Partitions {
		f := expr.SortField{Expr: p, Kind: types.SortAscNullsLast}
		for _, s := range wf.Sorts {
			if sameExpr(s.Expr, p) {
				f.Kind = s.Kind
				break
			}
		}
		o = append(o, f)
	}
	return canonicalSortOrder(append(o, wf.Sorts...))
}

func sortFieldsOf(keys []sortKey) []expr.SortField {
	out := make([]expr.SortField, len(keys))
	for i, k := range keys {
		out[i] = expr.SortField{Expr: k.e, Kind: k.kind}
	}
	return out
}

// canonicalSortOrder drops the keys that order nothing: constants, and an
// expression already sorted on by an earlier key (a redundant pathkey).
func canonicalSortOrder(fs []expr.SortField) []expr.SortField {
	var out []expr.SortField
	for _, f := range fs {
		if _, lit := f.Expr.(expr.Literal); lit {
			continue
		}
		if _, lit := literalOf(f.Expr); lit {
			continue
		}
		dup := false
		for _, g := range out {
			dup = dup || sameExpr(g.Expr, f.Expr)
		}
		if !dup {
			out = append(out, f)
		}
	}
	return out
}

func sameSortOrder(a, b []expr.SortField) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Kind != b[i].Kind || !sameExpr(a[i].Expr, b[i].Expr) {
			return false
		}
	}
	return true
}
