package plan_test

import (
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/stablerow/stablerow/exec/exectest"
	"github.com/stablerow/stablerow/plan"
	"github.com/stablerow/stablerow/sql"
)

// TestDecodePlanForms: the seed plan round-trips through protobuf JSON and
// binary, and both decoded plans build and return the same rows as the
// original.
func TestDecodePlanForms(t *testing.T) {
	mem := exectest.Mem(t)
	c := stdCatalog(t, mem)
	stmts, err := sql.Parse("SELECT v.ord, t._rowaddr FROM UNNEST(:ids) WITH ORDINALITY AS v(rowid, ord) LEFT JOIN t ON t._rowid = v.rowid ORDER BY v.ord", sqlCatalog{c})
	if err != nil {
		t.Fatal(err)
	}
	orig := stmts[0].(*sql.Query).Plan
	js, err := plan.EncodeJSON(orig)
	if err != nil {
		t.Fatal(err)
	}
	bin, err := proto.Marshal(orig)
	if err != nil {
		t.Fatal(err)
	}
	ids := []int64{5, 3, 99, 0, -1}
	for name, data := range map[string][]byte{"json": js, "binary": bin} {
		p, err := plan.DecodePlan(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// (Not proto.Equal: the unnest detail is an Any holding a Struct,
		// whose map entries re-serialize in any order.)
		if got, want := p.GetRelations()[0].GetRoot().GetNames(), orig.GetRelations()[0].GetRoot().GetNames(); len(got) != len(want) {
			t.Fatalf("%s: root names %v, want %v", name, got, want)
		}
		rows, _, err := run(t, mem, c, p, plan.Options{}, map[int]any{1: ids}, 8192)
		if err != nil {
			t.Fatal(err)
		}
		equalRows(t, rows, seedWant(ids))
	}
	for _, bad := range [][]byte{nil, []byte("   "), []byte(`{"extensionUris": 3}`), []byte{0xff, 0xff, 0xff}} {
		if _, err := plan.DecodePlan(bad); !errors.Is(err, plan.ErrInvalidPlan) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
