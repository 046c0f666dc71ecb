package plan

import (
	"fmt"
	"slices"

	"github.com/substrait-io/substrait-protobuf/go/substraitpb"
	extpb "github.com/substrait-io/substrait-protobuf/go/substraitpb/extensions"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// ExpandPackedLists rewrites p in place for a consumer that does not know
// stablerow's packed list type (`stablerow substrait -emit`, a plan shown
// or written for another engine): each packed list literal becomes the
// standard list literal of its values, in order, with one typed NULL last
// when the list holds one (IN does not depend on the order); the type's
// declarations go, and its URN when nothing else refers to it. The
// planner reads either form into the same physexpr.InValues (invalues.go).
// A malformed packed list is an error wrapping ErrInvalidPlan, and p is
// then left partly expanded.
func ExpandPackedLists(p *substraitpb.Plan) error {
	urns := map[uint32]bool{}
	for _, u := range p.GetExtensionUrns() {
		if u.GetUrn() == PackedListURN {
			urns[u.GetExtensionUrnAnchor()] = true
		}
	}
	anchors := map[uint32]bool{}
	for _, d := range p.GetExtensions() {
		if t := d.GetExtensionType(); t != nil && urns[t.GetExtensionUrnReference()] && t.GetName() == PackedListType {
			anchors[t.GetTypeAnchor()] = true
		}
	}
	if len(anchors) == 0 {
		return nil
	}
	if err := expandIn(p.ProtoReflect(), anchors); err != nil {
		return err
	}
	p.Extensions = slices.DeleteFunc(p.Extensions, func(d *extpb.SimpleExtensionDeclaration) bool {
		t := d.GetExtensionType()
		return t != nil && anchors[t.GetTypeAnchor()] && urns[t.GetExtensionUrnReference()]
	})
	used := map[uint32]bool{}
	for _, d := range p.GetExtensions() {
		switch m := d.GetMappingType().(type) {
		case *extpb.SimpleExtensionDeclaration_ExtensionFunction_:
			used[m.ExtensionFunction.GetExtensionUrnReference()] = true
		case *extpb.SimpleExtensionDeclaration_ExtensionType_:
			used[m.ExtensionType.GetExtensionUrnReference()] = true
		case *extpb.SimpleExtensionDeclaration_ExtensionTypeVariation_:
			used[m.ExtensionTypeVariation.GetExtensionUrnReference()] = true
		}
	}
	p.ExtensionUrns = slices.DeleteFunc(p.ExtensionUrns, func(u *extpb.SimpleExtensionURN) bool {
		return urns[u.GetExtensionUrnAnchor()] && !used[u.GetExtensionUrnAnchor()]
	})
	return nil
}

// expandIn replaces the packed list literals under m.
func expandIn(m protoreflect.Message, anchors map[uint32]bool) error {
	if m.Descriptor().FullName() == literalName {
		l := m.Interface().(*substraitpb.Expression_Literal)
		ud := l.GetUserDefined()
		if ud == nil || !anchors[ud.GetTypeReference()] {
			return nil // no other literal holds one
		}
		pl, err := DecodePackedList(ud.GetValue())
		if err != nil {
			return err
		}
		list, err := standardList(pl)
		if err != nil {
			return err
		}
		l.Nullable, l.TypeVariationReference = false, 0
		l.LiteralType = &substraitpb.Expression_Literal_List_{List: list}
		return nil
	}
	var err error
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind && fd.Kind() != protoreflect.GroupKind {
			return true
		}
		switch {
		case fd.IsList():
			for i := range v.List().Len() {
				if err = expandIn(v.List().Get(i).Message(), anchors); err != nil {
					return false
				}
			}
		case fd.IsMap():
			if fd.MapValue().Kind() == protoreflect.MessageKind {
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					err = expandIn(mv.Message(), anchors)
					return err == nil
				})
			}
		default:
			err = expandIn(v.Message(), anchors)
		}
		return err == nil
	})
	return err
}

// standardList is a packed list's values as a standard list literal's.
func standardList(pl PackedList) (*substraitpb.Expression_Literal_List, error) {
	null := &substraitpb.Type{}
	nullable := substraitpb.Type_NULLABILITY_NULLABLE
	vals := make([]*substraitpb.Expression_Literal, 0, pl.Len()+1)
	switch v := pl.Values.(type) {
	case []int32:
		null.Kind = &substraitpb.Type_I32_{I32: &substraitpb.Type_I32{Nullability: nullable}}
		for _, x := range v {
			vals = append(vals, &substraitpb.Expression_Literal{LiteralType: &substraitpb.Expression_Literal_I32{I32: x}})
		}
	case []int64:
		null.Kind = &substraitpb.Type_I64_{I64: &substraitpb.Type_I64{Nullability: nullable}}
		for _, x := range v {
			vals = append(vals, &substraitpb.Expression_Literal{LiteralType: &substraitpb.Expression_Literal_I64{I64: x}})
		}
	case []float64:
		null.Kind = &substraitpb.Type_Fp64{Fp64: &substraitpb.Type_FP64{Nullability: nullable}}
		for _, x := range v {
			vals = append(vals, &substraitpb.Expression_Literal{LiteralType: &substraitpb.Expression_Literal_Fp64{Fp64: x}})
		}
	case []string:
		null.Kind = &substraitpb.Type_String_{String_: &substraitpb.Type_String{Nullability: nullable}}
		for _, x := range v {
			vals = append(vals, &substraitpb.Expression_Literal{LiteralType: &substraitpb.Expression_Literal_String_{String_: x}})
		}
	default:
		return nil, fmt.Errorf("%w: packed list of %s", ErrInvalidPlan, pl.Kind)
	}
	if pl.Null {
		vals = append(vals, &substraitpb.Expression_Literal{Nullable: true, LiteralType: &substraitpb.Expression_Literal_Null{Null: null}})
	}
	return &substraitpb.Expression_Literal_List{Values: vals}, nil
}
