package optimize

import (
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// depOuterJoin is D ⋈dep (L RIGHT|FULL JOIN R ON c): a right or full
// join NULL-extends its left side, so D cannot ride the left side alone
// as depJoin has it (a right row that meets no left row would lose its
// D row). D goes into both sides, and the sides join on D too:
//
//	(D × L) RIGHT|FULL JOIN (D' × R) ON c AND D IS NOT DISTINCT FROM D'
//
// so each right row (and, for FULL, each left row) is kept once per D
// row, NULL-extended within its own D row, as PostgreSQL's SubPlan runs
// the join once per outer row. The D columns of the result are D' for
// RIGHT (every row has its right side) and, for FULL, D where the left
// side is there and D' where it is not: per column "CASE WHEN D IS NULL
// THEN D' ELSE D END". A row whose left side is there has D = D' (the
// join matched on them) or D' all NULL (left-only), so a D value that
// is itself NULL stays NULL either way.
//
//	join: D L D' R   (width 2k + lw + rw)
//	project: + the result's D (k)
//	emit: the result's D, then the join's own columns
func (u *unnester) depOuterJoin(d *domain, j *substraitpb.JoinRel, ws int, path string) (*substraitpb.Rel, error) {
	k := d.k
	lw, rw := u.width(j.GetLeft()), u.width(j.GetRight())
	if _, ok := shiftExpand(j, k); ok {
		return nil, unsupportedAt("expression", path, "outer reference inside a %s join of a function", j.GetType())
	}
	left, err := u.dep(d, j.GetLeft(), path+".left")
	if err != nil {
		return nil, err
	}
	right, err := u.dep(d, j.GetRight(), path+".right")
	if err != nil {
		return nil, err
	}
	pos := func(f int) int {
		if f < lw {
			return k + f
		}
		return 2*k + f
	}
	cond, err := u.depExpr(d, j.GetExpression(), pos, path+": expression")
	if err != nil {
		return nil, err
	}
	conds := []*substraitpb.Expression{cond}
	for i := range k {
		conds = append(conds, u.call("is_not_distinct_from", requiredBoolean, fieldExpr(i), fieldExpr(k+lw+i)))
	}
	pf, err := u.depExpr(d, j.GetPostJoinFilter(), pos, path+": post_join_filter")
	if err != nil {
		return nil, err
	}
	jw, common := 2*k+lw+rw, direct()
	if k == 0 {
		// An empty domain (a level reading only queries further out):
		// D is one row of no columns, so the join is itself, its outer
		// references one level nearer, with no D to carry.
		jw, common = ws, j.GetCommon()
	}
	join := u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Join{Join: &substraitpb.JoinRel{
		Common: common, Left: left, Right: right, Expression: u.and(conds), PostJoinFilter: pf,
		Type: j.GetType(), AdvancedExtension: j.GetAdvancedExtension()}}}, jw)
	if k == 0 {
		return join, nil
	}
	ds := make([]*substraitpb.Expression, k)
	for i := range k {
		ds[i] = fieldExpr(k + lw + i)
		if j.GetType() == substraitpb.JoinRel_JOIN_TYPE_OUTER {
			ds[i] = &substraitpb.Expression{RexType: &substraitpb.Expression_IfThen_{IfThen: &substraitpb.Expression_IfThen{
				Ifs: []*substraitpb.Expression_IfThen_IfClause{{
					If: u.call("is_null", requiredBoolean, fieldExpr(i)), Then: fieldExpr(k + lw + i)}},
				Else: fieldExpr(i)}}}
		}
	}
	emit := iota32(jw, k)
	if e := j.GetCommon().GetEmit(); e != nil {
		for _, m := range e.GetOutputMapping() {
			emit = append(emit, int32(pos(int(m))))
		}
	} else {
		for f := range lw + rw {
			emit = append(emit, int32(pos(f)))
		}
	}
	out := &substraitpb.Rel{RelType: &substraitpb.Rel_Project{Project: &substraitpb.ProjectRel{
		Common: &substraitpb.RelCommon{EmitKind: &substraitpb.RelCommon_Emit_{Emit: &substraitpb.RelCommon_Emit{OutputMapping: emit}}},
		Input:  join, Expressions: ds}}}
	return u.made(out, k+ws), nil
}
