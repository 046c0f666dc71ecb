package optimize

import (
	splan "github.com/substrait-io/substrait-go/v8/plan"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/stablerow/stablerow/internal/substraitfn"
)

// A table function in FROM whose arguments read the FROM items before it
// (generate_series(1, t.n): PostgreSQL makes a function in FROM implicitly
// LATERAL) is a LATERAL join whose right input is the function's
// extension-table read with its arguments given as the left input's
// columns, {"left_field": k} in the detail (docs/substrait.md §4). It is
// not a subquery: nothing in the right input is an outer reference, and
// PostgreSQL plans it as a nested loop over a FunctionScan re-evaluated
// per outer row, not by pulling anything up. So Decorrelate keeps its
// lateral mark (lateral, decorrelate_lateral.go), the join-order pass
// treats it as a barrier (isRegionJoin), the outer-join pass keeps the
// mark when it reduces or pushes through it (outerjoin.go), and the
// planner runs it as an expand (plan/expand.go, exec.ExpandExec).

// ExpandArgKey is the detail key of an argument that is a left column.
const ExpandArgKey = "left_field"

// IsExpandDetail reports whether an extension table's detail takes some
// argument from the left input of the lateral join around it.
func IsExpandDetail(d *anypb.Any) bool {
	if d == nil {
		return false
	}
	var st structpb.Struct
	if d.UnmarshalTo(&st) != nil {
		return false
	}
	for _, v := range st.GetFields() {
		if _, ok := v.GetStructValue().GetFields()[ExpandArgKey]; ok {
			return true
		}
	}
	return false
}

// isExpandRel reports whether r (a lateral join's right input) is such a
// table function read.
func isExpandRel(r *substraitpb.Rel) bool {
	return IsExpandDetail(r.GetRead().GetExtensionTable().GetDetail())
}

// keepExpandMark gives nj, rebuilt from j, j's lateral mark: without it
// the planner would read the expand as a join of an unreadable function.
func keepExpandMark(nj, j *splan.JoinRel) {
	if substraitfn.IsLateralJoin(j.GetAdvancedExtension()) {
		nj.SetAdvancedExtension(j.GetAdvancedExtension())
	}
}

// shiftExpand is the expand join j's right input with its left-field
// arguments moved k columns on: the general unnesting (depJoin) puts the
// domain's k columns before the left input's.
func shiftExpand(j *substraitpb.JoinRel, k int) (*substraitpb.Rel, bool) {
	r := j.GetRight()
	if k == 0 || !substraitfn.IsLateralJoin(j.GetAdvancedExtension()) || !isExpandRel(r) {
		return r, false
	}
	var st structpb.Struct
	if r.GetRead().GetExtensionTable().GetDetail().UnmarshalTo(&st) != nil {
		return r, false
	}
	for _, v := range st.GetFields() {
		if f, ok := v.GetStructValue().GetFields()[ExpandArgKey]; ok {
			f.Kind = &structpb.Value_NumberValue{NumberValue: f.GetNumberValue() + float64(k)}
		}
	}
	d, err := anypb.New(&st)
	if err != nil {
		return r, false
	}
	out := proto.Clone(r).(*substraitpb.Rel)
	out.GetRead().GetExtensionTable().Detail = d
	return out, true
}
