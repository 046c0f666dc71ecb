package optimize

import "github.com/substrait-io/substrait-protobuf/go/substraitpb"

// A correlated scalar subquery whose value reads no column of its
// relation ((SELECT 5 FROM s WHERE s.k = 3 AND s.c = t.c)) is a
// constant in the LEFT SINGLE join's space, the same over the outer rows
// no subquery row meets, where PostgreSQL's SubPlan returns NULL (no
// row). Computed as a column of the subquery's relation instead, the
// join NULL-extends it (difftest seed 5 case 1564, a row comparison's
// column subquery SELECT TIMESTAMP '...', s.c0 ...).

// The same holds for a value that reads the outer row
// ((SELECT t.x FROM s WHERE s.c = t.c), or coalesce(s.y, t.x)): flattened,
// it is computed in the join's space from the outer columns, which the
// join never NULL-extends, so an outer row no subquery row met got t.x
// where PostgreSQL's SubPlan gives NULL. scalar (decorrelate.go) unnests
// such a subquery the general way instead: the domain's columns carry
// the outer values on the subquery's side, which the join NULL-extends.

// constantValue returns base with the value v appended as a column, and
// v's reference to it in the join's space (cur's w columns first), when
// v reads neither side; else base and v as they are.
func (u *unnester) constantValue(base *substraitpb.Rel, w int, v *substraitpb.Expression) (*substraitpb.Rel, *substraitpb.Expression) {
	if below, above := refRange(v, w); below || above || hasOuterRef(v) || hasSubquery(v) {
		return base, v
	}
	bw := u.width(base)
	p := u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Project{Project: &substraitpb.ProjectRel{
		Common: direct(), Input: base, Expressions: []*substraitpb.Expression{v},
	}}}, bw+1)
	return p, fieldExpr(w + bw)
}
