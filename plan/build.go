package plan

import (
	"context"
	"fmt"

	"github.com/stablerow/stablerow/exec/physexpr"

	"github.com/stablerow/stablerow/exec"
	"github.com/stablerow/stablerow/internal/substraitfn"
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
	if err := checkDepth(p); err != nil {
		return nil, err
	}
	// Check the plan before substrait-go reads it: it panics on malformed
	// plans, and rejects unsupported relations (WindowRel, ExpandRel, ...)
	// with a generic "not implemented"; validate names both by their path.
	p = windowRelsAsProjects(p) // windowrel.go: substrait-go has no WindowRel
	if p, err = validate(p); err != nil {
		return nil, err
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
	// the subquery flattening of validate, before the physical build.
	var stats optimize.Stats
	if rc, ok := cat.(RowCounter); ok {
		stats = rc
	}
	input := roots[0].Input()
	if !opt.DisableJoinOrder {
		if input, err = optimize.Joins(ctx, input, stats); err != nil {
			return nil, err
		}
	}
	newPlanner := func(tables map[string]TableProvider) *planner {
		return &planner{ctx: ctx, cat: cat, opt: opt, reg: sp.ExtensionRegistry(), tables: tables, widths: map[splan.Rel]int{}, params: map[int]paramUse{}, extended: map[exec.Node]extension{}}
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

// protoRoot returns the plan's single RelRoot.
func protoRoot(p *substraitpb.Plan) (*substraitpb.RelRoot, error) {
	var root *substraitpb.RelRoot
	for _, r := range p.GetRelations() {
		switch t := r.GetRelType().(type) {
		case *substraitpb.PlanRel_Root:
			if root != nil {
				return nil, fmt.Errorf("%w: plan has more than one root", ErrInvalidPlan)
			}
			root = t.Root
		case *substraitpb.PlanRel_Rel:
			return nil, fmt.Errorf("%w: plan relations other than the root (references)", errUnsupported("plan"))
		default:
			return nil, fmt.Errorf("%w: plan relation without a type", ErrInvalidPlan)
		}
	}
	if root == nil {
		return nil, fmt.Errorf("%w: plan has no root relation", ErrInvalidPlan)
	}
	return root, nil
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

// fromProto is substrait-go's FromProto, whose panics on malformed plans
// (field references out of range, ...) become ErrInvalidPlan.
func fromProto(p *substraitpb.Plan) (sp *splan.Plan, err error) {
	defer func() {
		if r := recover(); r != nil {
			sp, err = nil, fmt.Errorf("%w: %w", ErrInvalidPlan, recovered(r, ErrDecoderPanic, "reading the plan"))
		}
	}()
	if err := checkTypes(p); err != nil {
		return nil, err
	}
	sp, err = substraitfn.FromProto(p)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidPlan, err)
	}
	return sp, nil
}
