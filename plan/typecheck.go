package plan

import (
	"fmt"
	"strings"

	substraitpb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/reflect/protoreflect"
)

var (
	typeName        = (&substraitpb.Type{}).ProtoReflect().Descriptor().FullName()
	namedStructName = (&substraitpb.NamedStruct{}).ProtoReflect().Descriptor().FullName()
)

// checkTypes refuses a plan holding a type substrait-go cannot read:
// a Type with no kind set (what a producer newer than substrait-protobuf
// v0.85 sends for a kind this version does not know, or a malformed
// plan), a precision timestamp/time whose precision is outside 0..12, or
// a NamedStruct (a read's base_schema) without its struct. substrait-go
// panics on each ("unimplemented type from proto", a nil dereference);
// FuzzSubstrait found them. The error names the field path in the plan.
func checkTypes(p *substraitpb.Plan) error {
	return walkTypes(p.ProtoReflect(), nil)
}

func walkTypes(m protoreflect.Message, path []string) error {
	var err error
	switch m.Descriptor().FullName() {
	case typeName:
		err = checkType(m.Interface().(*substraitpb.Type))
	case namedStructName:
		if m.Interface().(*substraitpb.NamedStruct).GetStruct() == nil {
			err = fmt.Errorf("named struct without its struct type")
		}
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrInvalidPlan, strings.Join(path, "."), err)
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind && fd.Kind() != protoreflect.GroupKind {
			return true
		}
		name := string(fd.Name())
		switch {
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len() && err == nil; i++ {
				err = walkTypes(l.Get(i).Message(), append(path, fmt.Sprintf("%s[%d]", name, i)))
			}
		case fd.IsMap():
			if fd.MapValue().Kind() == protoreflect.MessageKind {
				v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
					err = walkTypes(mv.Message(), append(path, fmt.Sprintf("%s[%v]", name, k.Interface())))
					return err == nil
				})
			}
		default:
			err = walkTypes(v.Message(), append(path, name))
		}
		return err == nil
	})
	return err
}

// checkType checks one type's own fields (nested types are walked by
// walkTypes).
func checkType(t *substraitpb.Type) error {
	precision := func(p int32) error {
		if p < 0 || p > 12 {
			return fmt.Errorf("precision %d outside 0..12", p)
		}
		return nil
	}
	switch k := t.GetKind().(type) {
	case nil:
		return fmt.Errorf("type with no kind (a kind this reader does not know)")
	case *substraitpb.Type_PrecisionTime_:
		return precision(k.PrecisionTime.GetPrecision())
	case *substraitpb.Type_PrecisionTimestamp_:
		return precision(k.PrecisionTimestamp.GetPrecision())
	case *substraitpb.Type_PrecisionTimestampTz:
		return precision(k.PrecisionTimestampTz.GetPrecision())
	}
	return nil
}
