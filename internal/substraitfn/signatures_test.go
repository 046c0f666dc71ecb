package substraitfn

import (
	"fmt"
	"testing"

	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/extensions"
	"github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-go/v8/types"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
)

// argKinds are the value types the SQL front end has, each required and
// nullable.
func argKinds() []types.Type {
	var out []types.Type
	for _, n := range []types.Nullability{types.NullabilityRequired, types.NullabilityNullable} {
		out = append(out,
			&types.Int64Type{Nullability: n}, &types.Float64Type{Nullability: n},
			&types.StringType{Nullability: n}, &types.BooleanType{Nullability: n})
	}
	return out
}

// combos returns every list of n types from ts.
func combos(ts []types.Type, n int) [][]types.Type {
	if n == 0 {
		return [][]types.Type{nil}
	}
	var out [][]types.Type
	for _, rest := range combos(ts, n-1) {
		for _, t := range ts {
			out = append(out, append(append([]types.Type{}, rest...), t))
		}
	}
	return out
}

// refs are field references of the given types.
func refs(t *testing.T, ts []types.Type) []expr.Expression {
	rec := types.NewRecordTypeFromTypes(ts)
	out := make([]expr.Expression, len(ts))
	for i := range ts {
		r, err := expr.NewRootFieldRef(expr.NewStructFieldRef(int32(i)), rec)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = r
	}
	return out
}

// declared is the plan-level declaration part a builder would write, after
// Finish.
func declared(b plan.Builder) *substraitpb.Plan {
	urns, decls := b.GetExprBuilder().Reg.ExtensionsToProto()
	p := &substraitpb.Plan{ExtensionUrns: urns, Extensions: decls}
	Finish(p)
	return p
}

// TestScalarsMatchDefaultCollection: the oracle is substrait-go resolving
// the same call against its default collection (the standard YAML). Every
// function stablerow emits, with every combination of up to three argument
// types the SQL front end has, must give the same compound name, output
// type and serialized call, or fail in both.
func TestScalarsMatchDefaultCollection(t *testing.T) {
	full, err := Full()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for id := range scalars {
		for n := 0; n <= 3; n++ {
			for _, ts := range combos(argKinds(), n) {
				args := refs(t, ts)
				fa := make([]types.FuncArg, len(args))
				for i, a := range args {
					fa[i] = a
				}
				wb := plan.NewBuilder(full)
				want, werr := wb.ScalarFn(id.URN, id.Name, nil, fa...)
				gb := plan.NewBuilder(full)
				got, gerr := Scalar(gb.GetExprBuilder().Reg, id.URN, id.Name, args...)
				label := fmt.Sprintf("%s(%s)", id.Name, typeNames(ts))
				if (werr != nil) != (gerr != nil) {
					t.Fatalf("%s: default collection err %v, ours %v", label, werr, gerr)
				}
				if werr != nil {
					continue
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
		t.Fatalf("only %d signatures resolved: the oracle is not exercising anything", checked)
	}
}

// TestCountMatchesDefaultCollection: count(*) and count(x) as the
// default collection resolves them.
func TestCountMatchesDefaultCollection(t *testing.T) {
	full, err := Full()
	if err != nil {
		t.Fatal(err)
	}
	cases := [][]types.Type{nil}
	for _, k := range argKinds() {
		cases = append(cases, []types.Type{k})
	}
	for _, ts := range cases {
		args := refs(t, ts)
		fa := make([]types.FuncArg, len(args))
		for i, a := range args {
			fa[i] = a
		}
		name := "count"
		if len(ts) == 1 {
			name = "count:any"
		}
		wb := plan.NewBuilder(full)
		want, err := wb.AggregateFn(URNAggregate, name, nil, fa...)
		if err != nil {
			t.Fatal(err)
		}
		gb := plan.NewBuilder(full)
		got, err := Count(gb.GetExprBuilder().Reg, args...)
		if err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(want.ToProto(), got.ToProto()) {
			t.Fatalf("count(%s): serialized\n%v\nours\n%v", typeNames(ts), want.ToProto(), got.ToProto())
		}
		if w, g := declared(wb), declared(gb); !proto.Equal(w, g) {
			t.Fatalf("count(%s): declarations\n%v\nours\n%v", typeNames(ts), w, g)
		}
	}
}

// TestUnknownFunction: a name outside the table is an error, not a
// silent load of the full collection.
func TestUnknownFunction(t *testing.T) {
	c, err := Collection()
	if err != nil {
		t.Fatal(err)
	}
	b := plan.NewBuilder(c)
	if _, err := Scalar(b.GetExprBuilder().Reg, URNArithmetic, "power"); err == nil {
		t.Fatal("power resolved")
	}
	_ = extensions.ID{}
}
