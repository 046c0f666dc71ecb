package optimize

import (
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"

	"github.com/stablerow/stablerow/internal/substraitfn"
)

// The restriction of a decorrelated aggregate (Decorrelate's
// scalarAggregate): a correlated scalar subquery over an aggregate
// becomes that aggregate grouped by the correlation's inner keys and LEFT
// joined to the outer query, which groups the whole inner input although
// only the groups of the outer rows' keys are ever looked up: TPC-H Q17
// groups all of lineitem by part for the ~0.1% of parts its outer query
// keeps. So the grouped input is first joined with the distinct keys the
// outer rows can have, as DuckDB's delim join does (its
// FlattenDependentJoins pushes a duplicate-eliminated scan of the outer
// keys into the subquery; PostgreSQL has no counterpart and runs Q17's
// SubPlan once per outer row):
//
//	outer LEFT JOIN (SELECT k, agg(..) FROM inner
//	                 JOIN (SELECT DISTINCT key FROM item WHERE item's conjuncts) r
//	                 ON k = r.key
//	                 GROUP BY k)
//
// The keys come from one relation of the outer query, the source: from
// the outer input down through its filters and inner joins and cross
// products, always into the side that has every outer key's columns,
// as far as one goes. Its conjuncts are those of the filters and join
// conditions passed on the way that read the source's columns alone.
// Every group an outer row can look up is kept: an outer row passed
// every one of those conjuncts, and it holds one of the source's rows,
// so its key is among the restriction's; the join with distinct keys
// repeats no row of the inner input, and a NULL key, which no '=' matches, had no group to
// look up before either. So each group that can be looked up has the
// same rows, and the same value, as before.
//
// The restriction is made only where it restricts: the source has a
// conjunct of its own (Q17's p_brand and p_container), or is itself a
// semi or anti join (Q20's partsupp, semi joined by ps_partkey IN (...)).
// The source is computed a second time for it (or shared, when the
// physical planner finds it twice: plan/shared.go).
//
// The join with the keys is an inner join with their DISTINCT (an
// aggregate grouped by them), rather than a semi join with the source:
// the same rows, but its hash table holds each key once, and it is
// estimated as the key join it is (a semi join is estimated as its left
// input, all of the aggregate's input), so the LEFT join above builds
// the small side, the grouped keys, as the plans benchmarked for TPC-H
// Q2, Q17 and Q20 do.

// restrict returns base (the aggregate's input, in whose space inner are
// the correlation's inner keys) joined with the distinct outer keys of cur
// (the outer query's input, in whose space outer are the keys), or base
// itself when no source restricts them.
func (u *unnester) restrict(base *substraitpb.Rel, inner []*substraitpb.Expression, cur *substraitpb.Rel, outer []*substraitpb.Expression) *substraitpb.Rel {
	for _, k := range outer {
		if hasOuterRef(k) {
			return base
		}
	}
	src, off, conds := u.keySource(cur, outer)
	if src == nil || src.GetCross() != nil || src.GetJoin().GetType() == substraitpb.JoinRel_JOIN_TYPE_INNER || hasOuterRef(src) {
		// No source, or keys in both sides of a join: restricting
		// by them would compute the outer query's join again.
		return base
	}
	ws := u.width(src)
	var own []*substraitpb.Expression
	for _, c := range conds {
		if within(c, off, ws) && !hasOuterRef(c) && !hasSubquery(c) {
			own = append(own, shiftRefs(c, -off))
		}
	}
	if len(own) == 0 && !isSemiOrAnti(src) {
		return base
	}
	r := u.made(proto.Clone(src).(*substraitpb.Rel), ws)
	if len(own) > 0 {
		r = u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Filter{Filter: &substraitpb.FilterRel{
			Common: direct(), Input: r, Condition: u.and(own)}}}, ws)
	}
	// The distinct keys: the source grouped by them, no measure.
	keys := make([]*substraitpb.Expression, len(outer))
	refs := make([]uint32, len(outer))
	for i, k := range outer {
		keys[i], refs[i] = shiftRefs(k, -off), uint32(i)
	}
	r = u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Aggregate{Aggregate: &substraitpb.AggregateRel{
		Common: direct(), Input: r, GroupingExpressions: keys,
		Groupings: []*substraitpb.AggregateRel_Grouping{{ExpressionReferences: refs}}}}}, len(keys))
	wb := u.width(base)
	on := make([]*substraitpb.Expression, len(inner))
	for i, k := range inner {
		on[i] = u.call("equal", nullableBoolean, k, fieldExpr(wb+i))
	}
	if region := fromList(base); region != nil {
		// base is a FROM list (a filter over cross products, as the
		// SQL front end and Isthmus write one): the keys join it as one
		// more item, their equalities beside its conditions, so that
		// the join order places them among its items (TPC-H Q2: the
		// part keys meet partsupp before the supplier join, which a
		// join above the whole list made meet 800K partsupp rows first;
		// 3.1x slower, paired). The keys' columns trail base's, which
		// the aggregate above never reads.
		cross := u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Cross{Cross: &substraitpb.CrossRel{
			Common: direct(), Left: region.input, Right: r}}}, wb+len(keys))
		conds := append(append([]*substraitpb.Expression{}, region.conds...), on...)
		return u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Filter{Filter: &substraitpb.FilterRel{
			Common: direct(), Input: cross, Condition: u.and(conds)}}}, wb+len(keys))
	}
	// An inner join with them, emitting base's columns: each base row
	// whose key is one of them, once (the keys are distinct), as the
	// semi join would keep it, but the hash table is built over the
	// distinct keys, not the source's rows, and the join's estimate is
	// a key join's, not all of base's (estimate.go), so the join above
	// it builds the smaller side.
	return u.made(&substraitpb.Rel{RelType: &substraitpb.Rel_Join{Join: &substraitpb.JoinRel{
		Common: &substraitpb.RelCommon{EmitKind: &substraitpb.RelCommon_Emit_{Emit: &substraitpb.RelCommon_Emit{OutputMapping: iota32(0, wb)}}},
		Left:   base, Right: r, Expression: u.and(on), Type: substraitpb.JoinRel_JOIN_TYPE_INNER}}}, wb)
}

