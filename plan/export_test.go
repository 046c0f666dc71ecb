package plan

import (
	"github.com/stablerow/stablerow/exec/physexpr"
	"github.com/stablerow/stablerow/plan/ingest"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// CheckDepth is the ingest's checks (the depth first) for the external
// tests.
func CheckDepth(p *substraitpb.Plan) error {
	_, _, err := ingest.Validate(p, nil)
	return err
}

// FunctionNames returns the simple names of the scalar and the aggregate
// functions the planner executes, for TestSubstraitDoc's check of the
// lists in docs/substrait.md §5. and, or, negate and extract are cases of
// scalarFn's switch rather than map entries, so they are added by hand.
func FunctionNames() (scalar, aggregate []string) {
	scalar = []string{"and", "or", "negate", "extract"}
	for n := range binaryOps {
		scalar = append(scalar, n)
	}
	for n := range unaryOps {
		scalar = append(scalar, n)
	}
	for n := range exprFuncs {
		scalar = append(scalar, n)
	}
	for _, n := range physexpr.FuncNames() { // plainFunc plans these by name
		if _, ok := exprFuncs[n]; !ok {
			scalar = append(scalar, n)
		}
	}
	for n := range aggregateFuncs {
		aggregate = append(aggregate, n)
	}
	return scalar, aggregate
}
