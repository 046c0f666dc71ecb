package ingest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stablerow/stablerow/internal/substraitfn"
	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// expr checks an expression over an input of w columns (see validate):
// every field reference in range, every function anchor declared, every
// type and literal one substrait-go can read. Its error is a *locErr the
// caller places (place).
func (v *validator) expr(e *substraitpb.Expression, w int) error {
	if e == nil {
		return bad("missing expression")
	}
	switch t := e.GetRexType().(type) {
	case *substraitpb.Expression_Literal_:
		return v.literal(t.Literal)
	case *substraitpb.Expression_Selection:
		return v.fieldRef(t.Selection, w)
	case *substraitpb.Expression_ScalarFunction_:
		f := t.ScalarFunction
		return v.function(f.GetFunctionReference(), f.GetOutputType(), f.GetArguments(), w)
	case *substraitpb.Expression_IfThen_:
		it := t.IfThen
		if len(it.GetIfs()) == 0 {
			return bad("if-then without a clause")
		}
		for i, c := range it.GetIfs() {
			if err := v.expr(c.GetIf(), w); err != nil {
				return within(err, "ifs[%d].if", i)
			}
			if err := v.expr(c.GetThen(), w); err != nil {
				return within(err, "ifs[%d].then", i)
			}
		}
		return within(v.expr(it.GetElse(), w), "else")
	case *substraitpb.Expression_SwitchExpression_:
		s := t.SwitchExpression
		if len(s.GetIfs()) == 0 {
			return bad("switch without a clause")
		}
		if err := v.expr(s.GetMatch(), w); err != nil {
			return within(err, "match")
		}
		for i, c := range s.GetIfs() {
			if c.GetIf() == nil {
				return bad("switch clause %d without its value", i)
			}
			if err := v.literal(c.GetIf()); err != nil {
				return within(err, "ifs[%d].if", i)
			}
			if err := v.expr(c.GetThen(), w); err != nil {
				return within(err, "ifs[%d].then", i)
			}
		}
		return within(v.expr(s.GetElse(), w), "else")
	case *substraitpb.Expression_SingularOrList_:
		if err := v.expr(t.SingularOrList.GetValue(), w); err != nil {
			return within(err, "value")
		}
		opts := t.SingularOrList.GetOptions()
		if len(opts) == 1 && opts[0].GetLiteral().GetList() != nil {
			// x IN (a list literal's elements): invalues.go.
			for i, el := range opts[0].GetLiteral().GetList().GetValues() {
				if err := v.listElement(el); err != nil {
					return within(err, "options[0].list.values[%d]", i)
				}
			}
			return nil
		}
		if len(opts) == 1 && opts[0].GetLiteral().GetUserDefined() != nil {
			// x IN (a packed list): invalues.go, packedlist.go.
			return within(v.packedList(opts[0].GetLiteral()), "options[0]")
		}
		for i, o := range opts {
			if err := v.expr(o, w); err != nil {
				return within(err, "options[%d]", i)
			}
		}
		return nil
	case *substraitpb.Expression_Cast_:
		if t.Cast.GetType() == nil {
			return bad("cast without a type")
		}
		return within(v.expr(t.Cast.GetInput(), w), "input")
	case *substraitpb.Expression_Subquery_:
		return within(v.subquery(t.Subquery, w), "subquery")
	case *substraitpb.Expression_DynamicParameter:
		if t.DynamicParameter.GetType() == nil {
			return bad("dynamic parameter $%d without a type", t.DynamicParameter.GetParameterReference())
		}
		return nil
	case *substraitpb.Expression_WindowFunction_:
		return v.windowFunction(t.WindowFunction, w) // window_validate.go
	case nil:
		return bad("expression without a kind")
	default:
		// Window functions, subqueries, multi-column IN lists, nested
		// constructors, lambdas, enums: no planned relation evaluates
		// them, and substrait-go panics on several malformed ones.
		name := strings.TrimSuffix(strings.TrimPrefix(fmt.Sprintf("%T", t), "*substraitpb.Expression_"), "_")
		return unsup("expression", "%s", name)
	}
}

