package optimize

import (
	"testing"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/stablerow/stablerow/internal/substraitfn"
)

// The general unnesting puts the domain's columns before an expand's left
// input: its left-field arguments move with them, its constants and the
// reads of other joins do not (seed: LATERAL (SELECT count(*) FROM
// generate_series(1, lf.n)) read the domain's column as the step, 0).
func TestShiftExpand(t *testing.T) {
	read := func(detail map[string]any) *substraitpb.Rel {
		st, err := structpb.NewStruct(detail)
		if err != nil {
			t.Fatal(err)
		}
		a, err := anypb.New(st)
		if err != nil {
			t.Fatal(err)
		}
		return &substraitpb.Rel{RelType: &substraitpb.Rel_Read{Read: &substraitpb.ReadRel{
			ReadType: &substraitpb.ReadRel_ExtensionTable_{ExtensionTable: &substraitpb.ReadRel_ExtensionTable{Detail: a}}}}}
	}
	args := func(r *substraitpb.Rel) map[string]any {
		var st structpb.Struct
		if err := r.GetRead().GetExtensionTable().GetDetail().UnmarshalTo(&st); err != nil {
			t.Fatal(err)
		}
		return st.AsMap()
	}
	right := read(map[string]any{"relation": "stablerow.generate_series",
		"start": map[string]any{"left_field": 1}, "stop": map[string]any{"left_field": 2}, "step": map[string]any{"left_field": 3}})
	j := &substraitpb.JoinRel{Right: right, AdvancedExtension: substraitfn.LateralExtension()}
	out, ok := shiftExpand(j, 2)
	if !ok {
		t.Fatal("expand not shifted")
	}
	got := args(out)
	for key, want := range map[string]float64{"start": 3, "stop": 4, "step": 5} {
		if f := got[key].(map[string]any)["left_field"]; f != want {
			t.Errorf("%s: left_field %v, want %v", key, f, want)
		}
	}
	if f := args(right)["start"].(map[string]any)["left_field"]; f != 1.0 {
		t.Errorf("the original read changed: start %v", f)
	}
	if _, ok := shiftExpand(&substraitpb.JoinRel{Right: right}, 2); ok {
		t.Error("a join without the lateral mark shifted")
	}
	constant := read(map[string]any{"relation": "stablerow.generate_series", "start": 1, "stop": 3})
	if _, ok := shiftExpand(&substraitpb.JoinRel{Right: constant, AdvancedExtension: substraitfn.LateralExtension()}, 2); ok {
		t.Error("a constant series shifted")
	}
}
