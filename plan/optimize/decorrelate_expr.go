package optimize

import (
	"fmt"
	"strings"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	extpb "github.com/substrait-io/substrait-protobuf/go/substraitpb/extensions"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Proto expression helpers for Decorrelate: building the join conditions it
// writes (with function declarations added to the plan as needed), and
// moving field references between the spaces of a decorrelated join.

var (
	exprName        = (&substraitpb.Expression{}).ProtoReflect().Descriptor().FullName()
	relMessageName  = (&substraitpb.Rel{}).ProtoReflect().Descriptor().FullName()
	nullableBoolean = &substraitpb.Type{Kind: &substraitpb.Type_Bool{Bool: &substraitpb.Type_Boolean{Nullability: substraitpb.Type_NULLABILITY_NULLABLE}}}
	requiredBoolean = &substraitpb.Type{Kind: &substraitpb.Type_Bool{Bool: &substraitpb.Type_Boolean{Nullability: substraitpb.Type_NULLABILITY_REQUIRED}}}
)

// fieldExpr is a direct reference to field i of the input.
func fieldExpr(i int) *substraitpb.Expression {
	return &substraitpb.Expression{RexType: &substraitpb.Expression_Selection{Selection: &substraitpb.Expression_FieldReference{
		ReferenceType: &substraitpb.Expression_FieldReference_DirectReference{DirectReference: &substraitpb.Expression_ReferenceSegment{
			ReferenceType: &substraitpb.Expression_ReferenceSegment_StructField_{StructField: &substraitpb.Expression_ReferenceSegment_StructField{Field: int32(i)}},
		}},
		RootType: &substraitpb.Expression_FieldReference_RootReference_{RootReference: &substraitpb.Expression_FieldReference_RootReference{}},
	}}}
}

// trueExpr is the literal true (a join on true).
func trueExpr() *substraitpb.Expression {
	return &substraitpb.Expression{RexType: &substraitpb.Expression_Literal_{Literal: &substraitpb.Expression_Literal{
		LiteralType: &substraitpb.Expression_Literal_Boolean{Boolean: true}}}}
}

// funcURNs is the standard extension of each function Decorrelate writes.
var funcURNs = map[string]string{
	"and": "functions_boolean", "or": "functions_boolean",
	"equal": "functions_comparison", "not_equal": "functions_comparison",
	"lt": "functions_comparison", "lte": "functions_comparison",
	"gt": "functions_comparison", "gte": "functions_comparison",
	"is_null": "functions_comparison", "coalesce": "functions_comparison",
	"is_not_null": "functions_comparison", "not": "functions_boolean",
	"is_not_distinct_from": "functions_comparison",
	"row_number":           "functions_arithmetic", // a correlated fetch's window (decorrelate_general.go)
}

// anchor returns the function anchor of the standard function name: a
// declaration the plan has (by its name, of the standard extension it is
// in), else one added to the plan. (A declaration of the same name under
// another URN, such as the "unknown" owner plan's migration gives
// producers' functions without a usable extension, is not reused: one
// more declaration of a standard function costs nothing, and a function
// of some other extension is never taken for the standard one.)
func (u *unnester) anchor(name string) uint32 {
	if a, ok := u.anchors[name]; ok {
		return a
	}
	var max uint32
	for a, declared := range u.funcs {
		max = maxU32(max, a)
		base, _, _ := strings.Cut(declared, ":")
		if base == name && u.urns[a] == "extension:io.substrait:"+funcURNs[name] {
			u.anchors[name] = a
			return a
		}
	}
	for _, a := range u.anchors {
		max = maxU32(max, a)
	}
	urn := "extension:io.substrait:" + funcURNs[name]
	var urnAnchor uint32
	found := false
	for _, e := range u.p.GetExtensionUrns() {
		urnAnchor = maxU32(urnAnchor, e.GetExtensionUrnAnchor())
		if e.GetUrn() == urn {
			urnAnchor, found = e.GetExtensionUrnAnchor(), true
			break
		}
	}
	if !found {
		urnAnchor++
		u.p.ExtensionUrns = append(u.p.ExtensionUrns, &extpb.SimpleExtensionURN{ExtensionUrnAnchor: urnAnchor, Urn: urn})
	}
	a := max + 1
	u.p.Extensions = append(u.p.Extensions, &extpb.SimpleExtensionDeclaration{MappingType: &extpb.SimpleExtensionDeclaration_ExtensionFunction_{
		ExtensionFunction: &extpb.SimpleExtensionDeclaration_ExtensionFunction{ExtensionUrnReference: urnAnchor, FunctionAnchor: a, Name: name}}})
	u.anchors[name] = a
	return a
}

func maxU32(a, b uint32) uint32 {
	if b > a {
		return b
	}
	return a
}

// call is the scalar function name(args...) returning out.
func (u *unnester) call(name string, out *substraitpb.Type, args ...*substraitpb.Expression) *substraitpb.Expression {
	fa := make([]*substraitpb.FunctionArgument, len(args))
	for i, a := range args {
		fa[i] = &substraitpb.FunctionArgument{ArgType: &substraitpb.FunctionArgument_Value{Value: a}}
	}
	return &substraitpb.Expression{RexType: &substraitpb.Expression_ScalarFunction_{ScalarFunction: &substraitpb.Expression_ScalarFunction{
		FunctionReference: u.anchor(name), OutputType: out, Arguments: fa}}}
}

// and is the conjunction of es (true when es is empty).
func (u *unnester) and(es []*substraitpb.Expression) *substraitpb.Expression {
	switch len(es) {
	case 0:
		return trueExpr()
	case 1:
		return es[0]
	}
	return u.call("and", nullableBoolean, es...)
}

// nullOr is or(c, is_null(x), is_null(y)): c is true or NULL for x and y
// exactly when it is true or one of them is NULL (c a comparison of x
// and y). It is the condition SQL lowers NOT IN to, which the planner
// runs as the NULL-aware anti join (notInKey).
func (u *unnester) nullOr(c, x, y *substraitpb.Expression) *substraitpb.Expression {
	return u.call("or", nullableBoolean, c, u.call("is_null", requiredBoolean, proto.Clone(x).(*substraitpb.Expression)),
		u.call("is_null", requiredBoolean, proto.Clone(y).(*substraitpb.Expression)))
}

// funcName is the standard name of a scalar function call ("" for any
// other expression).
func (u *unnester) funcName(e *substraitpb.Expression) string {
	f := e.GetScalarFunction()
	if f == nil {
		return ""
	}
	base, _, _ := strings.Cut(u.funcs[f.GetFunctionReference()], ":")
	return base
}

// valueArgs are a call's value arguments, nil if any is not a value.
func callArgs(e *substraitpb.Expression) []*substraitpb.Expression {
	var out []*substraitpb.Expression
	for _, a := range e.GetScalarFunction().GetArguments() {
		v := a.GetValue()
		if v == nil {
			return nil
		}
		out = append(out, v)
	}
	return out
}

// protoConjunct is one AND-ed part of a condition, with its path in the plan.
type protoConjunct struct {
	e    *substraitpb.Expression
	path string
}

// conjuncts splits an AND tree.
func (u *unnester) conjuncts(e *substraitpb.Expression, path string) []protoConjunct {
	if u.funcName(e) != "and" {
		return []protoConjunct{{e, path}}
	}
	args := callArgs(e)
	if len(args) == 0 {
		return []protoConjunct{{e, path}}
	}
	var out []protoConjunct
	for i, a := range args {
		out = append(out, u.conjuncts(a, fmt.Sprintf("%s.arguments[%d]", path, i))...)
	}
	return out
}

// walkExprs calls f on every expression in m, outermost first, not
// descending into relations (a subquery's or a child's); f returns false
// to not descend into an expression.
func walkExprs(m protoreflect.Message, f func(*substraitpb.Expression) bool) {
	if e, ok := m.Interface().(*substraitpb.Expression); ok {
		walkExpr(e, f) // exprwalk.go
		return
	}
	if relExprs(m.Interface(), f) { // exprwalk.go
		return
	}
	walkFields(m, f)
}

// walkFields is walkExprs of the message fields of m, by reflection.
func walkFields(m protoreflect.Message, f func(*substraitpb.Expression) bool) {
	d := m.Descriptor()
	if d.FullName() == relMessageName {
		return
	}
	fields := d.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.Kind() != protoreflect.MessageKind || !m.Has(fd) || fd.IsMap() {
			continue
		}
		if fd.IsList() {
			l := m.Get(fd).List()
			for j := range l.Len() {
				walkExprs(l.Get(j).Message(), f)
			}
			continue
		}
		walkExprs(m.Get(fd).Message(), f)
	}
}