// keySource finds the source of the outer keys in cur (see above): the
// relation, its first column's place in cur, and the conjuncts passed on
// the way there, in cur's space. It returns a nil source when some key
// reads no column of cur.
func (u *unnester) keySource(cur *substraitpb.Rel, keys []*substraitpb.Expression) (*substraitpb.Rel, int, []*substraitpb.Expression) {
	lo, hi := u.width(cur), -1
	for _, k := range keys {
		walkExprs(k.ProtoReflect(), func(x *substraitpb.Expression) bool {
			if s := x.GetSelection(); s != nil && s.GetOuterReference() == nil {
				f := int(s.GetDirectReference().GetStructField().GetField())
				lo, hi = min(lo, f), max(hi, f)
			}
			return true
		})
	}
	if hi < 0 {
		return nil, 0, nil
	}
	var conds []*substraitpb.Expression
	r, off := cur, 0
	for r.GetFilter().GetCommon().GetEmit() == nil && r.GetCross().GetCommon().GetEmit() == nil && r.GetJoin().GetCommon().GetEmit() == nil {
		var left, right *substraitpb.Rel
		switch t := r.GetRelType().(type) {
		case *substraitpb.Rel_Filter:
			for _, c := range u.conjuncts(t.Filter.GetCondition(), "") {
				conds = append(conds, shiftRefs(c.e, off))
			}
			r = t.Filter.GetInput()
			continue
		case *substraitpb.Rel_Cross:
			left, right = t.Cross.GetLeft(), t.Cross.GetRight()
		case *substraitpb.Rel_Join:
			if t.Join.GetType() != substraitpb.JoinRel_JOIN_TYPE_INNER {
				return r, off, conds
			}
			if substraitfn.IsLateralJoin(t.Join.GetAdvancedExtension()) {
				// An expand (expand.go) is one relation: its right
				// input, a table function over the left's columns,
				// cannot be read apart from it (difftest seed 782
				// case 65440: generate_series restricted alone).
				return r, off, conds
			}
			left, right = t.Join.GetLeft(), t.Join.GetRight()
			if t.Join.GetExpression() != nil {
				for _, c := range u.conjuncts(t.Join.GetExpression(), "") {
					conds = append(conds, shiftRefs(c.e, off))
				}
			}
		default:
			return r, off, conds
		}
		wl := u.width(left)
		switch {
		case hi < off+wl:
			r = left
		case lo >= off+wl:
			r, off = right, off+wl
		default:
			return r, off, conds
		}
	}
	return r, off, conds
}

// within reports whether every root reference of e is to a column in
// [off, off+w), and it has one.
func within(e *substraitpb.Expression, off, w int) bool {
	has, in := false, true
	walkExprs(e.ProtoReflect(), func(x *substraitpb.Expression) bool {
		if s := x.GetSelection(); s != nil && s.GetOuterReference() == nil {
			f := int(s.GetDirectReference().GetStructField().GetField())
			has, in = true, in && f >= off && f < off+w
		}
		return true
	})
	return has && in
}

// isSemiOrAnti reports a LEFT SEMI or LEFT ANTI join.
func isSemiOrAnti(r *substraitpb.Rel) bool {
	switch r.GetJoin().GetType() {
	case substraitpb.JoinRel_JOIN_TYPE_LEFT_SEMI, substraitpb.JoinRel_JOIN_TYPE_LEFT_ANTI:
		return true
	}
	return false
}

// direct is a RelCommon without an emit mapping.
func direct() *substraitpb.RelCommon {
	return &substraitpb.RelCommon{EmitKind: &substraitpb.RelCommon_Direct_{Direct: &substraitpb.RelCommon_Direct{}}}
}

// fromListRegion is a FROM list: cross products of its items (input) and
// the conjuncts over them (conds, none for a bare cross product).
type fromListRegion struct {
	input *substraitpb.Rel
	conds []*substraitpb.Expression
}

// fromList is base as a FROM list, or nil: a filter without an emit over
// a cross product without one, or such a cross product alone.
func fromList(base *substraitpb.Rel) *fromListRegion {
	if f := base.GetFilter(); f != nil && f.GetCommon().GetEmit() == nil {
		if c := f.GetInput().GetCross(); c != nil && c.GetCommon().GetEmit() == nil {
			return &fromListRegion{input: f.GetInput(), conds: []*substraitpb.Expression{f.GetCondition()}}
		}
		return nil
	}
	if c := base.GetCross(); c != nil && c.GetCommon().GetEmit() == nil {
		return &fromListRegion{input: base}
	}
	return nil
}