// function checks a scalar or aggregate function call.
func (v *validator) function(anchor uint32, out *substraitpb.Type, args []*substraitpb.FunctionArgument, w int) error {
	name, ok := v.funcs[anchor]
	if !ok {
		return bad("function anchor %d is not declared in the plan's extensions", anchor)
	}
	if out == nil {
		return bad("function %q without an output_type", name)
	}
	if urn := v.urns[anchor]; !byNameOwners[urnOwner(urn)] {
		return unsup("function", "%s of extension %s", name, urn)
	}
	for i, a := range args {
		switch at := a.GetArgType().(type) {
		case *substraitpb.FunctionArgument_Value:
			if err := v.expr(at.Value, w); err != nil {
				return within(err, "arguments[%d]", i)
			}
		case *substraitpb.FunctionArgument_Type, *substraitpb.FunctionArgument_Enum:
		default:
			return within(bad("function %q argument without a value", name), "arguments[%d]", i)
		}
	}
	return nil
}

// fieldRef checks a field reference against an input of w columns. Only
// direct references to a top-level field are planned; the others are
// refused by name.
func (v *validator) fieldRef(f *substraitpb.Expression_FieldReference, w int) error {
	switch f.GetRootType().(type) {
	case *substraitpb.Expression_FieldReference_RootReference_:
	case *substraitpb.Expression_FieldReference_OuterReference_:
		return v.outerRef(f)
	case nil:
		return bad("field reference without a root")
	default:
		return unsup("expression", "field reference into an expression or lambda parameter")
	}
	d, ok := f.GetReferenceType().(*substraitpb.Expression_FieldReference_DirectReference)
	if !ok {
		if f.GetReferenceType() == nil {
			return bad("field reference without a reference")
		}
		return unsup("expression", "masked field reference")
	}
	s, ok := d.DirectReference.GetReferenceType().(*substraitpb.Expression_ReferenceSegment_StructField_)
	if !ok {
		return bad("field reference into a record that is not a struct field")
	}
	if s.StructField.GetChild() != nil {
		return unsup("expression", "nested field reference")
	}
	if i := s.StructField.GetField(); i < 0 || int(i) >= w {
		return bad("field %d out of range (input has %d columns)", i, w)
	}
	return nil
}

// literal checks a literal substrait-go can read: it panics on a literal
// without a value and returns nil (later dereferenced) for a time with a
// precision outside 0..9 or a negative value, an invalid interval, an
// empty list or map.
func (v *validator) literal(l *substraitpb.Expression_Literal) error {
	if l == nil {
		return bad("missing literal")
	}
	precision := func(p int32, val int64) error {
		if p < 0 || p > 9 {
			return bad("literal precision %d outside 0..9", p)
		}
		if val < 0 {
			return bad("negative time literal %d", val)
		}
		return nil
	}
	switch t := l.GetLiteralType().(type) {
	case nil:
		return bad("literal without a value")
	case *substraitpb.Expression_Literal_Boolean, *substraitpb.Expression_Literal_I8, *substraitpb.Expression_Literal_I16,
		*substraitpb.Expression_Literal_I32, *substraitpb.Expression_Literal_I64, *substraitpb.Expression_Literal_Fp32,
		*substraitpb.Expression_Literal_Fp64, *substraitpb.Expression_Literal_String_, *substraitpb.Expression_Literal_Binary,
		*substraitpb.Expression_Literal_Timestamp, *substraitpb.Expression_Literal_Date, *substraitpb.Expression_Literal_Time,
		*substraitpb.Expression_Literal_FixedChar, *substraitpb.Expression_Literal_VarChar_,
		*substraitpb.Expression_Literal_FixedBinary, *substraitpb.Expression_Literal_TimestampTz,
		*substraitpb.Expression_Literal_Uuid, *substraitpb.Expression_Literal_IntervalYearToMonth_:
		return nil
	case *substraitpb.Expression_Literal_Decimal_:
		if t.Decimal == nil {
			return bad("decimal literal without a value")
		}
		return nil
	case *substraitpb.Expression_Literal_Null:
		if t.Null == nil {
			return bad("null literal without a type")
		}
		return nil
	case *substraitpb.Expression_Literal_PrecisionTime_:
		return precision(t.PrecisionTime.GetPrecision(), t.PrecisionTime.GetValue())
	case *substraitpb.Expression_Literal_PrecisionTimestamp_:
		return precision(t.PrecisionTimestamp.GetPrecision(), t.PrecisionTimestamp.GetValue())
	case *substraitpb.Expression_Literal_PrecisionTimestampTz:
		return precision(t.PrecisionTimestampTz.GetPrecision(), t.PrecisionTimestampTz.GetValue())
	case *substraitpb.Expression_Literal_IntervalDayToSecond_:
		if p, ok := t.IntervalDayToSecond.GetPrecisionMode().(*substraitpb.Expression_Literal_IntervalDayToSecond_Precision); ok {
			return precision(p.Precision, 0)
		}
		return nil
	default:
		// Struct, list, map, user-defined and compound interval
		// literals: no planned expression takes them.
		name := strings.TrimSuffix(strings.TrimPrefix(fmt.Sprintf("%T", t), "*substraitpb.Expression_Literal_"), "_")
		return unsup("expression", "%s literal", name)
	}
}

