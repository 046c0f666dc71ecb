package ingest

import (
	"strings"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"
)

// An AggregateRel with several groupings (GROUPING SETS; Isthmus and
// DataFusion write ROLLUP and CUBE as their sets) is rewritten into the
// one-grouping aggregate the SQL front end lowers grouping sets to
// (sql/groupingsets.go), as PostgreSQL runs them in one Agg node:
//
//	Aggregate(groups: nulled keys..., set id; measures)
//	  Project(+ each key, NULL in the sets without it:
//	          IF set id IN (sets without it) THEN NULL ELSE key)
//	    [Filter(IF marker THEN true ELSE set id IN (empty sets))]
//	      Cross(input, VALUES set ids)  or, with an empty set,
//	      Join RIGHT ON true(Project(input + marker true), VALUES set ids)
//
// The input is read once; the aggregate spills and runs in parallel as any
// other. An empty set's group exists over no rows: the RIGHT join gives
// its set id once with a NULL marker when the input is empty, and every
// measure's filter is ANDed with the marker, so count is 0 and the others
// NULL. The expressions are field references, literals, IfThen and
// SingularOrList only, so the plan needs no function it did not declare.
//
// The aggregate's output is the spec's: each distinct grouping expression
// once (grouping_expressions order; for the older form, with expressions
// inside each grouping, by first appearance), the measures, then the set's
// index (i32) in groupings. DataFusion's older plans leave the index out
// (their root names count keys and measures only): when the root names
// match that width and not the spec's, the index is left out
// (groupingSetsAsAggregates' withID).

// groupingSetsAsAggregates rewrites every several-grouping AggregateRel
// of p (a copy; p is not modified) and returns p itself when there is
// none. A rewrite needs the key expressions' types (for their NULLs): an
// aggregate whose input types cannot be derived is left as it is, and
// the validator refuses it by name.
func groupingSetsAsAggregates(p *substraitpb.Plan) *substraitpb.Plan {
	if !holdsGroupingSets(p) {
		return p
	}
	with := rewriteGroupingSets(p, true)
	root, err := protoRoot(with)
	if err != nil {
		return with
	}
	if n := len(root.GetNames()); len(widthOf(with, root)) != n {
		without := rewriteGroupingSets(p, false)
		if r, err := protoRoot(without); err == nil && len(widthOf(without, r)) == n {
			return without
		}
	}
	return with
}

// widthOf is the root input's output types as the typer derives them (nil
// when it cannot).
func widthOf(p *substraitpb.Plan, root *substraitpb.RelRoot) []*substraitpb.Type {
	return (&typer{names: funcNames(p)}).rel(root.GetInput())
}

func funcNames(p *substraitpb.Plan) map[uint32]string {
	names := map[uint32]string{}
	for _, d := range p.GetExtensions() {
		if f := d.GetExtensionFunction(); f != nil {
			name, _, _ := strings.Cut(f.GetName(), ":")
			names[f.GetFunctionAnchor()] = name
		}
	}
	return names
}

func holdsGroupingSets(p *substraitpb.Plan) bool {
	found := false
	eachRel(p, func(r *substraitpb.Rel) {
		found = found || len(r.GetAggregate().GetGroupings()) > 1
	})
	return found
}

func rewriteGroupingSets(p *substraitpb.Plan, withID bool) *substraitpb.Plan {
	p = proto.Clone(p).(*substraitpb.Plan)
	names := funcNames(p)
	// Bottom-up: a rewritten aggregate's parent is typed over its new
	// output.
	var rels []*substraitpb.Rel
	eachRel(p, func(r *substraitpb.Rel) {
		if a := r.GetAggregate(); a != nil && len(a.GetGroupings()) > 1 {
			rels = append(rels, r)
		}
	})
	for i := len(rels) - 1; i >= 0; i-- {
		if nr := expandGroupingSets(rels[i].GetAggregate(), names, withID); nr != nil {
			rels[i].RelType = nr.RelType
		}
	}
	return p
}

