package plan

import (
	"context"
	"fmt"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/plan/optimize"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// Build plans p against cat. The returned node's schema field names are the
// plan root's names. Build never panics: substrait-go panics on some
// malformed plans, and those (like any other panic while planning) come
// back as an error wrapping ErrInvalidPlan (and matching errkind.Internal);
// a panic in the planner itself is ErrInternal.
func Build(ctx context.Context, p *substraitpb.Plan, cat Catalog, opt Options) (node exec.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			node, err = nil, recovered(r, ErrInternal, "planning")
		}
	}()
	if p == nil {
		return nil, fmt.Errorf("%w: nil plan", ErrInvalidPlan)
	}
	if cat == nil {
		return nil, fmt.Errorf("%w: nil catalog", ErrInvalidPlan)
	}
	// The Substrait ingest (plan/ingest) checks the plan before
	// substrait-go reads it: it panics on malformed plans, and rejects
	// unsupported relations (ExpandRel, ...) with a generic
	// "not implemented"; ingest names both by their path.
	p, widths, err := validate(p, cat)
	if err != nil {
		return nil, err
	}
	var stats optimize.Stats
	if rc, ok := cat.(RowCounter); ok {
		stats = rc
	}
	// The logical optimizer's first pass, on the proto (substrait-go
	// cannot read a subquery expression): subqueries become joins.
	if widths != nil {
		if err := decorrelate(p, widths, stats); err != nil {
			return nil, err
		}
	}
	sp, err := fromProto(p)
	if err != nil {
		return nil, err
	}
	roots := sp.GetRoots()
	if len(roots) != 1 {
		return nil, fmt.Errorf("%w: plan has %d roots, want 1", ErrInvalidPlan, len(roots))
	}
	// The logical optimizer (plan/optimize) pushes down the conditions of
	// inner joins and orders them, for every producer's plan alike: after
	// decorrelation, before the physical build.
	input := roots[0].Input()
	if !opt.DisableJoinOrder {
		if input, err = optimize.Joins(ctx, input, stats); err != nil {
			return nil, err
		}
	}
	newPlanner := func(tables map[string]TableProvider) *planner {
		return &planner{ctx: ctx, cat: cat, opt: opt, reg: sp.ExtensionRegistry(), tables: tables, widths: map[splan.Rel]int{}, params: map[int]paramUse{}, extended: map[exec.Node]extension{}, takes: map[exec.Node]bool{}, subplans: map[exec.Node]exec.Node{}, perOuterRow: map[exec.Node]bool{}}
	}
	pl := newPlanner(map[string]TableProvider{})
	share := findShared(input, opt)
	if share != nil {
		// The first pass records what the repeated relations' occurrences
		// need (shared.go); the second compiles each of them once.
		share.recording = true
		pl.share = share
		if _, err := pl.compile(input, nil, hint{}); err != nil {
			return nil, err
		}
		share.recording = false
		pl = newPlanner(pl.tables)
		pl.share = share
	}
	out, err := pl.compile(input, nil, hint{})
	if err != nil {
		return nil, err
	}
	var pads []int
	if !opt.WriteSource {
		pads = rootPads(input.RecordType().Types())
	}
	node, err = pl.finish(out, roots[0].Names(), pads)
	if err != nil {
		return nil, err
	}
	if node, err = parallelize(node, opt); err != nil {
		return nil, err
	}
	if node, err = share.finish(node, opt); err != nil {
		return nil, err
	}
	if len(pl.params) > 0 {
		node = &paramsExec{input: node, uses: pl.params}
	}
	return node, nil
}

// finish renames the output to the root names and drops helper columns;
// a column with pads[i] > 0 is a character(pads[i]) shown blank-padded
// (bpchar.go).
func (p *planner) finish(out *rel, names []string, pads []int) (exec.Node, error) {
	if len(names) != len(out.cols) {
		return nil, fmt.Errorf("%w: root has %d names for %d columns", ErrInvalidPlan, len(names), len(out.cols))
	}
	sc := out.node.Schema()
	same := sc.NumFields() == len(names)
	exprs := make([]physexpr.Expr, len(names))
	for i := range names {
		c, err := out.field(i)
		if err != nil {
			return nil, err
		}
		exprs[i] = c
		same = same && c.Index == i && sc.Field(i).Name == names[i]
	}
	for _, n := range pads {
		same = same && n == 0
	}
	if same {
		return out.node, nil
	}
	input := out.node
	// Over a ProjectExec of computed columns, project from its input
	// directly: the computed expressions move into the root projection.
	if e, ok := p.extended[out.node]; ok {
		for i, x := range exprs {
			exprs[i] = e.exprs[x.(physexpr.Col).Index]
		}
		input = e.input
	}
	for i, n := range pads {
		if n > 0 {
			exprs[i] = physexpr.CharPad{E: exprs[i], Len: n}
		}
	}
	return exec.NewProjectExec(input, exprs, names)
}
