package optimize

import (
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Uncorrelated scalar aggregates over one input, computed once. TPC-DS
// Q9 asks fifteen uncorrelated scalar subqueries, three over each of
// five filters of store_sales:
//
//	CASE WHEN (SELECT count(*) FROM store_sales WHERE ss_quantity BETWEEN 1 AND 20) > 74129
//	     THEN (SELECT avg(ss_ext_discount_amt) FROM store_sales WHERE ss_quantity BETWEEN 1 AND 20)
//	     ELSE (SELECT avg(ss_net_paid) FROM store_sales WHERE ss_quantity BETWEEN 1 AND 20) END
//
// Each becomes a condition-free LEFT SINGLE join of an ungrouped
// aggregate (scalar, decorrelate.go), and each aggregate scanned and
// filtered store_sales on its own: fifteen scans of 2.9M rows where five
// do. Here the aggregates of such joins whose inputs are the same
// relation (byte-equal Substrait) are given the same measures, the
// union of theirs, and the project above each picks its own measures
// from it:
//
//	Single                         Single
//	├─ Single                      ├─ Single
//	│  ├─ outer                    │  ├─ outer
//	│  └─ Project[0](Agg(count)(F)) │  └─ Project[0](Agg(count, avg)(F))
//	└─ Project[0](Agg(avg)(F))     └─ Project[1](Agg(count, avg)(F))
//
// The aggregates are then one relation byte for byte, which the physical
// planner compiles once and reads at each occurrence (plan/shared.go: a
// shared subplan, its one row buffered). DuckDB gets the same effect by
// caching the uncorrelated subqueries' common scans.
//
// The answer is the same: an ungrouped aggregate has one row whatever
// its measures; the join has no condition, so it pairs that row with
// every outer row as before; and each project reads the values of its
// own measures, computed from the same input rows as before. A measure
// two subqueries share (proto-equal) is computed once. Every measure is
// a function of its input rows (no volatile function: plan/shared.go), so
// computing one beside others changes nothing, and the joins already
// computed every subquery whichever the CASE picks.
//
// Only aggregates under at least one project are merged (the SQL front
// end writes the subquery's target list so): the project is where the
// measures are picked, and a bare aggregate's columns are the join's own.

// scalarAggregate is an ungrouped aggregate on the right of a
// condition-free LEFT SINGLE join, and the lowest project over it.
type scalarAggregate struct {
	rel *substraitpb.Rel // the aggregate's relation
	low *substraitpb.ProjectRel
}

// shareScalarAggregates merges the measures of the scalar aggregates
// under r whose inputs are equal (see above).
func (u *unnester) shareScalarAggregates(r *substraitpb.Rel) {
	var order []string
	groups := map[string][]scalarAggregate{}
	seen := map[*substraitpb.AggregateRel]bool{}
	eachJoin(r.ProtoReflect(), func(j *substraitpb.JoinRel) {
		s, ok := scalarAggregateOf(j)
		if !ok || seen[s.rel.GetAggregate()] {
			return
		}
		seen[s.rel.GetAggregate()] = true
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(s.rel.GetAggregate().GetInput())
		if err != nil {
			return
		}
		k := string(b)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], s)
	})
	for _, k := range order {
		if g := groups[k]; len(g) > 1 {
			u.mergeMeasures(g)
		}
	}
}

