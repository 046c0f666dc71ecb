package substraitfn

import (
	"fmt"
	"sort"
	"testing"

	"github.com/substrait-io/substrait-go/v8/extensions"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	"google.golang.org/protobuf/proto"
)

// TestExprScalarsMatchDefaultCollection: the oracle is substrait-go's own
// matcher over the standard YAML. For every function of exprScalars and
// every list of up to three argument types (the SQL front end's four
// kinds and i32, required and nullable), the first declared variant whose
// Match accepts the types must be the one Call picks, with the same
// compound name, output type and serialized call; when no variant
// matches, Call must fail.
func TestExprScalarsMatchDefaultCollection(t *testing.T) {
	full, err := Full()
	if err != nil {
		t.Fatal(err)
	}
	variants := map[extensions.ID][]*extensions.ScalarFunctionVariant{}
	for _, v := range full.GetAllScalarFunctions() {
		id := extensions.ID{URN: v.URN(), Name: v.Name()}
		if _, ok := exprScalars[id]; ok {
			variants[id] = append(variants[id], v)
		}
	}
	kinds := argKinds()
	for _, n := range []types.Nullability{types.NullabilityRequired, types.NullabilityNullable} {
		kinds = append(kinds, &types.Int32Type{Nullability: n})
	}
	checked := 0
	for id := range exprScalars {
		vs := variants[id]
		if len(vs) == 0 {
			t.Fatalf("%s: not in the default collection", id)
		}
		// Declaration order is the YAML's; the map loses it, so try the
		// compound names in a fixed order (the matching variants of one
		// argument list are never more than one for these functions).
		sort.Slice(vs, func(i, j int) bool { return vs[i].CompoundName() < vs[j].CompoundName() })
		for n := 1; n <= 3; n++ {
			for _, ts := range combos(kinds, n) {
				args := refs(t, ts)
				fa := make([]types.FuncArg, len(args))
				for i, a := range args {
					fa[i] = a
				}
				label := fmt.Sprintf("%s(%s)", id.Name, typeNames(ts))
				var match []*extensions.ScalarFunctionVariant
				for _, v := range vs {
					if ok, err := v.Match(ts); ok && err == nil {
						match = append(match, v)
					}
				}
				gb := plan.NewBuilder(full)
				got, gerr := Call(gb.GetExprBuilder().Reg, id.URN, id.Name, nil, args...)
				if len(match) == 0 {
					if gerr == nil {
						t.Fatalf("%s: no declared variant matches, ours resolved %v", label, got)
					}
					continue
				}
				if len(match) > 1 {
					t.Fatalf("%s: %d variants match", label, len(match))
				}
				if gerr != nil {
					t.Fatalf("%s: %s matches, ours failed: %v", label, match[0].CompoundName(), gerr)
				}
				wb := plan.NewBuilder(full)
				want, werr := wb.ScalarFn(id.URN, match[0].CompoundName(), nil, fa...)
				if werr != nil {
					t.Fatalf("%s: oracle: %v", label, werr)
				}
				checked++
				if w, g := declared(wb), declared(gb); !proto.Equal(w, g) {
					t.Fatalf("%s: declarations\n%v\nours\n%v", label, w, g)
				}
				if !want.GetType().Equals(got.GetType()) || want.GetType().GetNullability() != got.GetType().GetNullability() {
					t.Fatalf("%s: type %s, ours %s", label, want.GetType(), got.GetType())
				}
				if !proto.Equal(want.ToProto(), got.ToProto()) {
					t.Fatalf("%s: serialized\n%v\nours\n%v", label, want.ToProto(), got.ToProto())
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d signatures resolved", checked)
	}
	t.Logf("%d calls checked", checked)
}
