package plan

import (
	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/exec/window"
)

// parallelize is the physical-planning pass that runs a plan on threads
// partitions (Options.Threads > 1). It rewrites the nodes it knows,
// bottom-up, the way DataFusion's EnforceDistribution does:
//
//	ScanExec                       → partitioned over its fragments
//	FilterExec, ProjectExec        → one stream per input partition
//	HashAggregateExec (mergeable)  → partial per partition → RepartitionExec
//	                                 (hash of the group keys) → final per
//	                                 partition; no keys: → coalesce → final
//	SortExec                       → sort per partition → SortPreservingMergeExec
//	                                 (under a memory limit: one sort, and one
//	                                 aggregation, over the merged input)
//	HashJoinExec (left-driven)     → probe partitions in parallel, one shared
//	                                 build of the right input
//	LimitExec, UnionExec (its      → its inputs each parallel below, merged
//	inputs), the root, any node      by a CoalescePartitionsExec (or, when
//	that needs one stream            the input's order is relied on, the merge)
//
// Any other node (TakeByKeyExec, which drives probe order; the ordered
// aggregate; the other set operations; ...) keeps its subtree as it was: single
// partition, exactly the serial plan. Every rewrite returns rows that the
// serial plan returns, as a multiset; where the serial plan's order is
// declared (Properties.Ordering) the rewrite keeps it.
func parallelize(n exec.Node, opt Options) (exec.Node, error) {
	if opt.Threads <= 1 {
		return n, nil
	}
	pp := &parallelPlanner{threads: opt.Threads, memoryLimited: opt.MemoryLimited, est: opt.Estimates}
	p, err := pp.partitioned(n)
	if err != nil {
		return nil, err
	}
	return pp.single(n, p)
}

type parallelPlanner struct {
	threads int
	// memoryLimited (Options.MemoryLimited): the operators whose state
	// grows with their input (sorts, hash aggregations) run as one
	// instance over merged partitions. Under one shared budget, parallel
	// instances reserve against each other: which one is refused depends
	// on timing, and a query that the serial plan answers could fail
	// (seen: four partial aggregations holding the budget while the sort
	// above them could not reserve a batch). One instance spills as the
	// serial plan does, so the answer and the error do not depend on N.
	memoryLimited bool
	// est is Options.Estimates: a node's parallel form inherits its
	// estimated rows (the same rows, over all its partitions).
	est map[exec.Node]float64
}

// partitioned returns a plan equivalent to n whose output may come in
// several partitions: n itself where nothing can run in parallel.
func (pp *parallelPlanner) partitioned(n exec.Node) (exec.Node, error) {
	p, err := pp.partitionedNode(n)
	if e, ok := pp.est[n]; ok && err == nil {
		if _, has := pp.est[p]; !has {
			pp.est[p] = e
		}
	}
	return p, err
}

func (pp *parallelPlanner) partitionedNode(n exec.Node) (exec.Node, error) {
	switch x := n.(type) {
	case *exec.ScanExec:
		return x.WithPartitions(pp.threads), nil
	case *exec.FilterExec, *exec.ProjectExec:
		if exec.NeverExecuted(n) {
			return n, nil // a one-time FALSE filter: its input never runs
		}
		return pp.passThrough(n)
	case *exec.LimitExec, *exec.UnionExec:
		// A UNION ALL reads its inputs one after another, each run in
		// parallel below it and merged into one stream (TPC-DS Q4's
		// year_total, shared by its six readers, ran serial whole).
		return pp.singleChildren(n)
	case *window.Exec:
		return pp.window(x)
	case *exec.HashAggregateExec:
		return pp.aggregate(x)
	case *exec.SortExec:
		return pp.sort(x)
	case *exec.HashJoinExec:
		return pp.join(x)
	}
	return n, nil
}