// expandGroupingSets is a's rewrite, nil when its input's types are not
// known.
func expandGroupingSets(a *substraitpb.AggregateRel, names map[uint32]string, withID bool) *substraitpb.Rel {
	inTypes := (&typer{names: names}).rel(a.GetInput())
	if inTypes == nil {
		return nil
	}
	w := len(inTypes)
	// The distinct keys and each set as indices into them.
	var keys []*substraitpb.Expression
	index := func(e *substraitpb.Expression) int {
		for i, k := range keys {
			if proto.Equal(k, e) {
				return i
			}
		}
		keys = append(keys, e)
		return len(keys) - 1
	}
	sets := make([][]int, len(a.GetGroupings()))
	if ges := a.GetGroupingExpressions(); len(ges) > 0 {
		for _, e := range ges {
			index(e)
		}
		for i, g := range a.GetGroupings() {
			for _, ref := range g.GetExpressionReferences() {
				if int(ref) >= len(ges) {
					return nil // the validator names it
				}
				sets[i] = append(sets[i], index(ges[ref]))
			}
		}
	} else {
		for i, g := range a.GetGroupings() {
			for _, e := range g.GetGroupingExpressions() { //nolint:staticcheck // the older form DataFusion writes
				sets[i] = append(sets[i], index(e))
			}
		}
	}
	keyTypes := make([]*substraitpb.Type, len(keys))
	for i, k := range keys {
		if keyTypes[i] = (&typer{names: names}).expr(k, inTypes); keyTypes[i] == nil {
			return nil
		}
	}
	var empties []int
	for i, s := range sets {
		if len(s) == 0 {
			empties = append(empties, i)
		}
	}
	// The set ids.
	rows := make([]*substraitpb.Expression_Nested_Struct, len(sets))
	for i := range sets {
		rows[i] = &substraitpb.Expression_Nested_Struct{Fields: []*substraitpb.Expression{i32Literal(i)}}
	}
	i32 := &substraitpb.Type{Kind: &substraitpb.Type_I32_{I32: &substraitpb.Type_I32{Nullability: substraitpb.Type_NULLABILITY_REQUIRED}}}
	ids := &substraitpb.Rel{RelType: &substraitpb.Rel_Read{Read: &substraitpb.ReadRel{
		Common: direct(),
		BaseSchema: &substraitpb.NamedStruct{Names: []string{"grouping_set"}, Struct: &substraitpb.Type_Struct{
			Types: []*substraitpb.Type{i32}, Nullability: substraitpb.Type_NULLABILITY_REQUIRED}},
		ReadType: &substraitpb.ReadRel_VirtualTable_{VirtualTable: &substraitpb.ReadRel_VirtualTable{Expressions: rows}},
	}}}
	marker := -1
	var joined *substraitpb.Rel
	if len(empties) > 0 {
		marker = w
		left := &substraitpb.Rel{RelType: &substraitpb.Rel_Project{Project: &substraitpb.ProjectRel{
			Common: emitAll(w + 1), Input: a.GetInput(), Expressions: []*substraitpb.Expression{boolLiteral(true)}}}}
		joined = &substraitpb.Rel{RelType: &substraitpb.Rel_Join{Join: &substraitpb.JoinRel{
			Common: direct(), Left: left, Right: ids, Expression: boolLiteral(true), Type: substraitpb.JoinRel_JOIN_TYPE_RIGHT}}}
		gid := w + 1
		keep := &substraitpb.Expression{RexType: &substraitpb.Expression_IfThen_{IfThen: &substraitpb.Expression_IfThen{
			Ifs:  []*substraitpb.Expression_IfThen_IfClause{{If: field(marker), Then: boolLiteral(true)}},
			Else: inList(field(gid), empties),
		}}}
		joined = &substraitpb.Rel{RelType: &substraitpb.Rel_Filter{Filter: &substraitpb.FilterRel{Common: direct(), Input: joined, Condition: keep}}}
	} else {
		joined = &substraitpb.Rel{RelType: &substraitpb.Rel_Cross{Cross: &substraitpb.CrossRel{Common: direct(), Left: a.GetInput(), Right: ids}}}
	}
	jw := w + 1
	if marker >= 0 {
		jw++
	}
	gid := jw - 1
	nulled := make([]*substraitpb.Expression, len(keys))
	for k, key := range keys {
		var without []int
		for i, s := range sets {
			if !containsInt(s, k) {
				without = append(without, i)
			}
		}
		if len(without) == 0 {
			nulled[k] = key
			continue
		}
		t := nullableType(keyTypes[k])
		nulled[k] = &substraitpb.Expression{RexType: &substraitpb.Expression_IfThen_{IfThen: &substraitpb.Expression_IfThen{
			Ifs:  []*substraitpb.Expression_IfThen_IfClause{{If: inList(field(gid), without), Then: nullLiteral(t)}},
			Else: castNullable(key, keyTypes[k], t),
		}}}
	}
	expanded := &substraitpb.Rel{RelType: &substraitpb.Rel_Project{Project: &substraitpb.ProjectRel{Common: emitAll(jw + len(keys)), Input: joined, Expressions: nulled}}}
	groupBy := make([]*substraitpb.Expression, 0, len(keys)+1)
	for k := range keys {
		groupBy = append(groupBy, field(jw+k))
	}
	groupBy = append(groupBy, field(gid))
	measures := make([]*substraitpb.AggregateRel_Measure, len(a.GetMeasures()))
	for i, m := range a.GetMeasures() {
		nm := proto.Clone(m).(*substraitpb.AggregateRel_Measure)
		if marker >= 0 {
			// Not the rows an empty input gives the empty sets.
			if f := nm.GetFilter(); f == nil {
				nm.Filter = field(marker)
			} else {
				nm.Filter = &substraitpb.Expression{RexType: &substraitpb.Expression_IfThen_{IfThen: &substraitpb.Expression_IfThen{
					Ifs:  []*substraitpb.Expression_IfThen_IfClause{{If: field(marker), Then: f}},
					Else: boolLiteral(false),
				}}}
			}
		}
		measures[i] = nm
	}
	// The spec's output positions in the new aggregate's (keys, set id,
	// measures).
	var spec []int32
	for k := range keys {
		spec = append(spec, int32(k))
	}
	for i := range measures {
		spec = append(spec, int32(len(keys)+1+i))
	}
	if withID {
		spec = append(spec, int32(len(keys)))
	}
	emit := spec
	if e := a.GetCommon().GetEmit(); e != nil {
		emit = nil
		for _, o := range e.GetOutputMapping() {
			if int(o) < 0 || int(o) >= len(spec) {
				return nil // the validator names it
			}
			emit = append(emit, spec[o])
		}
	}
	common := proto.Clone(a.GetCommon()).(*substraitpb.RelCommon)
	if common == nil {
		common = &substraitpb.RelCommon{}
	}
	common.EmitKind = &substraitpb.RelCommon_Emit_{Emit: &substraitpb.RelCommon_Emit{OutputMapping: emit}}
	return &substraitpb.Rel{RelType: &substraitpb.Rel_Aggregate{Aggregate: &substraitpb.AggregateRel{
		Common: common, Input: expanded,
		Groupings:         []*substraitpb.AggregateRel_Grouping{{GroupingExpressions: groupBy}},
		Measures:          measures,
		AdvancedExtension: a.GetAdvancedExtension(),
	}}}
}

