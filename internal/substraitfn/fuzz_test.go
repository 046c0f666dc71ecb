package substraitfn

import (
	"fmt"
	"testing"

	"github.com/stablerow/stablerow/internal/fuzzseed"
	"github.com/substrait-io/substrait-go/v8/expr"
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// fuzzSeeds are the committed corpus: the hand-written outside plans.
func fuzzSeeds(t testing.TB) [][]byte {
	var out [][]byte
	for _, js := range []string{sparsePlan} {
		var pb substraitpb.Plan
		if err := protojson.Unmarshal([]byte(js), &pb); err != nil {
			t.Fatal(err)
		}
		b, err := proto.Marshal(&pb)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// TestFuzzFromProtoCorpus regenerates testdata/fuzz/FuzzFromProto
// (STABLEROW_WRITE_CORPUS=1).
func TestFuzzFromProtoCorpus(t *testing.T) {
	fuzzseed.Skip(t)
	fuzzseed.Write(t, "FuzzFromProto", fuzzSeeds(t))
}

// functionNames lists, relation by relation, the simple names of the
// scalar functions in the expressions the planner reads.
func functionNames(r splan.Rel) []string {
	var names []string
	var walk func(e expr.Expression)
	walk = func(e expr.Expression) {
		if e == nil {
			return
		}
		if f, ok := e.(*expr.ScalarFunction); ok {
			names = append(names, f.Name())
		}
		e.Visit(func(c expr.Expression) expr.Expression { walk(c); return c })
	}
	switch x := r.(type) {
	case *splan.FilterRel:
		walk(x.Condition())
	case *splan.ProjectRel:
		for _, e := range x.Expressions() {
			walk(e)
		}
	case *splan.JoinRel:
		walk(x.Expr())
		walk(x.PostJoinFilter())
	case *splan.SortRel:
		for _, s := range x.Sorts() {
			walk(s.Expr)
		}
	}
	for _, in := range r.GetInputs() {
		names = append(names, functionNames(in)...)
	}
	return names
}

// safe runs f, turning a panic into an error.
func safe(f func() (*splan.Plan, error)) (sp *splan.Plan, err error) {
	defer func() {
		if r := recover(); r != nil {
			sp, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	return f()
}

// FuzzFromProto: the light read never lets a panic out, and whenever it
// and substrait-go's read against the full collection both succeed, every
// scalar function reads with the same name in the same place (the oracle
// is the full collection).
func FuzzFromProto(f *testing.F) {
	for _, b := range fuzzSeeds(f) {
		f.Add(b)
	}
	c, err := Collection()
	if err != nil {
		f.Fatal(err)
	}
	full, err := Full()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var pb substraitpb.Plan
		if err := proto.Unmarshal(data, &pb); err != nil {
			return
		}
		light, lerr := lightFromProto(&pb, c) // must not panic: it recovers
		ref, ferr := safe(func() (*splan.Plan, error) { return splan.FromProto(&pb, full) })
		if lerr != nil || ferr != nil {
			return
		}
		lr, fr := light.GetRoots(), ref.GetRoots()
		if len(lr) != len(fr) {
			t.Fatalf("%d roots, full collection %d", len(lr), len(fr))
		}
		for i := range lr {
			var ln, fn []string
			if _, err := safe(func() (*splan.Plan, error) { ln = functionNames(lr[i].Input()); return nil, nil }); err != nil {
				return // a malformed tree substrait-go accepted; not this package's concern
			}
			if _, err := safe(func() (*splan.Plan, error) { fn = functionNames(fr[i].Input()); return nil, nil }); err != nil {
				return
			}
			if fmt.Sprint(ln) != fmt.Sprint(fn) {
				t.Fatalf("functions %v, full collection %v", ln, fn)
			}
		}
	})
}
