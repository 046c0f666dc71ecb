package plan

import (
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/window"
)

// pathkeys is the one place the planner decides which sort keys a
// compiled node's output follows for the purpose of eliding a sort above
// it: PostgreSQL's pathkeys of the path it builds, so that a sort runs
// here exactly where PostgreSQL's plan has one (create_ordered_paths:
// pathkeys_contained_in). Which rows a LIMIT reads, and so which rows
// raise, depends on it: without a sort the Limit pulls its rows through
// the filters and projections below it and stops.
//
// Sources, as PostgreSQL's:
//   - a function scan WITH ORDINALITY is ordered by the ordinality column
//     ascending (set_function_pathlist, build_expression_pathkey): the
//     UNNEST nodes (exec.UnnestExec, the literal list's virtualTableExec);
//   - a sort, and a merge of sorted streams, by its keys (a subquery's
//     ORDER BY reaches the query above it: convert_subquery_pathkeys);
//   - a take by key keeps its driving side's order (an index nested loop
//     keeps its outer path's pathkeys): the nodes take.go built (takes);
//   - a join that stands for a sublink PostgreSQL keeps as a SubPlan in
//     the filter over its outer input (NOT IN, a correlated IN, an
//     uncorrelated EXISTS, a scalar subquery, a subquery that is a value:
//     optimize.IsSubPlanJoin) keeps that input's pathkeys, as the
//     filtered scan does, where the join streams the outer rows in their
//     order: a semi, anti, left, single or mark join probing with its
//     left input (subplans; never one that builds its outer side).
//     A join PostgreSQL pulls up (a correlated EXISTS) has none.
//
// Filter, limit and parameter binding keep their input's order; a
// projection keeps the keys it passes through as plain columns, up to the
// first one it drops (exec.ProjectExec.Properties); a window keeps its
// input's order (a WindowAgg's output has its sort's pathkeys) when it is
// the only window ordering over it, as PostgreSQL chooses the last of
// several windows' sorts by its own rule (sql/postpone_window.go).
//
// Every other node has none here even where its output is in fact ordered
// (generate_series, a scan's _rowaddr, a hash join's probe side, a CTE
// read by several consumers, which PostgreSQL 15 scans unordered): there
// PostgreSQL's plan sorts, reading every row, and so does this one. A
// node split into partitions has the order only where the parallel
// planner merges them in order (parallel.go: single), so the plan is
// compiled first and parallelized after, on these same orders.
func (p *planner) pathkeys(n exec.Node) []exec.SortKey {
	if p.takes[n] {
		return n.Properties().Ordering
	}
	if outer, ok := p.subplans[n]; ok {
		return p.pathkeys(outer)
	}
	switch x := n.(type) {
	case *exec.UnnestExec, *virtualTableExec, *exec.SortExec, *exec.SortPreservingMergeExec:
		return x.Properties().Ordering
	case *exec.FilterExec, *exec.LimitExec, *paramsExec:
		return p.pathkeys(x.Children()[0])
	case *exec.ProjectExec:
		return x.OrderingOf(p.pathkeys(x.Children()[0]))
	case *window.Exec:
		if !soleWindow(x) {
			return nil
		}
		return p.pathkeys(x.Children()[0])
	}
	return nil
}

// keepsOuterOrder: a join of type t emits its left (outer) rows in their
// input order, each once, as it streams them: semi, anti (NULL-aware too),
// left, single and mark joins, with the left as the probe side.
func keepsOuterOrder(t exec.JoinType) bool {
	switch t {
	case exec.JoinSemi, exec.JoinAnti, exec.JoinAntiNullAware, exec.JoinLeft, exec.JoinSingle, exec.JoinMark:
		return true
	}
	return false
}

// soleWindow: no other window is evaluated below w, through the sorts and
// filters between them (a DISTINCT ON's window is sole; two windows of
// different orders are not).
func soleWindow(w *window.Exec) bool {
	for n := w.Children()[0]; ; n = n.Children()[0] {
		switch n.(type) {
		case *window.Exec:
			return false
		case *exec.SortExec, *exec.FilterExec, *exec.ProjectExec:
			continue
		}
		return true
	}
}

// withRowBudget is n under a LIMIT that reads at most rows of it, with no
// sort between: a filter stops where the LIMIT has its rows
// (exec.FilterExec.WithRowBudget), and a projection over one evaluates
// its expressions on those rows only, as PostgreSQL's scan filters and
// projects each row as the Limit pulls it. A join that stands for a
// SubPlan and gives each outer row one output row or more (a scalar
// subquery's single join, a value subquery's mark join, a left join:
// perOuterRow) needs no more outer rows than the LIMIT reads, so the
// budget passes to its outer input, under a LIMIT of its own: the
// SubPlan runs for those rows only, as PostgreSQL's does, so neither a
// filter below it nor the subquery raises on a later row. Any other node
// is n.
func (p *planner) withRowBudget(n exec.Node, rows int64) (exec.Node, error) {
	switch x := n.(type) {
	case *exec.FilterExec:
		return x.WithRowBudget(rows), nil
	case *exec.ProjectExec:
		c, err := p.withRowBudget(x.Children()[0], rows)
		if err != nil {
			return nil, err
		}
		return x.WithNewChildren([]exec.Node{exec.NewLimitExec(c, 0, rows)})
	}
	if !p.perOuterRow[n] {
		return n, nil
	}
	j, ok := n.(interface {
		WithNewChildren([]exec.Node) (exec.Node, error)
	})
	if !ok {
		return n, nil
	}
	outer, err := p.withRowBudget(n.Children()[0], rows)
	if err != nil {
		return nil, err
	}
	out, err := j.WithNewChildren([]exec.Node{exec.NewLimitExec(outer, 0, rows), n.Children()[1]})
	if err != nil {
		return nil, err
	}
	p.subplans[out] = out.Children()[0]
	return out, nil
}