// direct is a RelCommon without an emit (substrait-go reads a relation
// without one as a nil dereference).
func direct() *substraitpb.RelCommon {
	return &substraitpb.RelCommon{EmitKind: &substraitpb.RelCommon_Direct_{Direct: &substraitpb.RelCommon_Direct{}}}
}

// emitAll is an emit of every one of a project's n output columns: the
// projects here append to their input, and say so, for a plan whose
// emit-less projects replace theirs (replacingProjects).
func emitAll(n int) *substraitpb.RelCommon {
	m := make([]int32, n)
	for i := range m {
		m[i] = int32(i)
	}
	return &substraitpb.RelCommon{EmitKind: &substraitpb.RelCommon_Emit_{Emit: &substraitpb.RelCommon_Emit{OutputMapping: m}}}
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func field(i int) *substraitpb.Expression {
	return &substraitpb.Expression{RexType: &substraitpb.Expression_Selection{Selection: &substraitpb.Expression_FieldReference{
		ReferenceType: &substraitpb.Expression_FieldReference_DirectReference{DirectReference: &substraitpb.Expression_ReferenceSegment{
			ReferenceType: &substraitpb.Expression_ReferenceSegment_StructField_{StructField: &substraitpb.Expression_ReferenceSegment_StructField{Field: int32(i)}},
		}},
		RootType: &substraitpb.Expression_FieldReference_RootReference_{RootReference: &substraitpb.Expression_FieldReference_RootReference{}},
	}}}
}

func i32Literal(i int) *substraitpb.Expression {
	return &substraitpb.Expression{RexType: &substraitpb.Expression_Literal_{Literal: &substraitpb.Expression_Literal{
		LiteralType: &substraitpb.Expression_Literal_I32{I32: int32(i)}}}}
}

func boolLiteral(b bool) *substraitpb.Expression {
	return &substraitpb.Expression{RexType: &substraitpb.Expression_Literal_{Literal: &substraitpb.Expression_Literal{
		LiteralType: &substraitpb.Expression_Literal_Boolean{Boolean: b}}}}
}

func nullLiteral(t *substraitpb.Type) *substraitpb.Expression {
	return &substraitpb.Expression{RexType: &substraitpb.Expression_Literal_{Literal: &substraitpb.Expression_Literal{
		Nullable: true, LiteralType: &substraitpb.Expression_Literal_Null{Null: t}}}}
}

// inList is x IN (ids...), the ids i32 literals.
func inList(x *substraitpb.Expression, ids []int) *substraitpb.Expression {
	opts := make([]*substraitpb.Expression, len(ids))
	for i, id := range ids {
		opts[i] = i32Literal(id)
	}
	return &substraitpb.Expression{RexType: &substraitpb.Expression_SingularOrList_{SingularOrList: &substraitpb.Expression_SingularOrList{
		Value: x, Options: opts}}}
}

// castNullable is e as the nullable type t (e itself when its type, from,
// is nullable already): IfThen's arms share one type.
func castNullable(e *substraitpb.Expression, from, t *substraitpb.Type) *substraitpb.Expression {
	if proto.Equal(from, t) {
		return e
	}
	return &substraitpb.Expression{RexType: &substraitpb.Expression_Cast_{Cast: &substraitpb.Expression_Cast{
		Type: t, Input: e, FailureBehavior: substraitpb.Expression_Cast_FAILURE_BEHAVIOR_THROW_EXCEPTION}}}
}

func nullableType(t *substraitpb.Type) *substraitpb.Type {
	return nullable([]*substraitpb.Type{t})[0]
}
