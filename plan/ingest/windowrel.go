package ingest

import (
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// windowRelsAsProjects rewrites every ConsistentPartitionWindowRel of p
// into the ProjectRel that means the same: the input's columns then one
// window function expression per window_functions entry, each carrying
// the relation's partition expressions and sorts (its output is the same
// columns in the same order, and its common and emit carry over).
// substrait-go (v8) has no WindowRel; window functions in a projection it
// decodes, and the planner plans (window.go). p is not modified: a plan
// holding a WindowRel is copied first.
func windowRelsAsProjects(p *substraitpb.Plan) *substraitpb.Plan {
	if !holdsWindowRel(p) {
		return p
	}
	p = proto.Clone(p).(*substraitpb.Plan)
	eachRel(p, func(r *substraitpb.Rel) {
		wr, ok := r.GetRelType().(*substraitpb.Rel_Window)
		if !ok || wr.Window == nil {
			return
		}
		w := wr.Window
		exprs := make([]*substraitpb.Expression, len(w.GetWindowFunctions()))
		for i, f := range w.GetWindowFunctions() {
			wf := &substraitpb.Expression_WindowFunction{
				FunctionReference: f.GetFunctionReference(),
				Arguments:         f.GetArguments(),
				Options:           f.GetOptions(),
				OutputType:        f.GetOutputType(),
				Phase:             f.GetPhase(),
				Invocation:        f.GetInvocation(),
				LowerBound:        f.GetLowerBound(),
				UpperBound:        f.GetUpperBound(),
				BoundsType:        f.GetBoundsType(),
				Partitions:        w.GetPartitionExpressions(),
				Sorts:             w.GetSorts(),
			}
			exprs[i] = &substraitpb.Expression{RexType: &substraitpb.Expression_WindowFunction_{WindowFunction: wf}}
		}
		r.RelType = &substraitpb.Rel_Project{Project: &substraitpb.ProjectRel{
			Common: w.GetCommon(), Input: w.GetInput(), Expressions: exprs, AdvancedExtension: w.GetAdvancedExtension(),
		}}
	})
	return p
}

func holdsWindowRel(p *substraitpb.Plan) bool {
	found := false
	eachRel(p, func(r *substraitpb.Rel) {
		_, w := r.GetRelType().(*substraitpb.Rel_Window)
		found = found || w
	})
	return found
}

// walkMessages calls f on m and every message under it, parents first;
// f may replace a message's fields below it (they are walked after).
func walkMessages(m protoreflect.Message, f func(protoreflect.Message)) {
	f(m)
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind && fd.Kind() != protoreflect.GroupKind || fd.IsMap() {
			return true
		}
		if fd.IsList() {
			l := v.List()
			for i := range l.Len() {
				walkMessages(l.Get(i).Message(), f)
			}
			return true
		}
		walkMessages(v.Message(), f)
		return true
	})
}