// mergeMeasures gives every aggregate of g the union of their measures
// (each distinct one once) and repoints each lowest project at its own.
func (u *unnester) mergeMeasures(g []scalarAggregate) {
	var union []*substraitpb.AggregateRel_Measure
	at := make([][]int, len(g)) // per member, per own measure: its place in union
	for i, s := range g {
		for _, m := range s.rel.GetAggregate().GetMeasures() {
			k := len(union)
			for j, x := range union {
				if proto.Equal(x, m) {
					k = j
					break
				}
			}
			if k == len(union) {
				union = append(union, m)
			}
			at[i] = append(at[i], k)
		}
	}
	n := len(union)
	for i, s := range g {
		a := s.rel.GetAggregate()
		own := len(a.GetMeasures())
		a.Measures = make([]*substraitpb.AggregateRel_Measure, n)
		for j, m := range union {
			a.Measures[j] = proto.Clone(m).(*substraitpb.AggregateRel_Measure)
		}
		u.widths[s.rel] = n
		// The project's input is now the n measures: its references
		// to the aggregate's columns, and its output's (its emit),
		// move to their places in the union.
		for j, e := range s.low.GetExpressions() {
			s.low.Expressions[j], _ = remapRefs(e, func(root bool, steps uint32, field int) (*substraitpb.Expression, error) {
				if !root {
					return outerFieldExpr(steps, field), nil
				}
				return fieldExpr(at[i][field]), nil
			})
		}
		to := func(c int32) int32 {
			if int(c) < own {
				return int32(at[i][c])
			}
			return c - int32(own) + int32(n)
		}
		if s.low.Common == nil {
			s.low.Common = &substraitpb.RelCommon{}
		}
		if e := s.low.Common.GetEmit(); e != nil {
			for j, c := range e.GetOutputMapping() {
				e.OutputMapping[j] = to(c)
			}
			continue
		}
		out := make([]int32, own+len(s.low.GetExpressions()))
		for c := range out {
			out[c] = to(int32(c))
		}
		s.low.Common.EmitKind = &substraitpb.RelCommon_Emit_{Emit: &substraitpb.RelCommon_Emit{OutputMapping: out}}
	}
}

// scalarAggregateOf is the scalar aggregate of j when j is a LEFT SINGLE
// join without a condition (or on true) whose right input is projects
// over an ungrouped aggregate without an emit, whose field references are
// all in range.
func scalarAggregateOf(j *substraitpb.JoinRel) (scalarAggregate, bool) {
	if j.GetType() != substraitpb.JoinRel_JOIN_TYPE_LEFT_SINGLE || j.GetPostJoinFilter() != nil {
		return scalarAggregate{}, false
	}
	if c := j.GetExpression(); c != nil && !c.GetLiteral().GetBoolean() {
		return scalarAggregate{}, false
	}
	rel, projects := aggregateUnder(j.GetRight())
	if rel == nil || len(projects) == 0 {
		return scalarAggregate{}, false
	}
	a := rel.GetAggregate()
	if isGrouped(a) || len(a.GetMeasures()) == 0 || a.GetCommon().GetEmit() != nil || a.GetAdvancedExtension() != nil {
		return scalarAggregate{}, false
	}
	low := projects[len(projects)-1]
	own := len(a.GetMeasures())
	ok := true
	for _, e := range low.GetExpressions() {
		walkExprs(e.ProtoReflect(), func(x *substraitpb.Expression) bool {
			if s := x.GetSelection(); s != nil {
				f := s.GetDirectReference().GetStructField()
				if s.GetOuterReference() != nil || f == nil || f.GetChild() != nil || int(f.GetField()) >= own {
					ok = false
				}
			}
			return ok
		})
	}
	if e := low.GetCommon().GetEmit(); e != nil {
		for _, c := range e.GetOutputMapping() {
			ok = ok && c >= 0 && int(c) < own+len(low.GetExpressions())
		}
	}
	return scalarAggregate{rel: rel, low: low}, ok
}

// literalMessageName is a literal's message name: eachJoin skips a
// list literal's elements.
var literalMessageName = (&substraitpb.Expression_Literal{}).ProtoReflect().Descriptor().FullName()

// eachJoin calls f with every join relation in m, its subquery and
// child relations included, outermost first.
func eachJoin(m protoreflect.Message, f func(*substraitpb.JoinRel)) {
	if j, ok := m.Interface().(*substraitpb.JoinRel); ok {
		f(j)
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Kind() != protoreflect.MessageKind || fd.IsMap():
		case fd.IsList():
			if fd.Message().FullName() == literalMessageName {
				return true // a long IN list's literals hold no relation
			}
			for i := range v.List().Len() {
				eachJoin(v.List().Get(i).Message(), f)
			}
		default:
			eachJoin(v.Message(), f)
		}
		return true
	})
}