// hasSubquery reports a subquery expression in m outside its child
// relations.
func hasSubquery(m proto.Message) bool {
	found := false
	walkExprs(m.ProtoReflect(), func(e *substraitpb.Expression) bool {
		if e.GetSubquery() != nil {
			found = true
		}
		return !found
	})
	return found
}

// hasOuterRef reports an outer reference anywhere in r, its child
// relations included. Decorrelate rewrites a subquery's own subqueries first,
// so every outer reference left in a subquery's relations is to a query
// around it.
func hasOuterRef(r proto.Message) bool { return outerRefIn(r, nil) }

// relHasOuterRef is hasOuterRef of a relation Decorrelate has finished
// rewriting, remembered for it and for every relation below it: a nest
// of scalar subqueries asks it of each level's subquery, which holds all
// the levels below, so walking each again would make decorrelation
// quadratic in the depth (TestPlanningLinear's (SELECT (SELECT ...))).
// A finished relation is never changed in place after, only put under
// new ones (a join's side, a flattened filter's input).
func (u *unnester) relHasOuterRef(r *substraitpb.Rel) bool {
	if u.outerRefs == nil {
		u.outerRefs = map[*substraitpb.Rel]bool{}
	}
	return outerRefIn(r, u.outerRefs)
}

// outerRefIn is hasOuterRef; with known non-nil, the relations found
// there are not walked again and those walked are added.
func outerRefIn(r proto.Message, known map[*substraitpb.Rel]bool) bool {
	var walk func(m protoreflect.Message) bool
	walk = func(m protoreflect.Message) bool {
		rel, isRel := m.Interface().(*substraitpb.Rel)
		if isRel && known != nil {
			if has, ok := known[rel]; ok {
				return has
			}
		}
		if f, ok := m.Interface().(*substraitpb.Expression_FieldReference); ok && f.GetOuterReference() != nil {
			return true
		}
		found := false
		if e, ok := m.Interface().(*substraitpb.Expression); ok {
			// By the expressions' Go types (exprwalk.go), down to the
			// relations of their subqueries.
			walkExpr(e, func(x *substraitpb.Expression) bool {
				switch r := x.GetRexType().(type) {
				case *substraitpb.Expression_Selection:
					found = found || r.Selection.GetOuterReference() != nil
				case *substraitpb.Expression_Subquery_, *substraitpb.Expression_Lambda_, *substraitpb.Expression_LambdaInvocation_:
					found = found || walkFieldsOf(x.ProtoReflect(), walk)
				}
				return !found
			})
			return found
		}
		found = walkFieldsOf(m, walk)
		if isRel && known != nil {
			known[rel] = found
		}
		return found
	}
	return walk(r.ProtoReflect())
}