// aggregate runs a mergeable aggregation in two phases over its input's
// partitions: partial per partition, then, with group columns, a hash
// repartition on them and the final aggregate per partition; without, a
// coalesce into one final aggregate.
func (pp *parallelPlanner) aggregate(h *exec.HashAggregateExec) (exec.Node, error) {
	if h.MergesStates() {
		return pp.rolledUp(h)
	}
	if !h.Mergeable() {
		return h, nil
	}
	if pp.memoryLimited {
		return pp.singleChildren(h)
	}
	c, err := pp.partitioned(h.Children()[0])
	if err != nil || exec.OutputPartitions(c) <= 1 {
		return h, err
	}
	partial, err := h.PartialOver(c)
	if err != nil {
		return nil, err
	}
	var mid exec.Node = exec.NewCoalescePartitionsExec(partial)
	if g := h.GroupCount(); g > 0 {
		keys := make([]int, g)
		for i := range keys {
			keys[i] = i
		}
		if mid, err = exec.NewRepartitionExec(partial, pp.threads, keys); err != nil {
			return nil, err
		}
	}
	return h.FinalOver(partial, mid)
}

// rolledUp parallelizes a grouping-set aggregation rolled up from its
// finest grouping (rollup.go): the finest, partial aggregation runs per
// partition of its input, coalesced under the join with the set ids (a
// group's states from several partitions merge as those of several finest
// groups do); the join, the keys and the merge above stay one stream.
// Under a memory limit the partial aggregation is one instance over the
// merged input, as any aggregation (memoryLimited).
func (pp *parallelPlanner) rolledUp(n exec.Node) (exec.Node, error) {
	var child exec.Node
	switch x := n.(type) {
	case *exec.HashAggregateExec:
		if x.PartialStates() {
			if pp.memoryLimited {
				return pp.singleChildren(x)
			}
			c, err := pp.partitioned(x.Children()[0])
			if err != nil || c == x.Children()[0] {
				return n, err
			}
			p, err := x.WithNewChildren([]exec.Node{c})
			if err != nil || exec.OutputPartitions(p) <= 1 {
				return p, err
			}
			return exec.NewCoalescePartitionsExec(p), nil
		}
		if !x.MergesStates() {
			return n, nil
		}
		child = x.Children()[0]
	case *exec.ProjectExec, *exec.FilterExec, *exec.CrossExec:
		child = n.Children()[0] // a join's left: the finest groups
	default:
		return n, nil
	}
	c, err := pp.rolledUp(child)
	if err != nil || c == child {
		return n, err
	}
	kids := append([]exec.Node{c}, n.Children()[1:]...)
	return n.(exec.ChildReplacer).WithNewChildren(kids)
}

// passThrough rebuilds a row-by-row node over its child's partitions.
// A projection that drops the column its input is ordered by (ORDER BY a
// column not selected) hides an order the plan relies on: its input is
// merged on that order first, and the projection runs on the one stream.
func (pp *parallelPlanner) passThrough(n exec.Node) (exec.Node, error) {
	child := n.Children()[0]
	c, err := pp.partitioned(child)
	if err != nil || c == child {
		return n, err
	}
	if ord := child.Properties().Ordering; len(ord) > 0 && len(n.Properties().Ordering) < len(ord) {
		if c, err = pp.single(child, c); err != nil {
			return nil, err
		}
	}
	return n.(exec.ChildReplacer).WithNewChildren([]exec.Node{c})
}

// singleChildren rebuilds n over children made parallel below and merged
// back into one stream each.
func (pp *parallelPlanner) singleChildren(n exec.Node) (exec.Node, error) {
	kids := n.Children()
	out := make([]exec.Node, len(kids))
	changed := false
	for i, k := range kids {
		p, err := pp.partitioned(k)
		if err != nil {
			return nil, err
		}
		if out[i], err = pp.single(k, p); err != nil {
			return nil, err
		}
		changed = changed || out[i] != k
	}
	if !changed {
		return n, nil
	}
	return n.(exec.ChildReplacer).WithNewChildren(out)
}

