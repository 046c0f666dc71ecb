package optimize

import (
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// A LATERAL join (substraitfn.LateralJoinURL: its right input reaches the
// left input's row through outer references) is a dependent join, unnested
// as a correlated subquery is (PostgreSQL plans it as a nested loop whose
// inner side is re-scanned with the outer row's values as parameters;
// here, as DuckDB does, once per distinct correlation value):
//
//	L ⋈lateral R on c   becomes   Project(L ⋈ R' on c' AND corr)
//
// R' is R flattened (its filters' correlated conjuncts are the join's
// corr, its projects computed over the join) for an inner join; for a
// LEFT join, whose NULL-extended rows must show R's columns NULL (a
// project's constant too), R' is D ⋈dep R (decorrelate_general.go), R's
// columns materialized. A right or full lateral join is refused:
// PostgreSQL's parser refuses the reference to the left item there.

// lateral rewrites the lateral join j (of relation r) into joins.
func (u *unnester) lateral(r *substraitpb.Rel, j *substraitpb.JoinRel, path string) (*substraitpb.Rel, error) {
	var err error
	if j.Left, err = u.rel(j.GetLeft(), path+".left"); err != nil {
		return nil, err
	}
	if j.Right, err = u.rel(j.GetRight(), path+".right"); err != nil {
		return nil, err
	}
	jt := j.GetType()
	if isExpandRel(j.GetRight()) && (jt == substraitpb.JoinRel_JOIN_TYPE_INNER || jt == substraitpb.JoinRel_JOIN_TYPE_LEFT) {
		return r, nil // a correlated expand, not a subquery (expand.go): it keeps its mark
	}
	j.AdvancedExtension = nil
	if jt != substraitpb.JoinRel_JOIN_TYPE_INNER && jt != substraitpb.JoinRel_JOIN_TYPE_LEFT {
		return nil, unsupportedAt("join", path, "LATERAL join of type %s (inner and left only)", jt)
	}
	if j.GetPostJoinFilter() != nil {
		return nil, unsupportedAt("join", path, "LATERAL join with a post-join filter")
	}
	w := u.width(j.GetLeft())
	if !u.relHasOuterRef(j.GetRight()) {
		// Not correlated after all: a join like any other.
		if hasSubquery(j) {
			if jt == substraitpb.JoinRel_JOIN_TYPE_INNER {
				return u.innerJoinSubqueries(r, j, path)
			}
			return nil, unsupportedAt("expression", path, "subquery in a LEFT JOIN LATERAL's condition")
		}
		return r, nil
	}
	if hasSubquery(j.GetExpression()) {
		return nil, unsupportedAt("expression", path, "subquery in a correlated LATERAL join's condition")
	}
	var f *flat
	if jt == substraitpb.JoinRel_JOIN_TYPE_INNER {
		f, err = u.flatten(j.GetLeft(), j.GetRight(), w, path+".right")
	} else {
		f, err = u.unnestGeneral(j.GetLeft(), w, j.GetRight(), path+".right")
	}
	if err != nil {
		return nil, err
	}
	// The ON condition over L's and R's columns, in the new join's space.
	on, err := u.inJoinSpace(j.GetExpression(), append(iotaExprs(w), f.cols...), path+": expression")
	if err != nil {
		return nil, err
	}
	wb := u.width(f.base)
	nj := u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Join{Join: &substraitpb.JoinRel{
		Common: direct(), Left: j.GetLeft(), Right: f.base, Expression: u.and(append([]*substraitpb.Expression{on}, f.conds...)), Type: jt,
	}}}, w+wb)
	// L's columns, then R's (computed over the join), through the
	// lateral join's own emit.
	wr := len(f.cols)
	out := make([]int32, 0, w+wr)
	pos := func(m int) int32 {
		if m < w {
			return int32(m)
		}
		return int32(w + wb + m - w)
	}
	if e := j.GetCommon().GetEmit(); e != nil {
		for _, m := range e.GetOutputMapping() {
			out = append(out, pos(int(m)))
		}
	} else {
		for m := range w + wr {
			out = append(out, pos(m))
		}
	}
	p := &substraitpb.Rel{RelType: &substraitpb.Rel_Project{Project: &substraitpb.ProjectRel{
		Common: &substraitpb.RelCommon{EmitKind: &substraitpb.RelCommon_Emit_{Emit: &substraitpb.RelCommon_Emit{OutputMapping: out}}},
		Input:  nj, Expressions: f.cols,
	}}}
	return u.made(p, u.width(r)), nil
}

// iotaExprs are references to fields 0..n-1.
func iotaExprs(n int) []*substraitpb.Expression {
	out := make([]*substraitpb.Expression, n)
	for i := range out {
		out[i] = fieldExpr(i)
	}
	return out
}
