package optimize

import (
	"fmt"
	"testing"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// ojPlan is o (k, v) joined (jt) with i (k, v) on o.k = i.k AND the
// EXISTS of s (k) filtered by cond, where the join's fields are o.k 0,
// o.v 1, i.k 2, i.v 3 one level out.
func ojPlan(jt, cond string) string {
	exists := `{"subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_EXISTS", "tuples": ` + dFilter(dRead("s", "k"), cond) + `}}}`
	on := dCall(99, dBool, dCall(1, dBool, dRef(0, 0), dRef(2, 0)), exists)
	return dPlan(`{"join": {"common": {"direct": {}}, "left": `+dRead("o", "k", "v")+`, "right": `+dRead("i", "k", "v")+
		`, "expression": `+on+`, "type": "`+jt+`"}}`, "k", "v", "k2", "v2")
}

// A LEFT join's EXISTS over its right side (i.v, field 3 of the join)
// filters the right input, as PostgreSQL pushes an ON qual of the
// nullable side down to it (distribute_qual_to_rels): the right input
// becomes a semi join of i with s on the outer reference, now to i's
// field 1, and the join keeps its plain condition and its output.
func TestOuterJoinNullableSideSubquery(t *testing.T) {
	_, in, _ := decorrelated(t, ojPlan("JOIN_TYPE_LEFT", dCall(1, dBool, dRef(0, 0), dRef(3, 1))))
	j := in.GetJoin()
	if j == nil || j.GetType() != substraitpb.JoinRel_JOIN_TYPE_LEFT || j.GetRight().GetRead() != nil {
		t.Fatalf("want a LEFT join over a rewritten right input, got %v", in)
	}
	sameProtoExpr(t, "join condition", j.GetExpression(), dCall(1, dBool, dRef(0, 0), dRef(2, 0)))
	semi := j.GetRight().GetJoin()
	if semi == nil || semi.GetType() != substraitpb.JoinRel_JOIN_TYPE_LEFT_SEMI || semi.GetLeft().GetRead() == nil {
		t.Fatalf("right input: want a semi join of i, got %v", j.GetRight())
	}
	// s.k is field 2 of the semi join (i's two fields first), i.v field 1.
	sameProtoExpr(t, "semi condition", semi.GetExpression(), dCall(1, dBool, dRef(2, 0), dRef(1, 0)))
}

// A subquery reading a preserved side (o.v, field 1; i.v, field 3 for
// the RIGHT join) is computed over
// the candidate pairs: a preserved side's distinct rows (an aggregate
// grouped by all its columns) joined with the other side, filtered by
// the condition (its EXISTS a semi join of the pairs), and the preserved
// side outer joined to the pairs on its columns IS NOT DISTINCT FROM
// the distinct rows'; the join's output is still o's then i's columns.
func TestOuterJoinPairSubquery(t *testing.T) {
	for _, tc := range []struct {
		field  int // the preserved side's field the subquery reads
		jt     string
		typ    substraitpb.JoinRel_JoinType
		domain func(*substraitpb.JoinRel) *substraitpb.Rel // a side of the pairs' cross product
		emit   string
	}{
		// o, then the pairs (D: 2, i: 2): i at 4.
		{1, "JOIN_TYPE_LEFT", substraitpb.JoinRel_JOIN_TYPE_LEFT, func(p *substraitpb.JoinRel) *substraitpb.Rel { return p.GetLeft() }, "[0 1 4 5]"},
		// The pairs (o: 2, D: 2), then i: i at 4.
		{3, "JOIN_TYPE_RIGHT", substraitpb.JoinRel_JOIN_TYPE_RIGHT, func(p *substraitpb.JoinRel) *substraitpb.Rel { return p.GetRight() }, "[0 1 4 5]"},
		// (o, the pairs (Dl: 2, Dr: 2, mark)), then i: i at 7.
		{1, "JOIN_TYPE_OUTER", substraitpb.JoinRel_JOIN_TYPE_OUTER, func(p *substraitpb.JoinRel) *substraitpb.Rel { return p.GetLeft() }, "[0 1 7 8]"},
	} {
		t.Run(tc.jt, func(t *testing.T) {
			_, in, widths := decorrelated(t, ojPlan(tc.jt, dCall(1, dBool, dRef(0, 0), dRef(tc.field, 1))))
			j := in.GetJoin()
			if j == nil || j.GetType() != tc.typ {
				t.Fatalf("want a %s join, got %v", tc.jt, in)
			}
			if got := fmt.Sprint(j.GetCommon().GetEmit().GetOutputMapping()); got != tc.emit {
				t.Fatalf("join emit %s, want %s", got, tc.emit)
			}
			if widths[in] != 4 {
				t.Fatalf("join width %d, want 4", widths[in])
			}
			// Find the pairs: the cross product (an inner join on true)
			// whose side is the domain aggregate.
			var pairs *substraitpb.JoinRel
			walkRels(in, func(r *substraitpb.Rel) {
				if x := r.GetJoin(); x != nil && x.GetType() == substraitpb.JoinRel_JOIN_TYPE_INNER {
					pairs = x
				}
			})
			if pairs == nil {
				t.Fatalf("no inner join of the pairs in %v", in)
			}
			// (The EXISTS reading one side of the pairs may filter that
			// side: semipush.go.)
			var d *substraitpb.AggregateRel
			walkRels(tc.domain(pairs), func(r *substraitpb.Rel) {
				if a := r.GetAggregate(); a != nil && d == nil {
					d = a
				}
			})
			if d == nil || len(d.GetGroupingExpressions()) != 2 || len(d.GetMeasures()) != 0 {
				t.Fatalf("pairs side: want the distinct rows of the preserved side, got %v", tc.domain(pairs))
			}
			var semi bool
			walkRels(in, func(r *substraitpb.Rel) {
				semi = semi || r.GetJoin().GetType() == substraitpb.JoinRel_JOIN_TYPE_LEFT_SEMI
			})
			if !semi {
				t.Fatalf("the EXISTS is no semi join of the pairs: %v", in)
			}
		})
	}
}

// walkRels calls f on r and every relation below it (not inside
// expressions).
func walkRels(r *substraitpb.Rel, f func(*substraitpb.Rel)) {
	if r == nil {
		return
	}
	f(r)
	switch t := r.GetRelType().(type) {
	case *substraitpb.Rel_Join:
		walkRels(t.Join.GetLeft(), f)
		walkRels(t.Join.GetRight(), f)
	case *substraitpb.Rel_Filter:
		walkRels(t.Filter.GetInput(), f)
	case *substraitpb.Rel_Project:
		walkRels(t.Project.GetInput(), f)
	case *substraitpb.Rel_Aggregate:
		walkRels(t.Aggregate.GetInput(), f)
	case *substraitpb.Rel_Cross:
		walkRels(t.Cross.GetLeft(), f)
		walkRels(t.Cross.GetRight(), f)
	}
}

// A LEFT join's post-join filter holding a correlated EXISTS (reading
// the nullable side) is a filter over the join, with the join's emit:
// the EXISTS becomes a semi join of the whole join's output (the
// filter's one conjunct: the semi join takes its emit), and no
// join keeps a post-join filter. (Answers: plan's
// TestPostJoinFilterSubquery.)
func TestPostJoinFilterIsFilter(t *testing.T) {
	exists := `{"subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_EXISTS", "tuples": ` +
		dFilter(dRead("s", "k"), dCall(1, dBool, dRef(0, 0), dRef(2, 1))) + `}}}`
	js := dPlan(`{"join": {"common": {"emit": {"outputMapping": [0, 2]}}, "left": `+dRead("o", "k", "v")+`, "right": `+dRead("i", "k", "v")+
		`, "expression": `+dCall(1, dBool, dRef(0, 0), dRef(2, 0))+`, "postJoinFilter": `+exists+`, "type": "JOIN_TYPE_LEFT"}}`, "k", "k2")
	_, in, widths := decorrelated(t, js)
	if got := fmt.Sprint(in.GetJoin().GetCommon().GetEmit().GetOutputMapping()); got != "[0 2]" {
		t.Fatalf("want a join with the emit [0 2] on top, got %v", in)
	}
	var semi, left bool
	walkRels(in, func(r *substraitpb.Rel) {
		if j := r.GetJoin(); j != nil {
			if j.GetPostJoinFilter() != nil {
				t.Fatalf("a post-join filter is left: %v", j)
			}
			semi = semi || j.GetType() == substraitpb.JoinRel_JOIN_TYPE_LEFT_SEMI
			if j.GetType() == substraitpb.JoinRel_JOIN_TYPE_LEFT {
				left = widths[r] == 4
			}
		}
	})
	if !semi || !left {
		t.Fatalf("want a semi join over the LEFT join's 4 columns: %v", in)
	}
}