// walkFieldsOf is outerRefIn's step into the message fields of m (a
// relation's, or an expression's subquery or lambda): true when walk
// finds an outer reference in one.
func walkFieldsOf(m protoreflect.Message, walk func(protoreflect.Message) bool) bool {
	found := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind || fd.IsMap() {
			return true
		}
		if fd.IsList() {
			for j := range v.List().Len() {
				if walk(v.List().Get(j).Message()) {
					found = true
					break
				}
			}
		} else {
			found = walk(v.Message())
		}
		return !found
	})
	return found
}

// remapRefs returns a copy of e with each field reference replaced by
// f's expression for it (root: a root reference, else an outer
// reference steps out).
func remapRefs(e *substraitpb.Expression, f func(root bool, steps uint32, field int) (*substraitpb.Expression, error)) (*substraitpb.Expression, error) {
	out := proto.Clone(e).(*substraitpb.Expression)
	var err error
	walkExprs(out.ProtoReflect(), func(x *substraitpb.Expression) bool {
		if err != nil {
			return false
		}
		if x.GetSubquery() != nil {
			err = unsup("expression", "subquery nested in a decorrelated expression")
			return false
		}
		s := x.GetSelection()
		if s == nil {
			return true
		}
		field := int(s.GetDirectReference().GetStructField().GetField())
		var r *substraitpb.Expression
		if o := s.GetOuterReference(); o != nil {
			r, err = f(false, o.GetStepsOut(), field)
		} else {
			r, err = f(true, 0, field)
		}
		if err == nil {
			proto.Reset(x)
			proto.Merge(x, r)
		}
		return false
	})
	return out, err
}

