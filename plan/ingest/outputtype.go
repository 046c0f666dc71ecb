package ingest

import (
	"strings"

	"github.com/stablerow/stablerow/internal/substraitfn"
	"github.com/substrait-io/substrait-go/v8/types"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// outputTypes gives each scalar and aggregate function call of p that
// has no output_type the type its declared signature returns for its
// arguments' types (substraitfn.ScalarOutput, AggregateOutput: the
// signatures the planner types its own calls with), where the function
// is one whose result those types determine. The spec requires
// output_type; DataFusion's older plans (the consumer test suite's
// relation snapshots) leave it out. This is PostgreSQL's way of typing a
// call (ParseFuncOrColumn resolves the function from its argument types,
// and the result type comes with the resolved function), done over the
// proto: each relation's output types are derived bottom-up (relTypes),
// and each call's arguments typed before the call.
//
// A call whose arguments' types cannot be derived here (an outer
// reference, a relation kind relTypes does not know) or that no
// declared implementation takes is left without its output_type, and
// the validator refuses it as ErrInvalidPlan naming the function and the
// relation's path ("function \"f\" without an output_type").
//
// It runs on the normalized copy, after the read's base_schema types and
// emit mappings are in place (fixup). A project is read as appending its
// expressions to its input (the spec): a plan that means replacing
// projects (DuckDB's, replacingProjects) writes its output types.
func outputTypes(p *substraitpb.Plan) {
	// substrait-go's type conversions are not trusted with a malformed
	// type (the validator checks types after normalization): a panic
	// stops the typing, and the calls left untyped are refused.
	defer func() { _ = recover() }()
	names := map[uint32]string{}
	for _, d := range p.GetExtensions() {
		if f := d.GetExtensionFunction(); f != nil {
			name, _, _ := strings.Cut(f.GetName(), ":")
			names[f.GetFunctionAnchor()] = name
		}
	}
	// The reading of emit-less projects the validator will choose
	// (replacingProjects): the spec's, unless the root names number the
	// root's columns only with each replacing its input. Tried without
	// typing anything; an unknown width keeps the spec's.
	replace := false
	for _, r := range p.GetRelations() {
		root := r.GetRoot()
		if root == nil {
			continue
		}
		n := len(root.GetNames())
		appending := (&typer{names: names}).rel(root.GetInput())
		if appending != nil && len(appending) != n && len((&typer{names: names, replace: true}).rel(root.GetInput())) == n {
			replace = true
		}
	}
	t := &typer{names: names, replace: replace, set: true}
	for _, r := range p.GetRelations() {
		if root := r.GetRoot(); root != nil {
			t.rel(root.GetInput())
		} else {
			t.rel(r.GetRel())
		}
	}
}

// typer derives types over the proto; names maps function anchors to
// their (simple) names. With replace an emit-less project outputs its
// expressions alone (DuckDB's and older DataFusion's reading); with set
// the calls' inferred output types are written into the plan, else only
// returned.
type typer struct {
	names        map[uint32]string
	replace, set bool
}

// rel returns r's output types after its emit mapping, typing the calls
// in it on the way; nil when they cannot be derived.
func (t *typer) rel(r *substraitpb.Rel) []*substraitpb.Type {
	var in, out []*substraitpb.Type
	var common *substraitpb.RelCommon
	switch k := r.GetRelType().(type) {
	case *substraitpb.Rel_Read:
		common = k.Read.GetCommon()
		out = k.Read.GetBaseSchema().GetStruct().GetTypes()
		t.expr(k.Read.GetFilter(), out)
		if out == nil {
			return nil
		}
	case *substraitpb.Rel_Filter:
		common, in = k.Filter.GetCommon(), t.rel(k.Filter.GetInput())
		t.expr(k.Filter.GetCondition(), in)
		out = in
	case *substraitpb.Rel_Fetch:
		common, out = k.Fetch.GetCommon(), t.rel(k.Fetch.GetInput())
	case *substraitpb.Rel_Sort:
		common, in = k.Sort.GetCommon(), t.rel(k.Sort.GetInput())
		for _, s := range k.Sort.GetSorts() {
			t.expr(s.GetExpr(), in)
		}
		out = in
	case *substraitpb.Rel_Project:
		common, in = k.Project.GetCommon(), t.rel(k.Project.GetInput())
		if _, emit := common.GetEmitKind().(*substraitpb.RelCommon_Emit_); emit || !t.replace {
			out = append([]*substraitpb.Type(nil), in...)
		}
		for _, e := range k.Project.GetExpressions() {
			out = append(out, t.expr(e, in))
		}
		if in == nil {
			out = nil
		}
	case *substraitpb.Rel_Aggregate:
		common, out = k.Aggregate.GetCommon(), t.aggregate(k.Aggregate)
	case *substraitpb.Rel_Join:
		common, out = k.Join.GetCommon(), t.join(k.Join)
	case *substraitpb.Rel_Cross:
		common = k.Cross.GetCommon()
		l, r := t.rel(k.Cross.GetLeft()), t.rel(k.Cross.GetRight())
		if l != nil && r != nil {
			out = append(append([]*substraitpb.Type(nil), l...), r...)
		}
	case *substraitpb.Rel_Set:
		common = k.Set.GetCommon()
		for i, s := range k.Set.GetInputs() {
			if ts := t.rel(s); i == 0 {
				out = ts
			}
		}
	default:
		return nil
	}
	if out == nil {
		return nil
	}
	if e, ok := common.GetEmitKind().(*substraitpb.RelCommon_Emit_); ok {
		m := e.Emit.GetOutputMapping()
		emitted := make([]*substraitpb.Type, len(m))
		for i, f := range m {
			if f < 0 || int(f) >= len(out) {
				return nil // out of range: the validator names it
			}
			emitted[i] = out[f]
		}
		out = emitted
	}
	for _, ty := range out {
		if ty == nil || ty.GetKind() == nil {
			return nil
		}
	}
	return out
}

// aggregate types an aggregate of one grouping set: its grouping
// expressions, then its measures (several sets add a column and are
// refused by the planner: nil).
func (t *typer) aggregate(a *substraitpb.AggregateRel) []*substraitpb.Type {
	in := t.rel(a.GetInput())
	var out []*substraitpb.Type
	for _, e := range a.GetGroupingExpressions() {
		out = append(out, t.expr(e, in))
	}
	for _, g := range a.GetGroupings() {
		for _, e := range g.GetGroupingExpressions() { //nolint:staticcheck // the older form DataFusion writes
			out = append(out, t.expr(e, in))
		}
	}
	sets := len(a.GetGroupings())
	if len(a.GetGroupingExpressions()) > 0 && sets == 1 {
		// The newer form: the set references the listed expressions.
		out = out[:len(a.GetGroupingExpressions())]
	}
	for _, m := range a.GetMeasures() {
		t.expr(m.GetFilter(), in)
		out = append(out, t.aggCall(m.GetMeasure(), in))
	}
	if in == nil || sets > 1 {
		return nil
	}
	return out
}

// join types a join's output: both sides (the outer side's columns
// nullable), one side for a semi or anti join, one side and a boolean
// for a mark join.
func (t *typer) join(j *substraitpb.JoinRel) []*substraitpb.Type {
	l, r := t.rel(j.GetLeft()), t.rel(j.GetRight())
	var both []*substraitpb.Type
	if l != nil && r != nil {
		both = append(append([]*substraitpb.Type(nil), l...), r...)
	}
	t.expr(j.GetExpression(), both)
	t.expr(j.GetPostJoinFilter(), both)
	if l == nil || r == nil {
		return nil
	}
	mark := &substraitpb.Type{Kind: &substraitpb.Type_Bool{Bool: &substraitpb.Type_Boolean{Nullability: substraitpb.Type_NULLABILITY_NULLABLE}}}
	switch j.GetType() {
	case substraitpb.JoinRel_JOIN_TYPE_INNER:
		return both
	case substraitpb.JoinRel_JOIN_TYPE_LEFT, substraitpb.JoinRel_JOIN_TYPE_LEFT_SINGLE:
		return append(append([]*substraitpb.Type(nil), l...), nullable(r)...)
	case substraitpb.JoinRel_JOIN_TYPE_RIGHT, substraitpb.JoinRel_JOIN_TYPE_RIGHT_SINGLE:
		return append(nullable(l), r...)
	case substraitpb.JoinRel_JOIN_TYPE_OUTER:
		return append(nullable(l), nullable(r)...)
	case substraitpb.JoinRel_JOIN_TYPE_LEFT_SEMI, substraitpb.JoinRel_JOIN_TYPE_LEFT_ANTI:
		return l
	case substraitpb.JoinRel_JOIN_TYPE_RIGHT_SEMI, substraitpb.JoinRel_JOIN_TYPE_RIGHT_ANTI:
		return r
	case substraitpb.JoinRel_JOIN_TYPE_LEFT_MARK:
		return append(append([]*substraitpb.Type(nil), l...), mark)
	case substraitpb.JoinRel_JOIN_TYPE_RIGHT_MARK:
		return append(append([]*substraitpb.Type(nil), r...), mark)
	}
	return nil
}

// nullable is ts with every type nullable (an outer join's padded side).
func nullable(ts []*substraitpb.Type) []*substraitpb.Type {
	out := make([]*substraitpb.Type, len(ts))
	for i, ty := range ts {
		out[i] = types.TypeToProto(types.TypeFromProto(ty).WithNullability(types.NullabilityNullable))
	}
	return out
}

// expr returns e's type over an input of types in (nil: unknown), typing
// the calls in e; nil when it cannot be derived.
func (t *typer) expr(e *substraitpb.Expression, in []*substraitpb.Type) *substraitpb.Type {
	switch k := e.GetRexType().(type) {
	case *substraitpb.Expression_Selection:
		f := k.Selection
		d := f.GetDirectReference().GetStructField()
		if f.GetRootReference() == nil || d == nil || d.GetChild() != nil || d.GetField() < 0 || int(d.GetField()) >= len(in) {
			return nil
		}
		return in[d.GetField()]
	case *substraitpb.Expression_Literal_:
		return literalType(k.Literal)
	case *substraitpb.Expression_ScalarFunction_:
		f := k.ScalarFunction
		args := t.args(f.GetArguments(), in)
		if f.GetOutputType() == nil && args != nil {
			if out, ok := substraitfn.ScalarOutput(t.names[f.GetFunctionReference()], args); ok {
				return t.store(&f.OutputType, out)
			}
		}
		return f.GetOutputType()
	case *substraitpb.Expression_Cast_:
		t.expr(k.Cast.GetInput(), in)
		return k.Cast.GetType()
	case *substraitpb.Expression_IfThen_:
		var out *substraitpb.Type
		for _, c := range k.IfThen.GetIfs() {
			t.expr(c.GetIf(), in)
			if ty := t.expr(c.GetThen(), in); out == nil {
				out = ty
			}
		}
		t.expr(k.IfThen.GetElse(), in)
		return out
	case *substraitpb.Expression_SingularOrList_:
		t.expr(k.SingularOrList.GetValue(), in)
		for _, o := range k.SingularOrList.GetOptions() {
			t.expr(o, in)
		}
		return boolType()
	case *substraitpb.Expression_WindowFunction_:
		t.args(k.WindowFunction.GetArguments(), in)
		return k.WindowFunction.GetOutputType()
	case *substraitpb.Expression_Subquery_:
		return t.subquery(k.Subquery)
	}
	return nil
}

// subquery types the calls in a subquery's relations (an outer reference
// in them is unknown here) and returns a scalar subquery's column type
// or a predicate's boolean.
func (t *typer) subquery(s *substraitpb.Expression_Subquery) *substraitpb.Type {
	switch k := s.GetSubqueryType().(type) {
	case *substraitpb.Expression_Subquery_Scalar_:
		if ts := t.rel(k.Scalar.GetInput()); len(ts) == 1 {
			return types.TypeToProto(types.TypeFromProto(ts[0]).WithNullability(types.NullabilityNullable))
		}
		return nil
	case *substraitpb.Expression_Subquery_InPredicate_:
		t.rel(k.InPredicate.GetHaystack())
	case *substraitpb.Expression_Subquery_SetPredicate_:
		t.rel(k.SetPredicate.GetTuples())
	case *substraitpb.Expression_Subquery_SetComparison_:
		t.rel(k.SetComparison.GetRight())
	default:
		return nil
	}
	return boolType()
}

// aggCall types an aggregate call's arguments and, without its
// output_type, the call.
func (t *typer) aggCall(f *substraitpb.AggregateFunction, in []*substraitpb.Type) *substraitpb.Type {
	args := t.args(f.GetArguments(), in)
	if f.GetOutputType() == nil && args != nil {
		if out, err := substraitfn.AggregateOutput(t.names[f.GetFunctionReference()], args); err == nil {
			return t.store(&f.OutputType, out)
		}
	}
	return f.GetOutputType()
}

// args types a call's value arguments (nil when one cannot be typed; a
// call with an enum or type argument is not typed here).
func (t *typer) args(as []*substraitpb.FunctionArgument, in []*substraitpb.Type) []types.Type {
	out := make([]types.Type, 0, len(as))
	known := true
	for _, a := range as {
		v := a.GetValue()
		if v == nil {
			known = false
			continue
		}
		ty := t.expr(v, in)
		if ty == nil || ty.GetKind() == nil {
			known = false
			continue
		}
		out = append(out, types.TypeFromProto(ty))
	}
	if !known {
		return nil
	}
	return out
}

// store returns out as a proto type, written to *at when t sets types.
func (t *typer) store(at **substraitpb.Type, out types.Type) *substraitpb.Type {
	pt := types.TypeToProto(out)
	if t.set {
		*at = pt
	}
	return pt
}

func boolType() *substraitpb.Type {
	return &substraitpb.Type{Kind: &substraitpb.Type_Bool{Bool: &substraitpb.Type_Boolean{Nullability: substraitpb.Type_NULLABILITY_NULLABLE}}}
}

// literalType is a literal's type, for the literal kinds a call's
// argument is typed from (nil for the others).
func literalType(l *substraitpb.Expression_Literal) *substraitpb.Type {
	n := substraitpb.Type_NULLABILITY_REQUIRED
	if l.GetNullable() {
		n = substraitpb.Type_NULLABILITY_NULLABLE
	}
	var k substraitpb.Type
	switch v := l.GetLiteralType().(type) {
	case *substraitpb.Expression_Literal_Null:
		return v.Null
	case *substraitpb.Expression_Literal_Boolean:
		k.Kind = &substraitpb.Type_Bool{Bool: &substraitpb.Type_Boolean{Nullability: n}}
	case *substraitpb.Expression_Literal_I8:
		k.Kind = &substraitpb.Type_I8_{I8: &substraitpb.Type_I8{Nullability: n}}
	case *substraitpb.Expression_Literal_I16:
		k.Kind = &substraitpb.Type_I16_{I16: &substraitpb.Type_I16{Nullability: n}}
	case *substraitpb.Expression_Literal_I32:
		k.Kind = &substraitpb.Type_I32_{I32: &substraitpb.Type_I32{Nullability: n}}
	case *substraitpb.Expression_Literal_I64:
		k.Kind = &substraitpb.Type_I64_{I64: &substraitpb.Type_I64{Nullability: n}}
	case *substraitpb.Expression_Literal_Fp32:
		k.Kind = &substraitpb.Type_Fp32{Fp32: &substraitpb.Type_FP32{Nullability: n}}
	case *substraitpb.Expression_Literal_Fp64:
		k.Kind = &substraitpb.Type_Fp64{Fp64: &substraitpb.Type_FP64{Nullability: n}}
	case *substraitpb.Expression_Literal_String_:
		k.Kind = &substraitpb.Type_String_{String_: &substraitpb.Type_String{Nullability: n}}
	case *substraitpb.Expression_Literal_VarChar_:
		k.Kind = &substraitpb.Type_Varchar{Varchar: &substraitpb.Type_VarChar{Length: int32(v.VarChar.GetLength()), Nullability: n}}
	case *substraitpb.Expression_Literal_FixedChar:
		k.Kind = &substraitpb.Type_FixedChar_{FixedChar: &substraitpb.Type_FixedChar{Length: int32(len(v.FixedChar)), Nullability: n}}
	case *substraitpb.Expression_Literal_Date:
		k.Kind = &substraitpb.Type_Date_{Date: &substraitpb.Type_Date{Nullability: n}}
	case *substraitpb.Expression_Literal_Decimal_:
		k.Kind = &substraitpb.Type_Decimal_{Decimal: &substraitpb.Type_Decimal{Precision: v.Decimal.GetPrecision(), Scale: v.Decimal.GetScale(), Nullability: n}}
	default:
		return nil
	}
	return &k
}
