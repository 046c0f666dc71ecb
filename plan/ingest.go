package plan

import (
	"fmt"

	"github.com/stablerow/stablerow/plan/ingest"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
)

// validate is the Substrait ingest (plan/ingest: depth, producer
// normalization, validation) and then the subquery flattening (unnest,
// subquery.go), which needs the width of every relation the validator
// records (ingest.Check). It returns the plan substrait-go is to read:
// p itself, or a rewritten copy; p is never modified.
//
// This is the one seam between the two: the flattening is to move to the
// logical optimizer, and its call is this function's middle.
//
// cat, when not nil, gives the column types a read leaves out (schemas.go).
func validate(p *substraitpb.Plan, cat Catalog) (*substraitpb.Plan, error) {
	var s ingest.Schemas
	if cat != nil {
		s = catalogSchemas{cat}
	}
	q, subqueries, err := ingest.Validate(p, s)
	if err != nil || subqueries == 0 {
		return q, err
	}
	// Subqueries become joins in a copy, and the result is checked again:
	// its joins are the engine's, and no outer reference is left.
	if q == p {
		q = proto.Clone(p).(*substraitpb.Plan)
	}
	c, err := ingest.Check(q)
	if err != nil {
		return nil, err
	}
	if err := unnest(q, &validator{funcs: c.Funcs, urns: c.URNs, widths: c.Widths}); err != nil {
		return nil, err
	}
	if _, err := ingest.Check(q); err != nil {
		return nil, fmt.Errorf("%w: the plan its subqueries were rewritten to: %w", ErrInternal, err)
	}
	return q, nil
}

// validator is what the subquery flattening reads of the validation
// (ingest.Checked): each function anchor's declared name and URN, and
// each relation's width, which unnest extends with the relations it makes.
type validator struct {
	funcs  map[uint32]string
	urns   map[uint32]string
	widths map[*substraitpb.Rel]int
}

// byNameOwners and urnOwner are ingest's rule for the functions known by
// name (ingest.ByNameOwners), which the flattening follows when it looks
// for a declared function.
var byNameOwners = ingest.ByNameOwners()

func urnOwner(urn string) string { return ingest.URNOwner(urn) }

// The located errors are ingest's (ingest.Bad, ...), for the checks that
// run after it: a packed list's payload, the subquery flattening.
func bad(format string, args ...any) error { return ingest.Bad(format, args...) }

func unsup(kind, format string, args ...any) error { return ingest.Unsup(kind, format, args...) }

func place(err error, path string) error { return ingest.Place(err, path) }

func invalidAt(path, format string, args ...any) error {
	return ingest.InvalidAt(path, format, args...)
}

func unsupportedAt(kind, path, format string, args ...any) error {
	return ingest.UnsupportedAt(kind, path, format, args...)
}

func relKind(t any) string { return ingest.RelKind(t) }

// literalName is a literal's message name, for the walks over a plan's
// proto that skip a long list literal's elements.
var literalName = (&substraitpb.Expression_Literal{}).ProtoReflect().Descriptor().FullName()

// protoRoot is the plan's single RelRoot (ingest.Root).
func protoRoot(p *substraitpb.Plan) (*substraitpb.RelRoot, error) { return ingest.Root(p) }

// fromProto is substrait-go's reading of a validated plan (ingest.Read).
func fromProto(p *substraitpb.Plan) (*splan.Plan, error) { return ingest.Read(p) }

// The ingest's reading and writing of a plan's bytes and its depth limit,
// here too for the callers that plan what they read (the engine, the CLI).

// MaxPlanDepth bounds the nesting of a plan's messages (ingest.MaxPlanDepth).
const MaxPlanDepth = ingest.MaxPlanDepth

// DecodePlan reads a Substrait plan from protobuf JSON or binary
// protobuf (ingest.DecodePlan).
func DecodePlan(data []byte) (*substraitpb.Plan, error) { return ingest.DecodePlan(data) }

// EncodeJSON writes a plan as indented protobuf JSON (ingest.EncodeJSON).
func EncodeJSON(p *substraitpb.Plan) ([]byte, error) { return ingest.EncodeJSON(p) }
