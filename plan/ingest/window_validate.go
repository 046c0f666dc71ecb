package ingest

import (
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// windowFunction checks a window function expression over an input of w
// columns (validate_expr.go): its call as a function's, its partitions and
// sort fields as expressions, its offsets non-negative (PostgreSQL: "frame
// starting offset must not be negative"). Where it may stand (a
// projection's top level) is the planner's check (window.go).
func (v *validator) windowFunction(f *substraitpb.Expression_WindowFunction, w int) error {
	if err := v.function(f.GetFunctionReference(), f.GetOutputType(), f.GetArguments(), w); err != nil {
		return err
	}
	for i, p := range f.GetPartitions() {
		if err := v.expr(p, w); err != nil {
			return within(err, "partitions[%d]", i)
		}
	}
	for i, s := range f.GetSorts() {
		if err := v.sortField(s, w); err != nil {
			return within(err, "sorts[%d]", i)
		}
	}
	for _, b := range []*substraitpb.Expression_WindowFunction_Bound{f.GetLowerBound(), f.GetUpperBound()} {
		if b.GetPreceding().GetOffset() < 0 || b.GetFollowing().GetOffset() < 0 {
			return bad("frame offset must not be negative")
		}
	}
	switch f.GetBoundsType() {
	case substraitpb.Expression_WindowFunction_BOUNDS_TYPE_UNSPECIFIED, substraitpb.Expression_WindowFunction_BOUNDS_TYPE_ROWS,
		substraitpb.Expression_WindowFunction_BOUNDS_TYPE_RANGE:
	default:
		return bad("window bounds type %d", f.GetBoundsType())
	}
	return nil
}
