package ingest

import (
	"fmt"

	"github.com/stablerow/stablerow/internal/substraitfn"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// The phase's entry points, in the order plan.Build calls them:
//
//	q, n, err := ingest.Validate(p, s) // depth, normalization, validation
//	c, err := ingest.Check(q)       // only when n > 0: each relation's width,
//	                                // for the optimizer's decorrelation
//	sp, err := ingest.ReadValidated(q) // substrait-go's reading (Read
//	                                // also checks the types: any plan)

// Validate checks a plan before anything recursive reads it (its depth,
// MaxPlanDepth), normalizes what producers write into the shape
// substrait-go reads (normalize.go, migrate.go, funcnames.go), and
// validates the result (validate.go). It returns the plan to read on: p
// itself, or a normalized copy; p is never modified. subqueries counts
// the subquery expressions the plan holds, which the planner flattens
// into joins before reading it (optimize.Decorrelate; Check gives the
// widths it needs).
//
// s resolves the column types a read leaves out (DataFusion's base_schema
// of names only); nil for a caller without a catalog, which then refuses
// such a read.
func Validate(p *substraitpb.Plan, s Schemas) (q *substraitpb.Plan, subqueries int, err error) {
	if p == nil {
		return nil, 0, fmt.Errorf("%w: nil plan", ErrInvalidPlan)
	}
	if err := checkDepth(p); err != nil {
		return nil, 0, err
	}
	// substrait-go has no WindowRel: a producer's window relation is read
	// as the projection of window functions it means (windowrel.go).
	return validate(windowRelsAsProjects(p), s)
}

// Checked is what validating a plan learned about it, for a rewrite of
// its proto (the optimizer's decorrelation) that must keep each
// relation's width. The map is the caller's: a rewrite records the width
// of each relation it makes in Widths.
type Checked struct {
	// Widths is each relation's output width (after its emit).
	Widths map[*substraitpb.Rel]int
}

// Check validates q, a plan Validate returned (or a rewrite of one),
// and records its facts. It normalizes nothing: q is read as it is.
func Check(q *substraitpb.Plan) (*Checked, error) {
	v, err := check(q, true)
	if err != nil {
		return nil, err
	}
	return &Checked{Widths: v.widths}, nil
}

// Read is substrait-go's reading of q (a plan Validate returned), after
// the check of its types substrait-go would panic on (typecheck.go); a
// panic of substrait-go's on a malformed plan it still gets becomes
// ErrInvalidPlan (and ErrDecoderPanic).
func Read(q *substraitpb.Plan) (sp *splan.Plan, err error) {
	defer func() {
		if r := recover(); r != nil {
			sp, err = nil, fmt.Errorf("%w: %w", ErrInvalidPlan, Recovered(r, ErrDecoderPanic, "reading the plan"))
		}
	}()
	if err := checkTypes(q); err != nil {
		return nil, err
	}
	return readChecked(q)
}

// ReadValidated is Read of a plan Validate returned (or the optimizer's
// rewrite of one, which copies and builds only valid types): Validate
// checked its types in normalize's walk, so they are not walked again
// (about 0.3 ms of a TPC-H Q2 plan).
func ReadValidated(q *substraitpb.Plan) (sp *splan.Plan, err error) {
	defer func() {
		if r := recover(); r != nil {
			sp, err = nil, fmt.Errorf("%w: %w", ErrInvalidPlan, Recovered(r, ErrDecoderPanic, "reading the plan"))
		}
	}()
	return readChecked(q)
}

// readChecked is Read after the type check.
func readChecked(q *substraitpb.Plan) (*splan.Plan, error) {
	q, err := lowerMarkJoins(q)
	if err != nil {
		return nil, err
	}
	sp, err := substraitfn.FromProto(q)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidPlan, err)
	}
	return sp, nil
}

// The located errors, for the checks of a plan's proto outside ingest's
// walk (a packed list's payload, the optimizer's decorrelation), so that
// they name the path in the plan as ingest's own do:
//
//	plan: invalid plan: root.input.filter: condition.arguments[0]: field 7 out of range (input has 3 columns)
//	plan: unsupported expression: Subquery at root.input.filter: condition
//
// Bad is found inside an expression; InvalidAt and UnsupportedAt are at a
// relation's path.

// Bad is an invalid plan inside an expression.
func Bad(format string, args ...any) error { return bad(format, args...) }

// InvalidAt is an invalid plan at the relation at path.
func InvalidAt(path, format string, args ...any) error { return invalidAt(path, format, args...) }

// UnsupportedAt is an unsupported construct of the kind at path.
func UnsupportedAt(kind, path, format string, args ...any) error {
	return unsupportedAt(kind, path, format, args...)
}

// protoRoot returns the plan's single RelRoot (the root is the only plan
// relation the planner reads: references to other plan relations are
// ErrUnsupported).
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
			return nil, fmt.Errorf("%w: plan relations other than the root (references)", Unsupported("plan"))
		default:
			return nil, fmt.Errorf("%w: plan relation without a type", ErrInvalidPlan)
		}
	}
	if root == nil {
		return nil, fmt.Errorf("%w: plan has no root relation", ErrInvalidPlan)
	}
	return root, nil
}
