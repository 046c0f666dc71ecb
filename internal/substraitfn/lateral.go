package substraitfn

import (
	extpb "github.com/substrait-io/substrait-protobuf/go/substraitpb/extensions"
	"google.golang.org/protobuf/types/known/anypb"
)

// A LATERAL join (docs/substrait.md §10) is a JoinRel whose right input
// is a query level of its own: its outer references with steps_out 1
// reach the left input's row (as a subquery expression's reach the row
// of the relation that holds it), and one further out steps_out 2 and
// so on. Substrait has no lateral join; the enhancement (which a
// consumer must understand or refuse, unlike an optimization) says the
// join is one. The optimizer unnests it (optimize.Decorrelate,
// decorrelate_general.go), so no relation the planner reads carries it.

// LateralJoinURL is the type URL of the enhancement that marks a
// JoinRel as a LATERAL join.
const LateralJoinURL = "type.stablerow.dev/stablerow.LateralJoin"

// LateralExtension is the advanced extension that marks a LATERAL join.
func LateralExtension() *extpb.AdvancedExtension {
	return &extpb.AdvancedExtension{Enhancement: &anypb.Any{TypeUrl: LateralJoinURL}}
}

// IsLateralJoin reports whether e (a JoinRel's advanced extension)
// marks a LATERAL join.
func IsLateralJoin(e *extpb.AdvancedExtension) bool {
	return e.GetEnhancement().GetTypeUrl() == LateralJoinURL
}
