package plan

import (
	"fmt"
	"strings"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// expr checks an expression over an input of w columns (see validate):
// every field reference in range, every function anchor declared, every
// type and literal one substrait-go can read.
func (v *validator) expr(e *substraitpb.Expression, w int, path string) error {
	if e == nil {
		return invalidAt(path, "missing expression")
	}
	switch t := e.GetRexType().(type) {
	case *substraitpb.Expression_Literal_:
		return v.literal(t.Literal, path)
	case *substraitpb.Expression_Selection:
		return v.fieldRef(t.Selection, w, path)
	case *substraitpb.Expression_ScalarFunction_:
		f := t.ScalarFunction
		return v.function(f.GetFunctionReference(), f.GetOutputType(), f.GetArguments(), w, path)
	case *substraitpb.Expression_IfThen_:
		it := t.IfThen
		if len(it.GetIfs()) == 0 {
			return invalidAt(path, "if-then without a clause")
		}
		for i, c := range it.GetIfs() {
			if err := v.expr(c.GetIf(), w, fmt.Sprintf("%s.ifs[%d].if", path, i)); err != nil {
				return err
			}
			if err := v.expr(c.GetThen(), w, fmt.Sprintf("%s.ifs[%d].then", path, i)); err != nil {
				return err
			}
		}
		return v.expr(it.GetElse(), w, path+".else")
	case *substraitpb.Expression_SwitchExpression_:
		s := t.SwitchExpression
		if len(s.GetIfs()) == 0 {
			return invalidAt(path, "switch without a clause")
		}
		if err := v.expr(s.GetMatch(), w, path+".match"); err != nil {
			return err
		}
		for i, c := range s.GetIfs() {
			if c.GetIf() == nil {
				return invalidAt(path, "switch clause %d without its value", i)
			}
			if err := v.literal(c.GetIf(), fmt.Sprintf("%s.ifs[%d].if", path, i)); err != nil {
				return err
			}
			if err := v.expr(c.GetThen(), w, fmt.Sprintf("%s.ifs[%d].then", path, i)); err != nil {
				return err
			}
		}
		return v.expr(s.GetElse(), w, path+".else")
	case *substraitpb.Expression_SingularOrList_:
		if err := v.expr(t.SingularOrList.GetValue(), w, path+".value"); err != nil {
			return err
		}
		for i, o := range t.SingularOrList.GetOptions() {
			if err := v.expr(o, w, fmt.Sprintf("%s.options[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	case *substraitpb.Expression_Cast_:
		if t.Cast.GetType() == nil {
			return invalidAt(path, "cast without a type")
		}
		return v.expr(t.Cast.GetInput(), w, path+".input")
	case *substraitpb.Expression_DynamicParameter:
		if t.DynamicParameter.GetType() == nil {
			return invalidAt(path, "dynamic parameter $%d without a type", t.DynamicParameter.GetParameterReference())
		}
		return nil
	case nil:
		return invalidAt(path, "expression without a kind")
	default:
		// Window functions, subqueries, multi-column IN lists, nested
		// constructors, lambdas, enums: no planned relation evaluates
		// them, and substrait-go panics on several malformed ones.
		name := strings.TrimSuffix(strings.TrimPrefix(fmt.Sprintf("%T", t), "*substraitpb.Expression_"), "_")
		return unsupportedAt("expression", path, "%s", name)
	}
}

// function checks a scalar or aggregate function call.
func (v *validator) function(anchor uint32, out *substraitpb.Type, args []*substraitpb.FunctionArgument, w int, path string) error {
	name, ok := v.funcs[anchor]
	if !ok {
		return invalidAt(path, "function anchor %d is not declared in the plan's extensions", anchor)
	}
	if out == nil {
		return invalidAt(path, "function %q without an output_type", name)
	}
	if urn := v.urns[anchor]; !byNameOwners[urnOwner(urn)] {
		return unsupportedAt("function", path, "%s of extension %s", name, urn)
	}
	for i, a := range args {
		ap := fmt.Sprintf("%s.arguments[%d]", path, i)
		switch at := a.GetArgType().(type) {
		case *substraitpb.FunctionArgument_Value:
			if err := v.expr(at.Value, w, ap); err != nil {
				return err
			}
		case *substraitpb.FunctionArgument_Type, *substraitpb.FunctionArgument_Enum:
		default:
			return invalidAt(ap, "function %q argument without a value", name)
		}
	}
	return nil
}

// fieldRef checks a field reference against an input of w columns. Only
// direct references to a top-level field are planned; the others are
// refused by name.
func (v *validator) fieldRef(f *substraitpb.Expression_FieldReference, w int, path string) error {
	switch f.GetRootType().(type) {
	case *substraitpb.Expression_FieldReference_RootReference_:
	case *substraitpb.Expression_FieldReference_OuterReference_:
		return invalidAt(path, "outer field reference outside a subquery")
	case nil:
		return invalidAt(path, "field reference without a root")
	default:
		return unsupportedAt("expression", path, "field reference into an expression or lambda parameter")
	}
	d, ok := f.GetReferenceType().(*substraitpb.Expression_FieldReference_DirectReference)
	if !ok {
		if f.GetReferenceType() == nil {
			return invalidAt(path, "field reference without a reference")
		}
		return unsupportedAt("expression", path, "masked field reference")
	}
	s, ok := d.DirectReference.GetReferenceType().(*substraitpb.Expression_ReferenceSegment_StructField_)
	if !ok {
		return invalidAt(path, "field reference into a record that is not a struct field")
	}
	if s.StructField.GetChild() != nil {
		return unsupportedAt("expression", path, "nested field reference")
	}
	if i := s.StructField.GetField(); i < 0 || int(i) >= w {
		return invalidAt(path, "field %d out of range (input has %d columns)", i, w)
	}
	return nil
}

// literal checks a literal substrait-go can read: it panics on a literal
// without a value and returns nil (later dereferenced) for a time with a
// precision outside 0..9 or a negative value, an invalid interval, an
// empty list or map.
func (v *validator) literal(l *substraitpb.Expression_Literal, path string) error {
	if l == nil {
		return invalidAt(path, "missing literal")
	}
	precision := func(p int32, val int64) error {
		if p < 0 || p > 9 {
			return invalidAt(path, "literal precision %d outside 0..9", p)
		}
		if val < 0 {
			return invalidAt(path, "negative time literal %d", val)
		}
		return nil
	}
	switch t := l.GetLiteralType().(type) {
	case nil:
		return invalidAt(path, "literal without a value")
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
			return invalidAt(path, "decimal literal without a value")
		}
		return nil
	case *substraitpb.Expression_Literal_Null:
		if t.Null == nil {
			return invalidAt(path, "null literal without a type")
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
		return unsupportedAt("expression", path, "%s literal", name)
	}
}

// urnOwner is the owner part of "extension:<owner>:<id>".
func urnOwner(urn string) string {
	owner, _, _ := strings.Cut(strings.TrimPrefix(urn, "extension:"), ":")
	return owner
}
