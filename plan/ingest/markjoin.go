package ingest

import (
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	extpb "github.com/substrait-io/substrait-protobuf/go/substraitpb/extensions"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// A mark join (JOIN_TYPE_LEFT_MARK: the left rows and a nullable boolean,
// the OR of the join condition over the right rows; the optimizer's
// decorrelation writes one for an IN, EXISTS or op ANY used as a value,
// and a producer may send one) is a join type substrait-go v8.1.1 reads
// but cannot type: its output comes out with no columns, so no relation
// above it can reference the mark. Before substrait-go reads the plan,
// each is written as the LEFT join of the same shape that it can type,
// and marked as a mark join for the planner (plan/join.go):
//
//	JoinRel{LEFT_MARK, L, R, cond, emit E}
//	  becomes
//	JoinRel{LEFT, L, Project(R, [true]), cond, emit E∘[0..|L|), |L|+|R|],
//	        advanced_extension.enhancement: MarkJoinURL}
//
// The project's one column (the literal true) is where the mark goes:
// the LEFT join types it a nullable boolean, at the position after L
// that LEFT_MARK defines, and cond's references into R are unchanged.
// The enhancement (which a consumer must understand or refuse, unlike
// an optimization) says the join is not a LEFT join.

// MarkJoinURL is the type URL of the enhancement that marks a LEFT join
// as a mark join.
const MarkJoinURL = "type.stablerow.dev/stablerow.MarkJoin"

// IsMarkJoin reports whether the advanced extension e marks a mark join.
func IsMarkJoin(e *extpb.AdvancedExtension) bool {
	return e.GetEnhancement().GetTypeUrl() == MarkJoinURL
}

// lowerMarkJoins returns q with its mark joins written as marked LEFT
// joins: q itself when it has none, else a copy (q is the caller's).
func lowerMarkJoins(q *substraitpb.Plan) (*substraitpb.Plan, error) {
	if !hasMarkJoin(q) {
		return q, nil
	}
	q = proto.Clone(q).(*substraitpb.Plan)
	v, err := check(q, true) // the widths of the copy's relations
	if err != nil {
		return nil, err
	}
	widths := func(r *substraitpb.Rel) int { return v.widths[r] }
	eachRel(q, func(r *substraitpb.Rel) {
		j := r.GetJoin()
		if j == nil || j.GetType() != substraitpb.JoinRel_JOIN_TYPE_LEFT_MARK {
			return
		}
		nl, nr := widths(j.GetLeft()), widths(j.GetRight())
		j.Type = substraitpb.JoinRel_JOIN_TYPE_LEFT
		j.Right = &substraitpb.Rel{RelType: &substraitpb.Rel_Project{Project: &substraitpb.ProjectRel{
			Input: j.GetRight(),
			Expressions: []*substraitpb.Expression{{RexType: &substraitpb.Expression_Literal_{Literal: &substraitpb.Expression_Literal{
				LiteralType: &substraitpb.Expression_Literal_Boolean{Boolean: true}}}}},
		}}}
		direct := append(iota32(nl), int32(nl+nr))
		if e := j.GetCommon().GetEmit(); e != nil {
			out := make([]int32, len(e.GetOutputMapping()))
			for i, m := range e.GetOutputMapping() {
				out[i] = direct[m]
			}
			direct = out
		}
		common := &substraitpb.RelCommon{EmitKind: &substraitpb.RelCommon_Emit_{Emit: &substraitpb.RelCommon_Emit{OutputMapping: direct}}}
		if c := j.GetCommon(); c != nil {
			common.Hint, common.AdvancedExtension = c.GetHint(), c.GetAdvancedExtension()
		}
		j.Common = common
		if j.AdvancedExtension == nil {
			j.AdvancedExtension = &extpb.AdvancedExtension{}
		}
		j.AdvancedExtension.Enhancement = &anypb.Any{TypeUrl: MarkJoinURL}
	})
	return q, nil
}

func iota32(n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(i)
	}
	return out
}

// hasMarkJoin reports whether q holds a LEFT_MARK join.
func hasMarkJoin(q *substraitpb.Plan) bool {
	found := false
	eachRel(q, func(r *substraitpb.Rel) {
		found = found || r.GetJoin().GetType() == substraitpb.JoinRel_JOIN_TYPE_LEFT_MARK
	})
	return found
}