// single merges p, the partitioned form of orig, into one stream: by a
// CoalescePartitionsExec, or, when orig's output is ordered (a parent may
// rely on it: the planner drops sorts over ordered inputs), by a
// SortPreservingMergeExec on that order. Where p's partitions lost the
// order, orig is kept.
func (pp *parallelPlanner) single(orig, p exec.Node) (exec.Node, error) {
	if exec.OutputPartitions(p) <= 1 {
		return p, nil
	}
	ord := orig.Properties().Ordering
	if len(ord) == 0 {
		return exec.NewCoalescePartitionsExec(p), nil
	}
	if !exec.OrderingSatisfies(p.Properties().Ordering, ord) {
		return orig, nil
	}
	return exec.NewSortPreservingMergeExec(p, ord)
}

// sort sorts each partition of its input, in parallel; the parent merges
// them (single: a SortPreservingMergeExec on the sort's keys).
func (pp *parallelPlanner) sort(s *exec.SortExec) (exec.Node, error) {
	if pp.memoryLimited {
		return pp.singleChildren(s)
	}
	c, err := pp.partitioned(s.Children()[0])
	if err != nil || exec.OutputPartitions(c) <= 1 {
		return s, err
	}
	return s.PerPartition(c)
}

// window runs a window with PARTITION BY over a hash repartition on
// those columns, each stream sorted for it on its own: every window
// partition is in one stream, so each stream's window is the serial one's
// over its rows. A window without PARTITION BY (one partition), over no
// sort of its own (it shares the one below another window), or under a
// memory limit (one instance, as sorts) reads its input made parallel and
// merged back in order.
//
// The window's computed arguments may sit between it and its sort, as a
// projection (plan/window.go appends them after the sort): it runs on
// each partition's sorted stream.
func (pp *parallelPlanner) window(w *window.Exec) (exec.Node, error) {
	below := w.Children()[0]
	args, _ := below.(*exec.ProjectExec)
	if args != nil {
		below = args.Children()[0]
	}
	s, ok := below.(*exec.SortExec)
	if pp.memoryLimited || len(w.PartitionColumns()) == 0 || !ok {
		return pp.singleChildren(w)
	}
	// over puts the projection back above the sort ns.
	over := func(ns exec.Node) (exec.Node, error) {
		if args == nil {
			return ns, nil
		}
		return args.WithNewChildren([]exec.Node{ns})
	}
	c, err := pp.partitioned(s.Children()[0])
	if err != nil {
		return nil, err
	}
	if exec.OutputPartitions(c) <= 1 {
		if c, err = pp.single(s.Children()[0], c); err != nil {
			return nil, err
		}
		ns, err := s.WithNewChildren([]exec.Node{c})
		if err != nil {
			return nil, err
		}
		if ns, err = over(ns); err != nil {
			return nil, err
		}
		return w.WithNewChildren([]exec.Node{ns})
	}
	rp, err := exec.NewRepartitionExec(c, pp.threads, w.PartitionColumns())
	if err != nil {
		return nil, err
	}
	ps, err := s.PerPartition(rp)
	if err != nil {
		return nil, err
	}
	top, err := over(ps)
	if err != nil {
		return nil, err
	}
	return w.PerPartition(top)
}

// join probes the left input's partitions in parallel against one shared
// build of the right input (made parallel below and merged). RIGHT, FULL,
// RIGHT SEMI and RIGHT ANTI joins (the last two chosen by buildside.go)
// too: the last partition to end its probe emits the right rows from every
// partition's matches (exec/partition_join.go).
func (pp *parallelPlanner) join(h *exec.HashJoinExec) (exec.Node, error) {
	if !h.ProbesPartitions() {
		return pp.singleChildren(h)
	}
	kids := h.Children()
	l, err := pp.partitioned(kids[0])
	if err != nil {
		return nil, err
	}
	rp, err := pp.partitioned(kids[1])
	if err != nil {
		return nil, err
	}
	r, err := pp.single(kids[1], rp)
	if err != nil {
		return nil, err
	}
	if exec.OutputPartitions(l) <= 1 {
		if l == kids[0] && r == kids[1] {
			return h, nil
		}
		return h.WithNewChildren([]exec.Node{l, r})
	}
	return h.PerPartition(l, r)
}