// shiftRefs moves e's root references by d columns.
func shiftRefs(e *substraitpb.Expression, d int) *substraitpb.Expression {
	out, _ := remapRefs(e, func(root bool, steps uint32, field int) (*substraitpb.Expression, error) {
		if !root {
			return outerFieldExpr(steps, field), nil
		}
		return fieldExpr(field + d), nil
	})
	return out
}

// outerFieldExpr is an outer reference to field i steps out.
func outerFieldExpr(steps uint32, i int) *substraitpb.Expression {
	e := fieldExpr(i)
	e.GetSelection().RootType = &substraitpb.Expression_FieldReference_OuterReference_{
		OuterReference: &substraitpb.Expression_FieldReference_OuterReference{StepsOut: steps}}
	return e
}

// refRange reports whether e has root references below w and at or
// above w.
func refRange(e *substraitpb.Expression, w int) (below, above bool) {
	walkExprs(e.ProtoReflect(), func(x *substraitpb.Expression) bool {
		if s := x.GetSelection(); s != nil && s.GetOuterReference() == nil {
			if int(s.GetDirectReference().GetStructField().GetField()) < w {
				below = true
			} else {
				above = true
			}
		}
		return true
	})
	return below, above
}

// located is a subquery expression and its path in the plan.
type located struct {
	e    *substraitpb.Expression
	path string
}

var funcArgName = (&substraitpb.FunctionArgument{}).ProtoReflect().Descriptor().FullName()

// subqueriesIn finds the outermost subquery expressions in e (at path),
// with their paths spelled as validate spells them: an expression's kind
// and a function argument's "value" add no segment
// ("condition.arguments[1]").
func subqueriesIn(e *substraitpb.Expression, path string) []located {
	var out []located
	var walk func(m protoreflect.Message, path string)
	walk = func(m protoreflect.Message, path string) {
		d := m.Descriptor()
		switch d.FullName() {
		case relMessageName:
			return
		case exprName:
			if x := m.Interface().(*substraitpb.Expression); x.GetSubquery() != nil {
				out = append(out, located{x, path})
				return
			}
		}
		plain := d.FullName() == exprName || d.FullName() == funcArgName
		fields := d.Fields()
		for i := range fields.Len() {
			fd := fields.Get(i)
			if fd.Kind() != protoreflect.MessageKind || !m.Has(fd) || fd.IsMap() {
				continue
			}
			if fd.IsList() {
				l := m.Get(fd).List()
				for j := range l.Len() {
					walk(l.Get(j).Message(), fmt.Sprintf("%s.%s[%d]", path, fd.Name(), j))
				}
				continue
			}
			p := path
			if !plain || fd.ContainingOneof() == nil {
				p = path + "." + string(fd.Name())
			}
			walk(m.Get(fd).Message(), p)
		}
	}
	walk(e.ProtoReflect(), path)
	return out
}
