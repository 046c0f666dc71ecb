package plan

import (
	"errors"
	"fmt"

	"github.com/stablerow/stablerow/plan/ingest"
	"github.com/stablerow/stablerow/plan/optimize"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
)

// validate is the Substrait ingest (plan/ingest: depth, producer
// normalization, validation). It returns the plan substrait-go is to
// read: p itself, or a rewritten copy, p never modified; and, when the
// plan holds subquery expressions, a copy for the optimizer's first pass
// to rewrite in place (decorrelate) with the width of each of its
// relations (nil when there is no subquery).
//
// cat, when not nil, gives the column types a read leaves out (schemas.go).
func validate(p *substraitpb.Plan, cat Catalog) (*substraitpb.Plan, map[*substraitpb.Rel]int, error) {
	var s ingest.Schemas
	if cat != nil {
		s = catalogSchemas{cat}
	}
	q, subqueries, err := ingest.Validate(p, s)
	if err != nil || subqueries == 0 {
		return q, nil, err
	}
	if q == p {
		q = proto.Clone(p).(*substraitpb.Plan)
	}
	c, err := ingest.Check(q)
	if err != nil {
		return nil, nil, err
	}
	return q, c.Widths, nil
}

// decorrelate runs the optimizer's first pass, optimize.Decorrelate, on
// q (validate's copy, of the widths it recorded; st the table sizes, or
// nil): its refusals become the ingest's typed errors (ErrUnsupported,
// ErrInvalidPlan, at their path), and the plan it leaves is checked
// again, since its joins are the engine's and no outer reference is left.
func decorrelate(q *substraitpb.Plan, widths map[*substraitpb.Rel]int, st optimize.Stats) error {
	if err := optimize.Decorrelate(q, widths, st); err != nil {
		var pe *optimize.PathError
		if errors.As(err, &pe) {
			if pe.Kind == "" {
				return ingest.InvalidAt(pe.Path, "%s", pe.Msg)
			}
			return ingest.UnsupportedAt(pe.Kind, pe.Path, "%s", pe.Msg)
		}
		return err
	}
	if _, err := ingest.Check(q); err != nil {
		return fmt.Errorf("%w: the plan its subqueries were rewritten to: %w", ErrInternal, err)
	}
	return nil
}

// bad is the ingest's located error for the checks that run after it
// (a packed list's payload).
func bad(format string, args ...any) error { return ingest.Bad(format, args...) }

// literalName is a literal's message name, for the walks over a plan's
// proto that skip a long list literal's elements.
var literalName = (&substraitpb.Expression_Literal{}).ProtoReflect().Descriptor().FullName()

// fromProto is substrait-go's reading of a validated plan
// (ingest.ReadValidated: both callers validate first).
func fromProto(p *substraitpb.Plan) (*splan.Plan, error) { return ingest.ReadValidated(p) }

// The ingest's reading and writing of a plan's bytes and its depth limit,
// here too for the callers that plan what they read (the engine, the CLI).

// MaxPlanDepth bounds the nesting of a plan's messages (ingest.MaxPlanDepth).
const MaxPlanDepth = ingest.MaxPlanDepth

// DecodePlan reads a Substrait plan from protobuf JSON or binary
// protobuf (ingest.DecodePlan).
func DecodePlan(data []byte) (*substraitpb.Plan, error) { return ingest.DecodePlan(data) }

// EncodeJSON writes a plan as indented protobuf JSON (ingest.EncodeJSON).
func EncodeJSON(p *substraitpb.Plan) ([]byte, error) { return ingest.EncodeJSON(p) }
