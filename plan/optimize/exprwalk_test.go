package optimize

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// TestWalkExprsMatchesReflection: walkExprs, which walks expressions by
// their Go types (exprwalk.go), visits the same expressions in the same
// order as the reflective walk it replaced, and outerRefIn answers as a
// reflective search does, for every message of every outside producer's
// plan under plan/testdata/producers (DuckDB, Isthmus, DataFusion, and
// PostgreSQL-shaped TPC-H: subqueries, outer references, IN lists, CASE,
// casts, window functions), and again with each visit stopped at every
// tenth expression (f returning false).
func TestWalkExprsMatchesReflection(t *testing.T) {
	root := filepath.Join("..", "testdata", "producers")
	plans, outer := 0, 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var p substraitpb.Plan
		if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(b, &p); err != nil {
			return nil // a fixture that is not a plan (an expected answer)
		}
		plans++
		eachMessage(p.ProtoReflect(), func(m protoreflect.Message) {
			for _, stop := range []int{0, 10} {
				if got, want := visits(m, walkExprs, stop), visits(m, reflectWalkExprs, stop); !slices.Equal(got, want) {
					t.Fatalf("%s: %s: walkExprs visited %d expressions, the reflective walk %d", path, m.Descriptor().FullName(), len(got), len(want))
				}
			}
			if r, ok := m.Interface().(*substraitpb.Rel); ok {
				got, want := outerRefIn(r, nil), reflectOuterRef(m)
				if got != want {
					t.Fatalf("%s: outerRefIn = %v, the reflective search %v", path, got, want)
				}
				if want {
					outer++
				}
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if plans < 100 || outer == 0 {
		t.Fatalf("read %d plans, %d relations with outer references: the fixtures moved", plans, outer)
	}
}

// visits is the expressions walk visits in m, in order; with stop > 0,
// f returns false at every stop-th one.
func visits(m protoreflect.Message, walk func(protoreflect.Message, func(*substraitpb.Expression) bool), stop int) []*substraitpb.Expression {
	var out []*substraitpb.Expression
	walk(m, func(e *substraitpb.Expression) bool {
		out = append(out, e)
		return stop == 0 || len(out)%stop != 0
	})
	return out
}

// eachMessage calls f on m and on every message under it.
func eachMessage(m protoreflect.Message, f func(protoreflect.Message)) {
	f(m)
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Kind() != protoreflect.MessageKind || fd.IsMap():
		case fd.IsList():
			for j := range v.List().Len() {
				eachMessage(v.List().Get(j).Message(), f)
			}
		default:
			eachMessage(v.Message(), f)
		}
		return true
	})
}

// reflectWalkExprs is walkExprs as it was written before exprwalk.go:
// every message field by reflection, stopping at relations.
func reflectWalkExprs(m protoreflect.Message, f func(*substraitpb.Expression) bool) {
	d := m.Descriptor()
	if d.FullName() == relMessageName {
		return
	}
	if d.FullName() == exprName && !f(m.Interface().(*substraitpb.Expression)) {
		return
	}
	fields := d.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.Kind() != protoreflect.MessageKind || !m.Has(fd) || fd.IsMap() {
			continue
		}
		if fd.IsList() {
			l := m.Get(fd).List()
			for j := range l.Len() {
				reflectWalkExprs(l.Get(j).Message(), f)
			}
			continue
		}
		reflectWalkExprs(m.Get(fd).Message(), f)
	}
}

// reflectOuterRef: an outer reference anywhere under m, relations
// included.
func reflectOuterRef(m protoreflect.Message) bool {
	found := false
	eachMessage(m, func(x protoreflect.Message) {
		if f, ok := x.Interface().(*substraitpb.Expression_FieldReference); ok && f.GetOuterReference() != nil {
			found = true
		}
	})
	return found
}
