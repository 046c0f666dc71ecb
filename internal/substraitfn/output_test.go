package substraitfn

import (
	"errors"
	"testing"

	"github.com/substrait-io/substrait-go/v8/types"
)

// ScalarOutput and AggregateOutput type a call a plan wrote without its
// output_type as Scalar and Aggregate type the planner's own: by the
// declared implementation the argument types select, or, for a
// predicate, boolean whichever implementation it is.
func TestOutputOfUntypedCalls(t *testing.T) {
	i32 := &types.Int32Type{Nullability: types.NullabilityRequired}
	i64 := &types.Int64Type{Nullability: types.NullabilityNullable}
	str := &types.StringType{Nullability: types.NullabilityRequired}
	if out, ok := ScalarOutput("add", []types.Type{i64, i64}); !ok || !out.Equals(i64) {
		t.Fatalf("add(i64?, i64?) = %v, %v; want i64?", out, ok)
	}
	if out, ok := ScalarOutput("add", []types.Type{i64, str}); ok {
		t.Fatalf("add(i64?, string) = %v; want no signature", out)
	}
	if out, ok := ScalarOutput("equal", []types.Type{i32, i64}); !ok || !out.Equals(boolean.WithNullability(types.NullabilityNullable)) {
		t.Fatalf("equal(i32, i64?) = %v, %v; want boolean?", out, ok)
	}
	if out, ok := ScalarOutput("is_not_distinct_from", []types.Type{i64, i64}); !ok || !out.Equals(boolean) {
		t.Fatalf("is_not_distinct_from(i64?, i64?) = %v, %v; want boolean (never NULL)", out, ok)
	}
	if out, err := AggregateOutput("avg", []types.Type{i32}); err != nil || !out.Equals(&types.Float64Type{Nullability: types.NullabilityNullable}) {
		t.Fatalf("avg(i32) = %v, %v; want fp64?", out, err)
	}
	if _, err := AggregateOutput("min", []types.Type{&types.BooleanType{}}); !errors.Is(err, ErrNoSignature) {
		t.Fatalf("min(boolean): %v, want ErrNoSignature", err)
	}
}
