package ingest

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	extpb "github.com/substrait-io/substrait-protobuf/go/substraitpb/extensions"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// reflectEachRel is what eachRel stands in for: every relation under p,
// found by the reflective walk.
func reflectEachRel(p *substraitpb.Plan) []*substraitpb.Rel {
	var out []*substraitpb.Rel
	walkMessages(p.ProtoReflect(), func(m protoreflect.Message) {
		if r, ok := m.Interface().(*substraitpb.Rel); ok {
			out = append(out, r)
		}
	})
	return out
}

// checkEachRel: eachRel visits the relations the reflective walk finds,
// each once, every relation before the relations under it.
func checkEachRel(t *testing.T, name string, p *substraitpb.Plan) int {
	t.Helper()
	var got []*substraitpb.Rel
	eachRel(p, func(r *substraitpb.Rel) { got = append(got, r) })
	want := reflectEachRel(p)
	key := func(rs []*substraitpb.Rel) []string {
		var k []string
		for _, r := range rs {
			k = append(k, protojson.Format(r))
		}
		slices.Sort(k)
		return k
	}
	if len(got) != len(want) || !slices.Equal(key(got), key(want)) {
		t.Fatalf("%s: eachRel visited %d relations, the reflective walk %d", name, len(got), len(want))
	}
	at := map[*substraitpb.Rel]int{}
	for i, r := range got {
		if _, dup := at[r]; dup {
			t.Fatalf("%s: relation visited twice", name)
		}
		at[r] = i
	}
	for i, r := range got {
		walkMessages(r.ProtoReflect(), func(m protoreflect.Message) {
			if c, ok := m.Interface().(*substraitpb.Rel); ok && c != r && at[c] <= i {
				t.Fatalf("%s: a relation under relation %d was visited before it", name, i)
			}
		})
	}
	return len(got)
}

// TestEachRelMatchesReflection holds the typed relation walk to the
// reflective one over every plan of the producer fixtures (DuckDB,
// DataFusion, Isthmus, PostgreSQL-shaped TPC-H): the same relations,
// parents first. It fails when a relation or expression kind that can
// hold a subquery is dropped from the walk.
func TestEachRelMatchesReflection(t *testing.T) {
	root := filepath.Join("..", "testdata", "producers")
	plans, rels := 0, 0
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
			return nil // a fixture that is not a plan
		}
		plans++
		rels += checkEachRel(t, path, &p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if plans < 100 || rels < 800 {
		t.Fatalf("only %d plans, %d relations read", plans, rels)
	}
}

// TestEachRelFallsBack: relations under kinds the typed walk does not
// list (an extension relation, a subquery inside a read's filter and a
// nested struct) are found through the reflective fallback.
func TestEachRelFallsBack(t *testing.T) {
	leaf := func() *substraitpb.Rel {
		return &substraitpb.Rel{RelType: &substraitpb.Rel_Read{Read: &substraitpb.ReadRel{
			ReadType: &substraitpb.ReadRel_NamedTable_{NamedTable: &substraitpb.ReadRel_NamedTable{Names: []string{"t"}}}}}}
	}
	scalar := func(r *substraitpb.Rel) *substraitpb.Expression {
		return &substraitpb.Expression{RexType: &substraitpb.Expression_Subquery_{Subquery: &substraitpb.Expression_Subquery{
			SubqueryType: &substraitpb.Expression_Subquery_Scalar_{Scalar: &substraitpb.Expression_Subquery_Scalar{Input: r}}}}}
	}
	inner := leaf()
	inner.GetRead().Filter = &substraitpb.Expression{RexType: &substraitpb.Expression_Nested_{Nested: &substraitpb.Expression_Nested{
		NestedType: &substraitpb.Expression_Nested_Struct_{Struct: &substraitpb.Expression_Nested_Struct{
			Fields: []*substraitpb.Expression{scalar(leaf())}}}}}}
	ext := &substraitpb.Rel{RelType: &substraitpb.Rel_ExtensionSingle{ExtensionSingle: &substraitpb.ExtensionSingleRel{Input: inner}}}
	var markCond = scalar(&substraitpb.Rel{RelType: &substraitpb.Rel_Filter{Filter: &substraitpb.FilterRel{Input: leaf()}}})
	join := &substraitpb.Rel{RelType: &substraitpb.Rel_Join{Join: &substraitpb.JoinRel{
		Left: ext, Right: leaf(), Expression: markCond, Type: substraitpb.JoinRel_JOIN_TYPE_LEFT_MARK,
		AdvancedExtension: &extpb.AdvancedExtension{}}}}
	p := &substraitpb.Plan{Relations: []*substraitpb.PlanRel{{RelType: &substraitpb.PlanRel_Root{Root: &substraitpb.RelRoot{Input: join}}}}}
	if n := checkEachRel(t, "hand-made", p); n != 7 {
		t.Fatalf("%d relations, want 7", n)
	}
	if !hasMarkJoin(p) {
		t.Fatal("the mark join is not found")
	}
}
