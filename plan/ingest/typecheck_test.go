package ingest

import (
	"errors"
	"strings"
	"testing"

	substraitpb "github.com/substrait-io/substrait-protobuf/go/substraitpb"

	"github.com/stablerow/stablerow/errkind"
)

// A read schema whose type has no kind made substrait-go panic
// ("unimplemented type from proto"), which surfaced as an internal error
// (found by FuzzSubstrait); it is an invalid plan naming the field.
func TestTypeWithoutKindIsInvalidPlan(t *testing.T) {
	read := &substraitpb.ReadRel{BaseSchema: &substraitpb.NamedStruct{Names: []string{"k"},
		Struct: &substraitpb.Type_Struct{Types: []*substraitpb.Type{{}}}},
		ReadType: &substraitpb.ReadRel_NamedTable_{NamedTable: &substraitpb.ReadRel_NamedTable{Names: []string{"t"}}}}
	p := &substraitpb.Plan{Relations: []*substraitpb.PlanRel{{RelType: &substraitpb.PlanRel_Root{Root: &substraitpb.RelRoot{
		Input: &substraitpb.Rel{RelType: &substraitpb.Rel_Read{Read: read}}, Names: []string{"k"}}}}}}
	_, err := Read(p)
	if !errors.Is(err, ErrInvalidPlan) || errors.Is(err, errkind.Internal) {
		t.Fatalf("got %v, want ErrInvalidPlan and no internal error", err)
	}
	if !strings.Contains(err.Error(), "base_schema.struct.types[0]") {
		t.Fatalf("error does not name the field: %v", err)
	}
	read.BaseSchema.Struct = nil
	if _, err := Read(p); !errors.Is(err, ErrInvalidPlan) || errors.Is(err, errkind.Internal) {
		t.Fatalf("base_schema without struct: got %v", err)
	}
	read.BaseSchema.Struct = &substraitpb.Type_Struct{Types: []*substraitpb.Type{{}}}
	read.BaseSchema.Struct.Types[0] = &substraitpb.Type{Kind: &substraitpb.Type_PrecisionTimestamp_{
		PrecisionTimestamp: &substraitpb.Type_PrecisionTimestamp{Precision: 40}}}
	if _, err := Read(p); !errors.Is(err, ErrInvalidPlan) || errors.Is(err, errkind.Internal) {
		t.Fatalf("precision 40: got %v", err)
	}
}
