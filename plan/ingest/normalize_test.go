package ingest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// fakeSchemas is a catalog of one table, t(k i64, s string).
type fakeSchemas struct{}

func (fakeSchemas) ColumnTypes(table, columns []string) ([]*substraitpb.Type, error) {
	if len(table) != 1 || table[0] != "t" {
		return nil, fmt.Errorf("%w: no table %q", ErrInvalidPlan, strings.Join(table, "."))
	}
	out := make([]*substraitpb.Type, len(columns))
	for i, c := range columns {
		switch c {
		case "k":
			out[i] = &substraitpb.Type{Kind: &substraitpb.Type_I64_{I64: &substraitpb.Type_I64{}}}
		case "s":
			out[i] = &substraitpb.Type{Kind: &substraitpb.Type_String_{String_: &substraitpb.Type_String{}}}
		default:
			return nil, fmt.Errorf("%w: table %q has no column %q", ErrInvalidPlan, table[0], c)
		}
	}
	return out, nil
}

// DataFusion writes a read's base_schema as its column names without
// their types (no struct), which the validator refused ("read without a
// base_schema"). The types come from the catalog, by name; a name the
// table lacks is the catalog's error; without a catalog the read is
// refused, naming what is missing.
func TestBaseSchemaNamesOnly(t *testing.T) {
	read := func(names string) []byte {
		return []byte(`{"relations": [{"root": {"names": [` + names + `], "input": {"read": {
		  "baseSchema": {"names": [` + names + `]}, "namedTable": {"names": ["t"]}}}}}]}`)
	}
	p, err := DecodePlan(read(`"s", "k"`))
	if err != nil {
		t.Fatal(err)
	}
	q, _, err := Validate(p, fakeSchemas{})
	if err != nil {
		t.Fatal(err)
	}
	ts := q.GetRelations()[0].GetRoot().GetInput().GetRead().GetBaseSchema().GetStruct().GetTypes()
	if len(ts) != 2 || ts[0].GetString_() == nil || ts[1].GetI64() == nil {
		t.Fatalf("base_schema types %v, want string, i64 (by name, not position)", ts)
	}
	if p.GetRelations()[0].GetRoot().GetInput().GetRead().GetBaseSchema().GetStruct() != nil {
		t.Fatal("Validate changed its input")
	}
	if _, err := Read(q); err != nil {
		t.Fatalf("substrait-go's reading: %v", err)
	}
	if p, err = DecodePlan(read(`"k", "x"`)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Validate(p, fakeSchemas{}); !errors.Is(err, ErrInvalidPlan) || !strings.Contains(err.Error(), `has no column "x"`) {
		t.Fatalf("unknown column: got %v", err)
	}
	if _, _, err := Validate(p, nil); !errors.Is(err, ErrInvalidPlan) || !strings.Contains(err.Error(), "names without types, and no catalog") {
		t.Fatalf("no catalog: got %v", err)
	}
}