// listElement checks one element of an IN list's list literal: an i32,
// i64, fp64 or string literal, or a typed NULL (invalues.go).
func (v *validator) listElement(l *substraitpb.Expression_Literal) error {
	switch l.GetLiteralType().(type) {
	case *substraitpb.Expression_Literal_I32, *substraitpb.Expression_Literal_I64,
		*substraitpb.Expression_Literal_Fp64, *substraitpb.Expression_Literal_String_:
		return nil
	case *substraitpb.Expression_Literal_Null:
		return v.literal(l)
	}
	return unsup("expression", "IN list element %T", l.GetLiteralType())
}

// urnOwner is the owner part of "extension:<owner>:<id>".
func urnOwner(urn string) string {
	owner, _, _ := strings.Cut(strings.TrimPrefix(urn, "extension:"), ":")
	return owner
}

// locErr is an error found inside a relation's expressions: what is wrong,
// and where, as the segments of its path (innermost first, as they are
// added on the way out). Paths are made only for a plan that fails: the
// walk of a valid plan formats nothing.
type locErr struct {
	kind string // "" for an invalid plan, else what is unsupported ("expression")
	msg  string
	segs []string
}

func (e *locErr) Error() string { return e.msg }

// bad and unsup make a locErr.
func bad(format string, args ...any) error {
	return &locErr{msg: fmt.Sprintf(format, args...)}
}

func unsup(kind, format string, args ...any) error {
	return &locErr{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// within adds a path segment to a locErr (nil stays nil).
func within(err error, format string, args ...any) error {
	if le, ok := err.(*locErr); ok {
		le.segs = append(le.segs, fmt.Sprintf(format, args...))
	}
	return err
}

// place turns a locErr into the typed error, with the path of the
// relation it was found in:
//
//	plan: invalid plan: root.input.filter: condition.arguments[0]: field 7 out of range (input has 3 columns)
//	plan: unsupported expression: Subquery at root.input.filter: condition
func place(err error, path string) error {
	le, ok := err.(*locErr)
	if !ok {
		return err
	}
	where := path
	if len(le.segs) > 0 {
		segs := slices.Clone(le.segs)
		slices.Reverse(segs)
		if where != "" {
			where += ": "
		}
		where += strings.Join(segs, ".")
	}
	return &relErr{kind: le.kind, path: where, msg: le.msg}
}

// packedList checks a user-defined literal as an IN list's only option:
// the packed list type, declared, with an Any value (whose payload the
// planner decodes and checks).
func (v *validator) packedList(l *substraitpb.Expression_Literal) error {
	ud := l.GetUserDefined()
	ref, ok := ud.GetTypeAnchorType().(*substraitpb.Expression_Literal_UserDefined_TypeReference)
	if !ok || !v.packed[ref.TypeReference] {
		return unsup("expression", "user-defined literal other than a %s %s", PackedListURN, PackedListType)
	}
	if len(ud.GetTypeParameters()) > 0 {
		return bad("%s literal with type parameters", PackedListType)
	}
	if ud.GetValue() == nil {
		return bad("%s literal without its value", PackedListType)
	}
	return nil
}

// PackedListURN and PackedListType name stablerow's packed list type
// (plan's packedlist.go reads its payload) in a plan's extension
// declarations; the validator accepts a literal of it as an IN list.
const (
	PackedListURN  = substraitfn.URNPackedList
	PackedListType = "packed_list"
)
