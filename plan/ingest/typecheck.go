package ingest

import (
	substraitpb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/reflect/protoreflect"
)

var (
	typeName        = (&substraitpb.Type{}).ProtoReflect().Descriptor().FullName()
	namedStructName = (&substraitpb.NamedStruct{}).ProtoReflect().Descriptor().FullName()
	literalName     = (&substraitpb.Expression_Literal{}).ProtoReflect().Descriptor().FullName()
)

// checkTypes refuses a plan holding a type substrait-go cannot read:
// a Type with no kind set (what a producer newer than substrait-protobuf
// v0.85 sends for a kind this version does not know, or a malformed
// plan), a precision timestamp/time whose precision is outside 0..12, or
// a NamedStruct (a read's base_schema) without its struct. substrait-go
// panics on each ("unimplemented type from proto", a nil dereference);
// FuzzSubstrait found them. The error names the field path in the plan.
func checkTypes(p *substraitpb.Plan) error {
	if err := walkTypes(p.ProtoReflect()); err != nil {
		return place(err, "")
	}
	return nil
}

// walkTypes checks every Type and NamedStruct under m. It loops over the
// descriptor's fields rather than m.Range, and builds the path of a bad
// type only on the way out of a failure (a *locErr): a valid plan's walk
// allocates next to nothing (this runs on every plan).
func walkTypes(m protoreflect.Message) error {
	var err error
	switch m.Descriptor().FullName() {
	case typeName:
		err = checkType(m.Interface().(*substraitpb.Type))
	case namedStructName:
		if m.Interface().(*substraitpb.NamedStruct).GetStruct() == nil {
			err = bad("named struct without its struct type")
		}
	case literalName:
		// A list literal's scalar elements hold no Type: the elements of
		// a long IN list (a million of them) are not walked one field
		// descriptor at a time.
		if l := m.Interface().(*substraitpb.Expression_Literal).GetList(); l != nil {
			for j, el := range l.GetValues() {
				if scalarLiteral(el) {
					continue
				}
				if err := walkTypes(el.ProtoReflect()); err != nil {
					return within(within(err, "values[%d]", j), "list")
				}
			}
			return nil
		}
	}
	if err != nil {
		return err
	}
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if (fd.Kind() != protoreflect.MessageKind && fd.Kind() != protoreflect.GroupKind) || !m.Has(fd) {
			continue
		}
		switch {
		case fd.IsList():
			l := m.Get(fd).List()
			for j := range l.Len() {
				if err := walkTypes(l.Get(j).Message()); err != nil {
					return within(err, "%s[%d]", fd.Name(), j)
				}
			}
		case fd.IsMap():
			if fd.MapValue().Kind() == protoreflect.MessageKind {
				m.Get(fd).Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
					if err = walkTypes(mv.Message()); err != nil {
						err = within(err, "%s[%v]", fd.Name(), k.Interface())
					}
					return err == nil
				})
				if err != nil {
					return err
				}
			}
		default:
			if err := walkTypes(m.Get(fd).Message()); err != nil {
				return within(err, "%s", fd.Name())
			}
		}
	}
	return nil
}

// checkType checks one type's own fields (nested types are walked by
// walkTypes).
func checkType(t *substraitpb.Type) error {
	precision := func(p int32) error {
		if p < 0 || p > 12 {
			return bad("precision %d outside 0..12", p)
		}
		return nil
	}
	switch k := t.GetKind().(type) {
	case nil:
		return bad("type with no kind (a kind this reader does not know)")
	case *substraitpb.Type_PrecisionTime_:
		return precision(k.PrecisionTime.GetPrecision())
	case *substraitpb.Type_PrecisionTimestamp_:
		return precision(k.PrecisionTimestamp.GetPrecision())
	case *substraitpb.Type_PrecisionTimestampTz:
		return precision(k.PrecisionTimestampTz.GetPrecision())
	}
	return nil
}

// scalarLiteral reports whether a literal is an i32, i64, fp64 or string
// value: one holding no message, so no Type and no nesting.
func scalarLiteral(l *substraitpb.Expression_Literal) bool {
	switch l.GetLiteralType().(type) {
	case *substraitpb.Expression_Literal_I32, *substraitpb.Expression_Literal_I64,
		*substraitpb.Expression_Literal_Fp64, *substraitpb.Expression_Literal_String_:
		return true
	}
	return false
}
