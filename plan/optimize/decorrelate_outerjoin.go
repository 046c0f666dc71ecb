package optimize

import (
	"strings"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A LEFT join's ON condition may hold subqueries (t LEFT JOIN u ON u.x =
// t.a AND EXISTS (SELECT 1 FROM v WHERE v.y = u.x)). PostgreSQL runs
// each as a SubPlan per candidate pair. One that reads only the join's
// right (nullable) side, or nothing of the join, has the same value for
// every pair of a right row, so it is computed once per right row: the
// right input gets it as a column (the scalar's single join, the value's
// mark join: scalars), the condition reads that column, and the join's
// emit keeps the added columns out of its output. The left rows are all
// kept whatever the condition says, so nothing changes for them.
//
// A subquery that reads the left side (or both) is still refused: it
// would need the pairs themselves.

// outerJoinSubqueries rewrites the LEFT join j (relation r) whose
// condition holds subqueries over its right side only; ok is false when
// some subquery reads the left side or the post-join filter holds one.
func (u *unnester) outerJoinSubqueries(r *substraitpb.Rel, j *substraitpb.JoinRel, path string) (bool, error) {
	if j.GetType() != substraitpb.JoinRel_JOIN_TYPE_LEFT || hasSubquery(j.GetPostJoinFilter()) {
		return false, nil
	}
	lw, rw := u.width(j.GetLeft()), u.width(j.GetRight())
	subs := subqueriesIn(j.GetExpression(), path+": expression")
	for _, s := range subs {
		if !readsOnlyRight(s.e, lw) {
			return false, nil
		}
	}
	cur, w := j.GetRight(), rw
	for _, s := range subs {
		shiftSubqueryRefs(s.e, -lw)
		var err error
		if cur, w, err = u.scalars(cur, w, s.e, s.path); err != nil {
			return false, err
		}
		// s.e is now the value over the right input's columns: in the
		// join's space they follow the left's.
		v := shiftRefs(s.e, lw)
		proto.Reset(s.e)
		proto.Merge(s.e, v)
	}
	j.Right = cur
	added := int32(w - rw)
	if added == 0 {
		return true, nil
	}
	if j.Common == nil {
		j.Common = &substraitpb.RelCommon{}
	}
	if e := j.Common.GetEmit(); e != nil {
		for i, m := range e.GetOutputMapping() {
			if m >= int32(lw+rw) {
				e.OutputMapping[i] = m + added
			}
		}
	} else {
		j.Common.EmitKind = &substraitpb.RelCommon_Emit_{Emit: &substraitpb.RelCommon_Emit{OutputMapping: iota32(0, lw+rw)}}
	}
	u.made(r, u.width(r))
	return true, nil
}

// readsOnlyRight: the subquery expression e (in a join's condition, the
// left input's lw fields first) reads no field of the left input: neither
// its operands nor, through outer references, its relations.
func readsOnlyRight(e *substraitpb.Expression, lw int) bool {
	ok := true
	eachJoinRef(e, func(f *substraitpb.Expression_FieldReference) {
		if int(f.GetDirectReference().GetStructField().GetField()) < lw {
			ok = false
		}
	})
	return ok
}

// shiftSubqueryRefs moves every reference of the subquery expression e to
// the join's fields by d: its operands' field references and its
// relations' outer references to the join's level.
func shiftSubqueryRefs(e *substraitpb.Expression, d int) {
	eachJoinRef(e, func(f *substraitpb.Expression_FieldReference) {
		s := f.GetDirectReference().GetStructField()
		s.Field += int32(d)
	})
}

// eachJoinRef calls visit on every field reference of the subquery
// expression e that names a field of the relation e is evaluated over:
// the root references of its operands, and the outer references of its
// relations whose steps out lead back to that level (one from the
// subquery's own relations, one more inside each nested subquery).
func eachJoinRef(e *substraitpb.Expression, visit func(*substraitpb.Expression_FieldReference)) {
	var walk func(m protoreflect.Message, depth uint32)
	walk = func(m protoreflect.Message, depth uint32) {
		if m.Descriptor().FullName() == exprName {
			if f := m.Interface().(*substraitpb.Expression).GetSelection(); f != nil {
				o := f.GetOuterReference()
				if (depth == 0 && o == nil && f.GetDirectReference().GetStructField() != nil) || (o != nil && o.GetStepsOut() == depth) {
					visit(f)
				}
			}
		}
		inSubquery := strings.HasPrefix(string(m.Descriptor().FullName()), "substrait.Expression.Subquery")
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if fd.Kind() != protoreflect.MessageKind || fd.IsMap() {
				return true
			}
			next := depth
			if inSubquery && fd.Message().FullName() == relMessageName {
				next++ // the subquery's relations are one level in
			}
			if fd.IsList() {
				l := v.List()
				for i := range l.Len() {
					walk(l.Get(i).Message(), next)
				}
				return true
			}
			walk(v.Message(), next)
			return true
		})
	}
	walk(e.ProtoReflect(), 0)
}
